"""LoSoNA's prompt variants (``normlab.core.variants``): the paper's prompt, a reworded subject
instruction, renamed participants, or the demonstrations in another order.

- ``file:PATH``: the subject's instruction (``prompts/subject_base.txt``, Appendix C) read
  from PATH, with the same placeholders and the cast line ``- {name}: {bio}``; the condition
  prefixes and the judge's prompt stay the paper's.
- ``rename:SEED``: the subject and every cast member renamed everywhere the subject and the
  judge read them (names, bios, the transcript's speakers and the names in its messages, the
  channel), never in what the judge reads as the norm (its statement and examples), which
  stay as written; the names drawn avoid every word of the scenario and of the norm's text.
- ``reorder:SEED``: the demonstration exchanges in a seeded other order. A LoSoNA
  demonstration is a turn inside a running chat, usually the answer to the request just
  before it ("Grace can you check …?" / "yep, will have an answer by 11:30"), so an exchange
  moves whole: the demonstration with the turn before it when that turn is another member's
  and no demonstration itself. The exchanges trade places; every other turn stays where it
  is, the elicitor last. The chat around them may read less smoothly (a later turn may refer
  to an exchange that now comes after it), so the variant measures the order and that
  together. A scenario with fewer than two demonstrations is left as it is.

Each transformed scenario is checked by LoSoNA's linter (``normlab.losona.lint``): a variant
whose scenarios have a finding the paper's do not is refused when the task is built.
"""

from __future__ import annotations

from random import Random
from typing import Any

from normlab.core.renaming import Renaming, all_strings, fresh_names
from normlab.core.templates import SINGLE_BRACES
from normlab.core.variants import (
    PAPER,
    VariantBase,
    parse_variant,
    read_instruction,
    transformed,
)
from normlab.losona.lint import SHARED_RUN_WORDS, check_scenario, hidden_texts
from normlab.losona.prompts import CAST_LINE, load_template
from normlab.losona.schemas import Scenario
from normlab.losona.taxonomy import Taxonomy, load_taxonomy

KINDS = (PAPER, "file", "rename", "reorder")
"""The variants LoSoNA takes."""
PROTECTED = frozenset(
    ("scenario_id", "event_id", "norm_id", "norm_statement", "judge_examples", "provenance",
     "venue", "kind", "phase", "visibility")
)  # fmt: skip
"""Fields a rename leaves as written: the ids, what the judge reads as the norm (its
statement and examples), and the turns' fixed vocabulary."""
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

        def change(scenario: Scenario) -> tuple[Scenario, Renaming]:
            if self.spec.kind == "rename":
                return renamed(scenario, seed, known)
            return reordered(scenario, seed), Renaming({})

        return transformed(self.spec, scenarios, change, lambda item: findings(item, known))


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
    renaming = fresh_names(names, f"rename:{seed}:{scenario.scenario_id}", taken)
    return Scenario.model_validate(renaming.strings(row, PROTECTED)), renaming


def demonstration_exchanges(scenario: Scenario) -> list[list[int]]:
    """The transcript positions of each demonstration exchange, in chat order: the
    demonstration, with the turn before it when that turn is another member's, no
    demonstration and in no other exchange."""
    transcript = scenario.transcript
    position = {turn.turn_id: index for index, turn in enumerate(transcript)}
    demonstrations = set(scenario.demonstration_turn_ids)
    taken: set[int] = set()
    exchanges = []
    for index in sorted(position[turn_id] for turn_id in demonstrations):
        block = [index]
        before = transcript[index - 1] if index > 0 else None
        if (
            before is not None
            and before.actor != transcript[index].actor
            and before.turn_id not in demonstrations
            and index - 1 not in taken
        ):
            block = [index - 1, index]
        taken.update(block)
        exchanges.append(block)
    return exchanges


def reordered(scenario: Scenario, seed: int) -> Scenario:
    """The scenario with its demonstration exchanges in a seeded order other than the
    paper's (see the module docstring); unchanged with fewer than two."""
    exchanges = demonstration_exchanges(scenario)
    if len(exchanges) < 2:
        return scenario
    rng = Random(f"reorder:{seed}:{scenario.scenario_id}")
    order = list(range(len(exchanges)))
    while order == sorted(order):
        rng.shuffle(order)
    slot_of = {index: slot for slot, block in enumerate(exchanges) for index in block}
    transcript = []
    for index, turn in enumerate(scenario.transcript):
        slot = slot_of.get(index)
        if slot is None:
            transcript.append(turn)
        elif index == exchanges[slot][0]:
            transcript += [scenario.transcript[i] for i in exchanges[order[slot]]]
    return scenario.model_copy(update={"transcript": transcript})
