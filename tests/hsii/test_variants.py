"""HSII's prompt variants: the paper's prompt byte for byte; renamed cases clean under the
linter, with the golden target, history and aliases renamed alike, so r2 asks for the same
person; the format notice replaced for a format r1 reads; the same stage outcomes on the
scripted model under every variant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import normlab.hsii.variants as variants
from normlab.cli import app
from normlab.core.errors import InputError
from normlab.hsii import prompts
from normlab.hsii.analysis import load_run, target_of
from normlab.hsii.dataset import load_cases
from normlab.hsii.parse import parse_statement, resolve_target
from normlab.hsii.schemas import ASSISTANT, Case, Statement
from normlab.hsii.task import hsii
from normlab.web import create_app
from tests.helpers.inputs import inputs_digest
from tests.web.conftest import local, settings_for

PAPER_INPUTS = "320be9a05cc792440b12b29dd23b7a119ac48c9b6f535925ce3ccdd677fa41ce"
"""SHA-256 of every sample's (id, input, target) of ``hsii()`` on the shipped bank, as
computed on the code before prompt variants existed."""
REPO = Path(__file__).resolve().parents[2]
BUSY = f"scripted/{REPO / 'examples' / 'busy' / 'busy-hsii.json'}"
"""Names the first speaker of each case's history (a template): right or wrong by the case."""
CASES = load_cases()


def test_the_papers_prompt_is_byte_identical_to_before() -> None:
    assert inputs_digest(hsii()) == PAPER_INPUTS
    task = hsii(variant="paper")
    assert inputs_digest(task) == PAPER_INPUTS and "variant" not in (task.metadata or {})


@pytest.fixture(scope="module")
def renamed() -> list[tuple[Case, Case, dict[str, str]]]:
    found = []
    for case in CASES:
        changed, renaming = variants.renamed(case, 4)
        found.append((case, changed, dict(renaming.names)))
    return found


def test_renamed_cases_are_clean_and_renamed_alike(
    renamed: list[tuple[Case, Case, dict[str, str]]],
) -> None:
    assert not [f for case in CASES for f in variants.findings(case)]
    assert not [f for _, changed, _ in renamed for f in variants.findings(changed)]
    for case, changed, names in renamed:
        assert changed.case_id == case.case_id and changed.topic == case.topic
        assert changed.characters == [names[c] for c in case.characters]
        assert changed.golden.role_to == names[case.golden.role_to]
        named = {**names, ASSISTANT: ASSISTANT}
        for before, after in zip(case.messages, changed.messages, strict=True):
            assert (after.role_from, after.role_to) == (
                named[before.role_from],
                named[before.role_to],
            )
        assert set(changed.aliases) == {names[c] for c in case.aliases}
        prompt = prompts.testing_prompt(changed)
        assert not [c for c in case.characters if len(c) > 1 and f'"{c}"' in prompt]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, len(CASES) - 1), st.integers(0, 4))
def test_a_reply_names_the_same_character_before_and_after_renaming(index: int, pick: int) -> None:
    """r2 as a metamorphic property: a reply that names character k (by name or by one of
    its aliases) of a case resolves to character k of the renamed case when it names the
    renamed character the same way."""
    case = CASES[index]
    changed, renaming = variants.renamed(case, 9)
    character = case.characters[pick % len(case.characters)]
    spelled = [character, *case.aliases.get(character, [])]
    for written in spelled:
        statement = parse_statement(
            json.dumps({"role_to": renaming.text(written), "content": "Noted."}),
            changed.characters,
        )
        assert isinstance(statement, Statement) and statement.targets
        found = resolve_target(statement.targets[0], changed.characters, changed.aliases)
        assert found == renaming.names[character], (written, statement.targets)


def test_a_format_variant_asks_for_a_format_r1_reads() -> None:
    paper = prompts.PROMPTS.load("testing")
    assert variants.PAPER_FORMAT in paper
    for name, wording in variants.FORMATS.items():
        instruction = variants.variant_of(f"format:{name}").instruction
        assert instruction == paper.replace(variants.PAPER_FORMAT, wording)
    reply = "role_to: ORCHARD OWNER\ncontent: The terraces got 40% less water last week."
    statement = parse_statement(reply, ["ORCHARD OWNER", "MARKET BUYER"])
    assert statement is not None and statement.rule == "key-lines"
    assert statement.targets == ["ORCHARD OWNER"]
    with pytest.raises(InputError, match="unknown format 'yaml'; choose from json, key-lines"):
        hsii(variant="format:yaml")
    with pytest.raises(InputError, match="hsii takes: paper, file:PATH, rename:SEED, format"):
        hsii(variant="reorder:1")


def _outcomes(folder: Path) -> dict[str, tuple[tuple[bool, bool], object]]:
    return {r.case_id: (target_of(r), r.first_verdicts) for r in load_run([folder]).records}


def test_the_same_stage_outcomes_on_the_scripted_model_under_every_variant(
    workdir: Path,
) -> None:
    found = {}
    for spec in ("paper", "rename:1", "format:key-lines"):
        logs = workdir / spec.replace(":", "-")
        variant = ["--variant", spec] if spec != "paper" else []
        result = CliRunner().invoke(
            app,
            ["hsii", "run", "--model", BUSY, "--judge", BUSY, "--role", f"persona={BUSY}",
             "--role", f"reference={BUSY}", "--limit", "12", "--epsilon", "2",
             "--log-dir", str(logs), "--report-dir", str(logs), *variant],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        found[spec] = _outcomes(logs)
    paper = found["paper"]
    assert len(paper) == 12 and {right for (_, right), _ in paper.values()} == {True, False}
    assert found["rename:1"] == paper == found["format:key-lines"]
    # A renamed run's numbers say they are one: the report its run wrote and its sample's
    # reader page name the variant its log recorded.
    report = (workdir / "rename-1" / "report.html").read_text()
    assert "Prompt variant: rename:1, " in report
    assert "Prompt variant: paper, " in (workdir / "paper" / "report.html").read_text()
    client = local(create_app(settings_for(workdir)))
    renamed = next((workdir / "rename-1").rglob("*.eval")).relative_to(workdir)
    page = client.get("/sample", params={"path": str(renamed), "n": 0}).text
    assert "HSII:" in page and "<dt>prompt variant</dt><dd>rename:1</dd>" in page
