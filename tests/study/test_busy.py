"""The busy scripts the plan counts with behave like a model of the papers (issue 35, item 0.3).

The paid example's SCENE cell dry-run on the shipped bank (``benchmarks.study_cost``), per
episode against SCENE §6's printed sweep: 386,829 calls for 6,000 episodes (64.5 per episode),
712M input and 44M output tokens (1,841 and 114 per call), Claude Opus 4.7's $349 for its 1,000
episodes and the Gemini 3 Flash roles' $266. The example's old dry run (the tests' fixture,
whose personas and subject reply "no-op") made 22.8 calls per episode and priced Claude Opus
4.7's cell at $0.0055 an episode.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.study_cost import compare, scene_cell

from tests.study.test_study import REPO, invoke

BUSY = REPO / "examples" / "busy"


@pytest.mark.slow
def test_the_scene_dry_run_costs_what_the_papers_episodes_cost() -> None:
    plan, episodes = scene_cell(reps=1)
    assert episodes == 28
    found = compare(plan, episodes)
    ratio = {name: row["ratio"] for name, row in found.items()}
    assert 0.9 <= ratio["calls per episode"] <= 1.1, found
    assert 0.85 <= ratio["input tokens per call"] <= 1.15, found
    assert 0.75 <= ratio["output tokens per call"] <= 1.25, found
    assert 0.75 <= ratio["Gemini 3 Flash roles $ per episode"] <= 1.25, found
    # A floor for the subject: the paper's Claude Opus 4.7 reasoned beyond what a reply shows.
    assert 0.6 <= ratio["Claude Opus 4.7 (subject) $ per episode"] <= 1.0, found


def test_every_system_has_a_busy_script_and_the_readme_names_them() -> None:
    readme = (REPO / "src" / "normlab" / "study" / "README.md").read_text(encoding="utf-8")
    for system in ("losona", "scene", "hsii", "crsec"):
        assert (BUSY / f"busy-{system}.json").is_file(), system
        assert f"busy-{system}.json" in readme, system
    example = (REPO / "examples" / "study.yaml").read_text(encoding="utf-8")
    assert "tests/" not in example  # the paid plan counts with the busy scripts, no fixture


@pytest.mark.slow
def test_the_crsec_busy_script_answers_a_society(workdir: Path) -> None:
    script = f"scripted/{BUSY / 'busy-crsec.json'}"
    path = workdir / "study.yaml"
    path.write_text(
        f"name: c\nout: {workdir / 'out'}\nsystems:\n  crsec:\n"
        "    options: {agents: 'Bob Johnson,Carlos Gomez,Tamara Rodriguez', hours: '9-10'}\n"
        f"    dry_run: {{model: {script}}}\n"
        "subjects:\n  - {name: a, model: openai/gpt-4o}\n",
        encoding="utf-8",
    )
    code, out, err = invoke("plan", path)
    assert code == 0, err
    assert "1 run" in out
