"""LoSoNA's prompt variants: the paper's prompt byte for byte, the transformed scenarios clean
under the linter, the norm and examples the judge reads renamed with the transcript, and the
same verdicts on the scripted model where its judge keys on the norm."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

import normlab.losona.variants as variants
from normlab.core.errors import InputError
from normlab.core.namewords import is_word
from normlab.losona.analysis import load_records
from normlab.losona.dataset import load_scenarios
from normlab.losona.prompts import render_judge_prompt, render_subject_prompt
from normlab.losona.reorder import NotReorderable, reordered
from normlab.losona.reorder import exchanges as exchanges_of
from normlab.losona.schemas import Scenario
from normlab.losona.task import losona
from normlab.losona.taxonomy import load_taxonomy
from tests.helpers.inputs import inputs_digest
from tests.losona.conftest import FIXTURES, run_cli

PAPER_INPUTS = "9e166af4d7bc8bb3ea52252cf896c5a98146d7e784e8878392c9f18967ff93be"
"""SHA-256 of every sample's (id, input, target) of ``losona()`` on the shipped scenarios, as
computed on the code before prompt variants existed (the commit before them)."""
NORM_KEYED = FIXTURES / "norm_keyed.json"
TIMELINE = "bug_report__mandatory_timeline_commitment__demos__csv_export"
"""A scenario whose norm the norm-keyed judge script recognises (complies)."""
OTHER = "event_planning__mandatory_conditional_agreement__demos__team_offsite"
"""One whose norm it does not (breach)."""
SPECS = ("rename:1", "rename:7", "reorder:1", "reorder:7")
PUSHBACK = "standup__mandatory_pushback_on_adhoc_requests__demos__promo_dashboard"
"""A scenario that can be reordered with its reply chains kept, whose norm the norm-keyed
judge script also recognises (complies)."""


def test_the_papers_prompt_is_byte_identical_to_before() -> None:
    assert inputs_digest(losona()) == PAPER_INPUTS
    task = losona(variant="paper")
    assert inputs_digest(task) == PAPER_INPUTS
    assert "variant" not in (task.metadata or {}) and all(
        "variant" not in (s.metadata or {}) for s in task.dataset
    )


@pytest.mark.parametrize("spec", SPECS)
def test_transformed_scenarios_pass_the_linter(spec: str) -> None:
    taxonomy = load_taxonomy()
    scenarios = [s for s in load_scenarios() if spec.startswith("rename") or _reorderable(s)]
    assert not [f for s in scenarios for f in variants.findings(s, taxonomy)]
    changed = variants.variant_of(spec).apply(scenarios)
    assert [s.scenario_id for s in changed] == [s.scenario_id for s in scenarios]
    assert not [f for s in changed for f in variants.findings(s, taxonomy)]


def _norm_part(prompt: str) -> str:
    return prompt.split("TRANSCRIPT BEFORE FINAL ELICITOR")[0]


def test_renaming_changes_every_name_the_judge_reads_too() -> None:
    """Issue 41 item 1: the judge's norm and examples are renamed with the transcript (all 46
    shipped scenarios' examples name a participant: before, the judge read the old names)."""
    taxonomy = load_taxonomy()
    for scenario in load_scenarios():
        changed, renaming = variants.renamed(scenario, 3, taxonomy)
        old = [scenario.subject, *(m.name for m in scenario.cast)]
        new = [changed.subject, *(m.name for m in changed.cast)]
        assert new == [renaming.names[name] for name in old] and not set(new) & set(old)
        prompt = render_subject_prompt(changed, "naive")
        assert f"You are {changed.subject}," in prompt
        for name in old:
            assert f"{name}:" not in prompt and f"{name}," not in prompt
        judged = render_judge_prompt(changed, "reply")
        paper = _norm_part(render_judge_prompt(scenario, "reply"))
        assert _norm_part(judged) == renaming.text(paper)
        for name in old:
            if not is_word(name):
                assert not re.search(rf"\b{re.escape(name)}\b", judged), (
                    scenario.scenario_id,
                    name,
                )
        assert changed.norm_statement == renaming.text(scenario.norm_statement)
        assert changed.demonstration_turn_ids == scenario.demonstration_turn_ids
        assert [t.turn_id for t in changed.transcript] == [t.turn_id for t in scenario.transcript]


def _reorderable(scenario: Scenario) -> bool:
    try:
        reordered(scenario, 1)
    except NotReorderable:
        return False
    return True


def test_reordering_moves_whole_demonstration_exchanges() -> None:
    for scenario in filter(_reorderable, load_scenarios()):
        changed = reordered(scenario, 5)
        exchanges = exchanges_of(scenario)
        moved = {i for block in exchanges for i in block}
        ids = [t.turn_id for t in scenario.transcript]
        new_ids = [t.turn_id for t in changed.transcript]
        assert Counter(new_ids) == Counter(ids) and new_ids[-1] == scenario.elicitor_turn_id
        # The turns outside the exchanges keep their order (exchanges of other lengths trading
        # slots shift them by the difference).
        outside = [ids[i] for i in range(len(ids)) if i not in moved]
        assert [t for t in new_ids if t in outside] == outside
        # Each exchange is still one run of turns, in its own order.
        for block in exchanges:
            start = new_ids.index(ids[block[0]])
            assert new_ids[start : start + len(block)] == [ids[i] for i in block]
        first = [t for t in new_ids if t in scenario.demonstration_turn_ids]
        assert first != [t for t in ids if t in scenario.demonstration_turn_ids]
        assert changed.model_dump(exclude={"transcript"}) == scenario.model_dump(
            exclude={"transcript"}
        )


def test_a_variant_whose_scenarios_fail_the_linter_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(scenario: Scenario, seed: int) -> Scenario:
        return scenario.model_copy(update={"demonstration_turn_ids": []})

    monkeypatch.setattr(variants, "reordered", broken)
    with pytest.raises(InputError) as error:
        losona(variant="reorder:1")
    line = error.value.one_line()
    assert "reorder:1: the transformed data fails the linter:" in line
    assert "0 marked demonstrations, expected 2–3" in line and "\n" not in line


@pytest.mark.parametrize("spec", ["rename:x", "reorder", "format:json", "file:/no/such.txt"])
def test_bad_variants_are_one_line_errors(spec: str) -> None:
    code, output = run_cli("losona", "run", "--model", f"scripted/{NORM_KEYED}", "--variant", spec)
    assert code == 2, output
    assert output.strip().count("\n") == 0 and "variant" in output


def _verdicts(folder: Path) -> dict[str, bool | None]:
    return {r.scenario_id: r.complies for r in load_records([folder])}


def test_the_norm_keyed_judge_gives_the_same_verdicts_under_every_variant(workdir: Path) -> None:
    instruction = workdir / "reworded.txt"
    paper = (Path(variants.__file__).parent / "prompts" / "subject_base.txt").read_text()
    instruction.write_text(paper.replace("You are {subject}, a member of", "You are {subject}, in"))
    found = {}
    for spec in ("paper", "rename:1", "reorder:1", f"file:{instruction}"):
        logs = workdir / spec.split(":")[0]
        ids = (
            f"{PUSHBACK},{OTHER}"
            if spec.startswith("reorder")
            else f"{TIMELINE},{PUSHBACK},{OTHER}"
        )
        code, output = run_cli(
            "losona", "run",
            "--model", f"scripted/{NORM_KEYED}", "--judge", f"scripted/{NORM_KEYED}",
            "--scenario", ids, "-c", "naive", "-k", "1",
            *(["--variant", spec] if spec != "paper" else []),
            "--log-dir", str(logs), "--report-dir", str(logs / "report"),
        )  # fmt: skip
        assert code == 0, output
        found[spec] = _verdicts(logs)
        header = read_eval_log(str(next(logs.glob("*.eval"))), header_only=True).eval
        if spec == "paper":
            assert header.task_args_passed.get("variant") is None
            assert "variant" not in (header.metadata or {})
        else:
            assert header.task_args_passed["variant"] == spec
            assert (header.metadata or {})["variant"]["spec"] == spec
    assert found["paper"] == {TIMELINE: True, PUSHBACK: True, OTHER: False}
    assert all(
        verdicts == {i: v for i, v in found["paper"].items() if i in verdicts}
        for verdicts in found.values()
    )
    assert len(found["reorder:1"]) == 2
    log = read_eval_log(str(next((workdir / "file").glob("*.eval"))))
    sample = (log.samples or [])[0]
    assert str(sample.input).startswith("You are ") and ", in this group chat" in str(sample.input)
    assert (
        sample.metadata["variant"]["sha256"]
        == hashlib.sha256(instruction.read_text().rstrip("\n").encode()).hexdigest()
    )
