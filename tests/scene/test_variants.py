"""SCENE's prompt variants: the paper's prompts byte for byte, renamed scenarios still valid
and clean under the linter with the norm untouched, an instruction file's wording in B.4's
place, and the same labels on the scripted model where its judge keys on the norm."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import normlab.scene.variants as variants
from normlab.cli import app
from normlab.core.errors import InputError
from normlab.scene.analysis import analyze, load_run
from normlab.scene.dataset import load_scenarios
from normlab.scene.prompts import (
    load_template,
    norm_values,
    persona_messages,
    scaffold_turns,
    subject_messages,
)
from normlab.scene.report import build_report
from normlab.scene.task import scene
from normlab.scene.taxonomy import load_dimensions
from normlab.web import create_app
from tests.helpers.inputs import inputs_digest
from tests.scene.conftest import FIXTURES, scene_run
from tests.web.conftest import local, settings_for

PAPER_INPUTS = "1fdebea09c752122ff7383d8105911a5ef30998bfe9c4abbd58199ee6406b1a9"
"""SHA-256 of every sample's (id, input messages, target) of ``scene()`` on the shipped bank,
as computed on the code before prompt variants existed."""
NORM_KEYED = FIXTURES / "norm_keyed.json"


def test_the_papers_prompts_are_byte_identical_to_before() -> None:
    assert inputs_digest(scene()) == PAPER_INPUTS
    task = scene(variant="paper")
    assert inputs_digest(task) == PAPER_INPUTS and "variant" not in (task.metadata or {})


@pytest.mark.parametrize("seed", [1, 7])
def test_renamed_scenarios_are_valid_clean_and_keep_the_norm(seed: int) -> None:
    dimensions = load_dimensions()
    scenarios = load_scenarios()
    assert not [f for s in scenarios for f in variants.findings(s)]
    changed = variants.variant_of(f"rename:{seed}").apply(scenarios, dimensions)
    assert not [f for s in changed for f in variants.findings(s)]
    for before, after in zip(scenarios, changed, strict=True):
        hidden, renamed = norm_values(before, dimensions), norm_values(after, dimensions)
        assert {**hidden, "subject": ""} == {**renamed, "subject": ""}
        assert after.tuple == before.tuple and after.hidden.fidelity_criteria == (
            before.hidden.fidelity_criteria
        )
        old = [before.subject.name, *(m.name for m in before.scaffold.channel.cast)]
        seen = "\n".join(m.text for m in subject_messages(after, scaffold_turns(after)))
        name = after.scaffold.channel.cast[0].name
        seen += "\n".join(m.text for m in persona_messages(after, name, dimensions, []))
        for full in old:
            for word in full.split():
                assert f"{word} " not in seen and f"{word}," not in seen, (before.scenario_id, word)
        assert (after.demonstrator is None) == (before.demonstrator is None)


def test_an_instruction_file_replaces_b4_and_must_keep_its_transcript_line(
    tmp_path: Path,
) -> None:
    paper = load_template("subject")
    reworded = tmp_path / "b4.txt"
    reworded.write_text(paper.replace("Keep your messages short", "Keep it brief"))
    task = scene(variant=f"file:{reworded}")
    first = next(iter(task.dataset))
    assert not isinstance(first.input, str)
    assert "Keep it brief" in first.input[0].text and "TRANSCRIPT SO FAR:" in first.input[1].text
    assert (first.metadata or {})["variant"]["spec"] == f"file:{reworded}"
    broken = tmp_path / "broken.txt"
    broken.write_text(paper.replace("TRANSCRIPT SO FAR: {{transcript}}", "{{transcript}}"))
    with pytest.raises(InputError, match="lacks the line 'TRANSCRIPT SO FAR"):
        scene(variant=f"file:{broken}")


@pytest.mark.parametrize("spec", ["reorder:1", "format:json", "rename:", "paper:1"])
def test_variants_scene_does_not_take_are_one_line_errors(spec: str) -> None:
    with pytest.raises(InputError) as error:
        scene(variant=spec)
    assert "\n" not in error.value.one_line() and "--variant" in error.value.one_line()


def _labels(folder: Path) -> dict[str, tuple[list[int] | None, list[int] | None]]:
    return {
        r.episode.scenario_id: (r.labels.breaches, r.labels.sanctions)
        for r in load_run([folder]).records
    }


def test_the_norm_keyed_judge_labels_alike_under_renaming(workdir: Path) -> None:
    found = {}
    for spec in ("paper", "rename:1", "rename:2"):
        logs = workdir / spec.replace(":", "-")
        variant = ["--variant", spec] if spec != "paper" else []
        scene_run(f"scripted/{NORM_KEYED}", "--max-turns", "1", *variant, "--log-dir", str(logs))
        found[spec] = _labels(logs)
    paper = found["paper"]
    assert sorted(paper.values()) == [([6], []), ([6], [])]  # the subject's breach, judged
    assert found["rename:1"] == paper == found["rename:2"]
    # A renamed run's numbers say they are one: its report and its sample's reader page
    # name the variant its log recorded, the paper's run the paper's prompt.
    for spec, said in (("rename:1", "rename:1, the subject"), ("paper", "paper, the paper")):
        run = load_run([workdir / spec.replace(":", "-")])
        assert f"Prompt variant: {said}" in build_report(run, analyze(run)).render(), spec
    client = local(create_app(settings_for(workdir)))
    renamed = next((workdir / "rename-1").rglob("*.eval")).relative_to(workdir)
    page = client.get("/sample", params={"path": str(renamed), "n": 0}).text
    assert "SCENE:" in page and "<dt>prompt variant</dt><dd>rename:1</dd>" in page
    # ``analyze`` prints its numbers with the variant said on stderr; the paper's run without.
    shown = CliRunner().invoke(app, ["scene", "analyze", str(workdir / "rename-1")])
    assert shown.exit_code == 0 and ": prompt variant rename:1 (the subject" in shown.stderr
    shown = CliRunner().invoke(app, ["scene", "analyze", str(workdir / "paper")])
    assert shown.exit_code == 0 and "prompt variant" not in shown.stderr, shown.stderr
