"""LoSoNA's prompt variants (``normlab.core.variants``): the paper's prompt, a reworded subject
instruction, renamed participants, or the demonstrations in another order.

- ``file:PATH``: the subject's instruction (``prompts/subject_base.txt``, Appendix C) read
  from PATH, with the same placeholders and the cast line ``- {name}: {bio}``; the condition
  prefixes and the judge's prompt stay the paper's.
- ``rename:SEED``: the subject and every cast member renamed everywhere the subject and the
  judge read them, with one mapping (names, bios, the transcript's speakers and the names in
  its messages, the channel, and what the judge reads as the norm: its statement and its
  examples, the taxonomy's examples copied into the scenario where they name a participant);
  titles are kept, names that are words are renamed only where they are the name, and a
  scenario whose text does not say which is refused (``normlab.core.renaming``). The names
  drawn avoid every word of the scenario and of the norm's text.
- ``reorder:SEED``: the demonstration exchanges in a seeded other order that keeps every
  reply chain (``normlab.losona.reorder``): a demonstration moves with the request it
  answers, a reference stays after what it refers to; the exchanges trade places, every other
  turn stays where it is, the elicitor last. A set with a scenario that no other order can
  show so is refused, saying how many and which first (on the shipped set, 24 of 46 can be
  reordered: ``python -m normlab.losona.reorder`` lists them).

Each transformed scenario is checked by LoSoNA's linter (``normlab.losona.lint``): a variant
whose scenarios have a finding the paper's do not is refused when the task is built.
"""

from __future__ import annotations

from typing import Any

from normlab.core.errors import InputError
from normlab.core.leaks import SHARED_RUN_WORDS
from normlab.core.renaming import Renaming, all_strings, fresh_names
from normlab.core.templates import SINGLE_BRACES
from normlab.core.variants import (
    OPTION,
    PAPER,
    VARIANT_KEY,
    VariantBase,
    VariantSpec,
    parse_variant,
    read_instruction,
    transformed,
)
from normlab.losona.lint import check_scenario, hidden_texts
from normlab.losona.prompts import CAST_LINE, load_template
from normlab.losona.reorder import NotReorderable, reordered
from normlab.losona.schemas import Scenario
from normlab.losona.taxonomy import Taxonomy, load_taxonomy

KINDS = (PAPER, "file", "rename", "reorder")
"""The variants LoSoNA takes."""
PROTECTED = frozenset(
    ("scenario_id", "event_id", "norm_id", "provenance", "venue", "kind", "phase", "visibility")
)  # fmt: skip
"""Fields a rename leaves as written: the ids and the turns' fixed vocabulary. The norm's
statement and the judge's examples are renamed with the transcript: the judge reads them
beside it, and "When Will asks …" must stay a norm about the Will in the chat."""
DESCRIPTIONS = {
    PAPER: "the paper's prompt (Appendix C)",
    "file": "the subject's instruction read from a file, the paper's placeholders kept",
    "rename": "the subject and every cast member renamed, seeded per scenario",
    "reorder": "the demonstration exchanges in a seeded other order",
}


class Variant(VariantBase):
    """A parsed variant; ``file:`` brings the subject's instruction, in place of
    ``subject_base.txt``."""

    DESCRIPTIONS = DESCRIPTIONS

    def apply(self, scenarios: list[Scenario], taxonomy: Taxonomy | None = None) -> list[Scenario]:
        """The scenarios as this variant shows them, each checked by the linter (an
        instruction file, against what each scenario hides)."""
        known = taxonomy or load_taxonomy()
        hidden = ((s.scenario_id, hidden_texts(s, known)) for s in scenarios)
        self.refuse_copies(hidden, SHARED_RUN_WORDS)
        if self.spec.kind not in ("rename", "reorder"):
            return scenarios
        seed = self.spec.seed

        if self.spec.kind == "reorder":
            refuse_unreorderable(self.spec, scenarios)

        def change(scenario: Scenario) -> tuple[Scenario, Renaming]:
            if self.spec.kind == "rename":
                return renamed(scenario, seed, known)
            return reordered(scenario, seed), Renaming({})

        return transformed(self.spec, scenarios, change, lambda item: findings(item, known))


def refuse_unreorderable(spec: VariantSpec, scenarios: list[Scenario]) -> None:
    """A one-line refusal where any scenario has no other order that keeps its reply chains
    (``normlab.losona.reorder``), with how many and the first; ``python -m
    normlab.losona.reorder`` lists the ids that can be reordered, for ``-T scenario_ids=``."""
    refused = []
    for scenario in scenarios:
        try:
            reordered(scenario, spec.seed)
        except NotReorderable as error:
            refused.append(str(error))
    if refused:
        raise InputError(
            OPTION,
            f"{spec.text}: {len(refused)} of {len(scenarios)} scenarios cannot be reordered with "
            f"their reply chains kept (first: {refused[0]}); `python -m normlab.losona.reorder` "
            "lists the others, for -T scenario_ids=",
            field=VARIANT_KEY,
        )


def variant_of(text: str | None) -> Variant:
    """``text`` parsed (``-T variant=…``), a ``file:`` instruction read and checked; a bad one
    is a one-line error."""
    spec = parse_variant(PAPER if text is None else text, KINDS, system="losona")
    if spec.kind != "file":
        return Variant(spec)
    paper = load_template("subject_base")
    return Variant(spec, read_instruction(spec, paper, SINGLE_BRACES, [CAST_LINE]))


def check_variant(text: str) -> str:
    """The spec, checked as the task will check it (a study checks its variants up front)."""
    return variant_of(text).spec.text


def findings(scenario: Scenario, taxonomy: Taxonomy) -> list[str]:
    """The linter's findings on one scenario, one line each."""
    return [
        f"{scenario.scenario_id}: {field}: {message}"
        for field, message in check_scenario(scenario, taxonomy)
    ]


def _norm_texts(scenario: Scenario, taxonomy: Taxonomy) -> list[str]:
    """What the judge reads as the norm: a new name must share no word with it."""
    texts = [scenario.norm_statement]
    norm = taxonomy.norms.get(scenario.norm_id)
    if norm is not None:
        texts.append(norm.statement)
    example = scenario.judge_example()
    if example is not None:
        texts += [example.elicitor, example.compliant, example.breaching]
    return texts


def renamed(scenario: Scenario, seed: int, taxonomy: Taxonomy) -> tuple[Scenario, Renaming]:
    """The scenario with its subject and cast renamed (see the module docstring)."""
    names = [scenario.subject, *(member.name for member in scenario.cast)]
    names += [turn.actor for turn in scenario.transcript if turn.actor not in names]
    row: dict[str, Any] = scenario.model_dump(mode="json")
    taken = [*all_strings(row), *_norm_texts(scenario, taxonomy)]
    about = {scenario.subject: [scenario.subject_bio]}
    about.update({member.name: [member.bio] for member in scenario.cast})
    renaming = fresh_names(
        names, f"rename:{seed}:{scenario.scenario_id}", taken, item=scenario.scenario_id,
        about=about,
    )  # fmt: skip
    example = scenario.judge_example()
    if scenario.judge_examples is None and example is not None:
        shown = example.model_dump(mode="json")
        if renaming.strings(shown) != shown:  # the taxonomy's example names a participant
            row["judge_examples"] = shown
    return Scenario.model_validate(renaming.strings(row, PROTECTED)), renaming
