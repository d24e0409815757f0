"""An instruction file (a ``file:`` variant) checked before any subject reads it.

A reworded instruction is meant to change the wording and nothing else, so what the file can
do besides is refused, one line naming the file:

- **bytes a prompt file never holds**: a NUL byte is refused; a byte-order mark at the start
  is dropped and one inside the text refused (two files joined); CRLF and lone CR line ends
  become LF, as the paper's prompt files have them, so the text sent and the SHA-256 the log
  records do not depend on the editor that saved it;
- **placeholders**: each exactly as the paper's prompt writes it, and no more often (the
  transcript shown twice is a longer prompt, not a reworded one); anything in braces that
  reads as a name but is no placeholder (``{Subject}``, ``{ subject }``, ``{ѕubject}`` with
  a Cyrillic s, a full-width brace, ``{transcript}`` where the syntax is ``{{transcript}}``)
  would reach the model unfilled;
- **leaks**: a word naming the hidden layer of the test (``normlab.core.leaks.LEAK_WORDS``,
  what every linter refuses in subject-visible text such as LoSoNA's channel description),
  and (``refuse_copied``, item by item) a run of words copied from what the item hides (its
  norm statement, examples, golden statement).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.leaks import copied_runs, leak_word_findings

BOM = "\ufeff"
_BRACES = re.compile(r"(\{+)([^{}\n]*)(\}+)")
"""A run of opening braces, what stands inside, a run of closing braces (on one line)."""
_NAME_LIKE = re.compile(r"^\s*[\w.]+(?:\s+[\w.]+)*\s*$")
"""What reads as a placeholder's name: letters of any script, digits, ``_`` and ``.``, maybe
spaced (a JSON shape, with its quotes and colons, does not)."""


def cleaned(text: str, path: str | Path, field: str | None = None) -> str:
    """``text`` with a leading BOM dropped and its line ends made LF; a NUL byte or a BOM
    inside it is a one-line [`InputError`][normlab.core.InputError] at its line."""
    text = text.removeprefix(BOM)
    for char, what in (("\x00", "a NUL byte"), (BOM, "a byte-order mark inside the text")):
        at = text.find(char)
        if at >= 0:
            line = text.count("\n", 0, at) + 1
            raise InputError(path, f"holds {what} (not a text file?)", line=line, field=field)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _braces(placeholder: re.Pattern[str]) -> int:
    """How many braces open the syntax's placeholders (``{x}``: 1, ``{{x}}``: 2)."""
    return 1 if placeholder.fullmatch("{x}") else 2


def _shown(text: str) -> str:
    """``text`` as a message shows it: every character outside ASCII named."""
    odd = [
        f"U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in dict.fromkeys(text) if ord(c) > 127
    ]
    return repr(text) + (f" ({', '.join(odd)})" if odd else "")


def _folded(text: str) -> tuple[str, list[int]]:
    """``text`` in NFKC, character by character (a full-width brace or letter becomes the one
    it looks like), with the offset in ``text`` of each folded character."""
    folded: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        form = unicodedata.normalize("NFKC", char)
        folded.append(form)
        origin += [index] * len(form)
    return "".join(folded), origin


def _look_alikes(text: str, paper: str, placeholder: re.Pattern[str]) -> Iterable[str]:
    """Each brace group of ``text`` (as written) that is no placeholder but would be read as
    one: in the syntax's own braces whatever it holds, in other braces when it holds a name; a
    group the paper's prompt holds as text (SCENE's JSON shape) is text. Found in the NFKC
    form, so a full-width brace or letter is the brace or letter it looks like."""
    own = _braces(placeholder)
    literal = {match.group(0) for match in _BRACES.finditer(placeholder.sub(" ", paper))}
    rest = placeholder.sub(lambda match: " " * len(match.group(0)), text)
    folded, origin = _folded(rest)
    for match in _BRACES.finditer(folded):
        opening, name, closing = match.groups()
        if match.group(0) in literal:
            continue
        if (len(opening) >= own and len(closing) >= own) or _NAME_LIKE.match(name):
            yield text[origin[match.start()] : origin[match.end() - 1] + 1]


def check_placeholders(
    text: str, paper: str, placeholder: re.Pattern[str], path: str | Path, field: str
) -> None:
    """``text`` holds the placeholders of ``paper`` and nothing that looks like one (see the
    module docstring), or a one-line [`InputError`][normlab.core.InputError] naming ``path``."""
    wanted = Counter(placeholder.findall(paper))
    found = Counter(placeholder.findall(text))
    for group in _look_alikes(text, paper, placeholder):
        folded = re.sub(r"[\s{}]", "", unicodedata.normalize("NFKC", group)).casefold()
        close = difflib.get_close_matches(folded, sorted(wanted), n=1, cutoff=0.6)
        hint = ""
        if close:
            exact = next(m.group(0) for m in placeholder.finditer(paper) if m.group(1) == close[0])
            hint = f" (a look-alike of {exact}?)"
        raise InputError(
            path,
            f"holds {_shown(group)}, which is no placeholder{hint} and would reach the model "
            "unfilled: write each placeholder exactly as the paper's prompt does",
            field=field,
        )
    missing = sorted(set(wanted) - set(found))
    if missing:
        raise InputError(
            path, f"lacks the paper prompt's placeholder(s): {', '.join(missing)}", field=field
        )
    extra = sorted(set(found) - set(wanted))
    if extra:
        raise InputError(
            path, f"holds placeholder(s) the paper prompt does not fill: {', '.join(extra)}",
            field=field,
        )  # fmt: skip
    for name in sorted(found):
        if found[name] > wanted[name]:
            shown = next(m.group(0) for m in placeholder.finditer(text) if m.group(1) == name)
            raise InputError(
                path,
                f"holds {shown} {found[name]} times, the paper's prompt {wanted[name]}: the "
                "subject would be shown it more often than the paper shows it",
                field=field,
            )


def check_leak_words(text: str, path: str | Path, field: str) -> None:
    """No line of ``text`` names the hidden layer of the test, by the rule every linter applies
    to subject-visible text (``normlab.core.leaks.leak_word_findings``), or a one-line
    [`InputError`][normlab.core.InputError] naming ``path`` and the line."""
    lines = [(str(number), line) for number, line in enumerate(text.split("\n"), start=1)]
    for line, message in leak_word_findings(lines):
        raise InputError(
            path,
            f"{message}: an instruction must not tell the subject what is tested",
            line=int(line),
            field=field,
        )


def refuse_copied(
    text: str,
    hidden: Iterable[tuple[str, Sequence[str]]],
    size: int,
    path: str | Path,
    field: str,
) -> None:
    """No run of ``size`` words of ``text`` copied from what an item hides (``hidden``: each
    item's id and its hidden texts, by the system's own leak rule,
    ``normlab.core.leaks.copied_runs``), or a one-line [`InputError`][normlab.core.InputError]
    naming ``path`` and the item."""
    for item, texts in hidden:
        for _, message in copied_runs([("instruction", text)], texts, size):
            raise InputError(
                path,
                f"{item}: {message} (an instruction must not tell the subject what the item hides)",
                field=field,
            )
