"""Prompt variants: the paper's prompt, or one reworded, renamed, reordered or reformatted.

How much does a headline move when the instruction is worded otherwise, the participants are
called otherwise, the demonstrations come in another order, or the reply is asked for in
another format? Each Inspect task that answers this (LoSoNA, SCENE, HSII) takes one argument,
``variant``, a spec string:

- ``paper``: the paper's prompt and data, byte for byte (the default);
- ``file:PATH``: the subject's instruction read from PATH instead of the paper's prompt file,
  checked to hold exactly the paper file's placeholders, no more often than it does, no
  look-alike of one, no word naming the hidden layer and no run of words an item hides (and
  any line the renderer cuts at; ``normlab.core.instructions``);
- ``rename:SEED``: every participant renamed, consistently, from a name bank
  (``normlab.core.renaming``), seeded per item;
- ``reorder:SEED``: the demonstrations in a seeded other order (LoSoNA); a seed is a number,
  so ``rename:01`` is ``rename:1`` (one variant, one folder, one log record);
- ``format:NAME``: the reply asked for in another output format the parser reads (HSII).

Each system says which kinds it takes (its ``variants.py``) and applies them; the shared
parts are here: the spec's grammar, the instruction file's check, the gate that refuses a
transformation whose data its system's linter finds new problems in, and the record the
log carries (task metadata and each sample's metadata). The spec itself is in the log
header's ``task_args``, so ``inspect eval normlab/losona -T variant=rename:1`` says it too.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict

from normlab.core.errors import InputError
from normlab.core.instructions import (
    check_leak_words,
    check_placeholders,
    cleaned,
    refuse_copied,
)
from normlab.core.jsonio import read_text
from normlab.core.renaming import NameOrWord, Renaming

PAPER = "paper"
"""The paper's prompt: what every task runs when no variant is given."""
VARIANT_KEY = "variant"
"""Where the variant's record goes in the task's and each sample's metadata (not for the
paper's prompt, whose logs stay as they were)."""
OPTION = "--variant"
KINDS: Mapping[str, str] = {
    PAPER: "",
    "file": "PATH",
    "rename": "SEED",
    "reorder": "SEED",
    "format": "NAME",
}
"""Every kind of variant and what its argument is (the systems take some of them)."""
MAX_INSTRUCTION_BYTES = 256 << 10
"""An instruction file is a page of text; a larger file under the name is not one."""
_SEED = re.compile(r"^[0-9]{1,9}$")
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class VariantSpec:
    """A parsed ``variant`` argument: its kind and its argument, as given."""

    kind: str
    argument: str = ""

    @property
    def text(self) -> str:
        """The spec as a task argument writes it (``rename:1``)."""
        return self.kind if not self.argument else f"{self.kind}:{self.argument}"

    @property
    def is_paper(self) -> bool:
        return self.kind == PAPER

    @property
    def seed(self) -> int:
        """A seeded kind's seed (``rename:SEED``, ``reorder:SEED``)."""
        return int(self.argument)

    @property
    def slug(self) -> str:
        """A folder name for the variant (``rename-1``, ``file-reworded``): a study runs each
        variant's cells into a folder of their own."""
        argument = Path(self.argument).stem if self.kind == "file" else self.argument
        tail = _SLUG.sub("-", argument).strip("-.")
        return f"{self.kind}-{tail}" if tail else self.kind


def _forms(kinds: Iterable[str]) -> str:
    return ", ".join(kind + (f":{KINDS[kind]}" if KINDS[kind] else "") for kind in kinds)


def parse_variant(
    text: object, kinds: Sequence[str], formats: Sequence[str] = (), system: str = ""
) -> VariantSpec:
    """``text`` as a variant of one of ``kinds`` (``formats``: the names ``format:`` takes),
    or a one-line [`InputError`][normlab.core.InputError] naming ``--variant``."""
    taken = f"{system + ' ' if system else ''}takes: {_forms(kinds)}"
    if not isinstance(text, str) or not text.strip():
        raise InputError(OPTION, f"a variant is one of {_forms(kinds)}", field=VARIANT_KEY)
    kind, colon, argument = text.strip().partition(":")
    if kind not in kinds:
        raise InputError(OPTION, f"unknown variant {text.strip()!r}; {taken}", field=VARIANT_KEY)
    expected = KINDS[kind]
    if not expected:
        if colon:
            raise InputError(OPTION, f"{kind} takes no argument, got {text!r}", field=VARIANT_KEY)
        return VariantSpec(kind)
    if not argument.strip():
        raise InputError(
            OPTION, f"{kind} needs its {expected} ({kind}:{expected})", field=VARIANT_KEY
        )
    if expected == "SEED" and not _SEED.match(argument):
        raise InputError(
            OPTION,
            f"{kind} takes a whole-number seed ({kind}:1), got {argument!r}",
            field=VARIANT_KEY,
        )
    if expected == "SEED":
        argument = str(int(argument))  # rename:01 is rename:1: one variant, one folder, one log
    if expected == "NAME" and argument not in formats:
        raise InputError(
            OPTION,
            f"unknown format {argument!r}; choose from {', '.join(formats)}",
            field=VARIANT_KEY,
        )
    return VariantSpec(kind, argument)


def canonical_variant(text: str) -> str:
    """``text`` as ``parse_variant`` would give its spec, without checking it (a study lists
    each variant once): spaces stripped, a seed without its leading zeros (``rename:01`` is
    ``rename:1``); what it cannot read stays as given, for the system's check to refuse."""
    kind, colon, argument = text.strip().partition(":")
    if colon and KINDS.get(kind) == "SEED" and _SEED.match(argument):
        return f"{kind}:{int(argument)}"
    return text.strip()


def instruction_path(spec: VariantSpec) -> Path:
    """A ``file:`` variant's file, ``~`` expanded as a shell would."""
    return Path(os.path.expanduser(spec.argument))


def instruction_text(spec: VariantSpec) -> str:
    """A ``file:`` variant's text as the subject is given it, unchecked (``read_instruction``
    checks it): a leading BOM dropped, line ends LF, the final newline dropped. A study hashes
    it to tell whether the file changed since its logs were written."""
    path = instruction_path(spec)
    if not path.exists():
        raise InputError(path, "no such instruction file", field=VARIANT_KEY)
    raw = read_text(path, limit=MAX_INSTRUCTION_BYTES)
    return cleaned(raw, path, VARIANT_KEY).rstrip("\n")


def read_instruction(
    spec: VariantSpec,
    paper: str,
    placeholder: re.Pattern[str],
    literal_lines: Sequence[str] = (),
) -> str:
    """A ``file:`` variant's instruction: the file's text (a leading BOM dropped, line ends made
    LF, its final newline dropped, as the paper's prompt files are read), refused on one line
    naming the file (``normlab.core.instructions``) when it holds a NUL byte, does not hold
    exactly the placeholders of ``paper`` (the paper's prompt file) as often as it does, holds
    a look-alike of one, or names the hidden layer of the test: a missing one would leave the
    subject without what the paper's prompt shows it, an unknown one would reach the model
    unfilled. ``literal_lines``: lines the renderer finds by their text (LoSoNA's cast line,
    SCENE's transcript line), which the file must hold as they stand."""
    path = instruction_path(spec)
    text = instruction_text(spec)
    check_placeholders(text, paper, placeholder, path, VARIANT_KEY)
    for line in literal_lines:
        if line not in text.splitlines():
            raise InputError(
                path, f"lacks the line {line!r}, as the paper prompt has it", field=VARIANT_KEY
            )
    if not text.strip():
        raise InputError(path, "is empty", field=VARIANT_KEY)
    check_leak_words(text, path, VARIANT_KEY)
    return text


def refuse_instruction_copies(
    spec: VariantSpec, instruction: str, hidden: Iterable[tuple[str, Sequence[str]]], size: int
) -> None:
    """A ``file:`` variant's instruction refused where it copies a run of ``size`` words from
    what an item hides (``hidden``: each item's id and its hidden texts, by its system's leak
    rule): told the norm, the subject is no longer tested on it."""
    refuse_copied(instruction, hidden, size, instruction_path(spec), VARIANT_KEY)


class VariantRecord(BaseModel):
    """What a log says of its prompt variant (task metadata and each sample's, under
    ``VARIANT_KEY``): written by ``variant_record``, read back by
    ``normlab.core.logs.log_variant`` wherever a variant's numbers are shown. A log without
    one ran the paper's prompt."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    spec: str = PAPER
    kind: str = PAPER
    description: str = "the paper's prompt"
    sha256: str | None = None
    """For an instruction file (or HSII's ``format:``), the SHA-256 of the text the subject
    was given."""

    @property
    def label(self) -> str:
        """How a report names it: the spec, an instruction by its file's name and the start of
        its hash (two texts under one name are two variants)."""
        kind, _, argument = self.spec.partition(":")
        shown = f"file:{Path(argument).name}" if kind == "file" else self.spec
        return shown + (f" (SHA-256 {self.sha256[:12]})" if self.sha256 else "")


def sha256_text(text: str) -> str:
    """The SHA-256 of an instruction's text, as its log records it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def variant_record(
    spec: VariantSpec, description: str, instruction: str | None = None
) -> dict[str, str]:
    """What the log says of the variant (task metadata and each sample's): the spec, what it
    did, and, for an instruction file, the SHA-256 of the text the subject was given."""
    sha = None if instruction is None else sha256_text(instruction)
    record = VariantRecord(spec=spec.text, kind=spec.kind, description=description, sha256=sha)
    return record.model_dump(exclude_none=True)


def added_findings(before: Iterable[str], after: Iterable[str]) -> list[str]:
    """The linter's findings on the transformed data that the paper's data does not have
    (``before`` mapped through the same transformation first, so a finding that names a
    renamed participant is the same finding), in the transformed data's order."""
    extra = Counter(after)
    extra.subtract(Counter(before))
    found = []
    for finding in after:
        if extra[finding] > 0:
            found.append(finding)
            extra[finding] -= 1
    return found


def refuse_added(spec: VariantSpec, before: Iterable[str], after: Iterable[str]) -> None:
    """A one-line refusal of a variant whose transformed data the system's linter finds a
    problem in that the paper's data does not have, or no longer finds one the paper's data
    has: a transformation must change the words, never what the test is (who speaks, where
    the demonstrations stand, what the norm is), and a finding that goes away (a copied judge
    example that now differs by a name) is a problem the transformation hid, not fixed."""
    before, after = list(before), list(after)
    hidden = added_findings(after, before)
    for found, says in ((added_findings(before, after), "fails the linter"), (hidden, "hides")):
        if found:
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            raise InputError(
                OPTION,
                f"{spec.text}: the transformed data {says}: {found[0]}{more}",
                field=VARIANT_KEY,
            )


Item = TypeVar("Item")


@dataclass(frozen=True)
class VariantBase:
    """A parsed variant, with the subject's instruction where it brings one (``file:``, and
    HSII's ``format:``): each system's ``Variant`` says what its kinds do (``DESCRIPTIONS``)
    and how they change its items (``apply``)."""

    spec: VariantSpec
    instruction: str | None = None
    """The subject's instruction, in place of the paper's prompt file."""

    DESCRIPTIONS: ClassVar[Mapping[str, str]] = {}
    """What each kind the system takes does, as its log says."""

    @property
    def record(self) -> dict[str, str] | None:
        """What the log says of it; None for the paper's prompt (its logs stay as they were)."""
        if self.spec.is_paper:
            return None
        return variant_record(self.spec, self.DESCRIPTIONS[self.spec.kind], self.instruction)

    def refuse_copies(self, hidden: Iterable[tuple[str, Sequence[str]]], size: int) -> None:
        """For a ``file:`` variant, its instruction refused where it copies a run of ``size``
        words from what an item hides (``hidden``: each item's id and hidden texts, read only
        for a ``file:`` variant; ``refuse_instruction_copies``)."""
        if self.spec.kind == "file" and self.instruction is not None:
            refuse_instruction_copies(self.spec, self.instruction, hidden, size)


def transformed(
    spec: VariantSpec,
    items: Sequence[Item],
    change: Callable[[Item], tuple[Item, Renaming]],
    findings: Callable[[Item], list[str]],
) -> list[Item]:
    """Each item changed by ``spec``'s transformation, refused (``refuse_added``) where the
    system's linter finds in the changed items what it does not find in the paper's: the
    paper's findings are renamed as the items were, so a finding naming a participant is the
    same finding after a rename; and where a rename cannot tell a name from a word in an item
    (``normlab.core.renaming.NameOrWord``), one line naming the item and the words."""
    before: list[str] = []
    after: list[str] = []
    found = []
    for item in items:
        try:
            changed, renaming = change(item)
            before += [renaming.text(line) for line in findings(item)]
        except NameOrWord as error:
            raise InputError(OPTION, f"{spec.text}: {error}; refused", field=VARIANT_KEY) from None
        after += findings(changed)
        found.append(changed)
    refuse_added(spec, before, after)
    return found
