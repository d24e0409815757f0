"""Appendix D's questionnaire: export from a run, import ratings into Figure 4's table."""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.crsec.analysis.questionnaire import (
    COLUMNS,
    MODULES,
    import_ratings,
    template,
    write_questionnaires,
)
from normlab.crsec.sim.loop import Simulation
from tests.crsec.support import client, config, new_run

runner = CliRunner()


@pytest.fixture
def run_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "run-1"
    run = new_run(folder, config())
    asyncio.run(Simulation(run, client(run.config().models["agent"])).run())
    return folder


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_template_is_the_papers_with_our_gaps_filled() -> None:
    introduction, tasks = template()
    assert introduction.startswith("Welcome to participate in a role-playing activity!")
    assert "7-strongly agree | 6-agree" in introduction
    assert sorted(tasks) == list(range(1, 9))
    assert tasks[2].startswith("TASK 2: (Spreading, Sender)")
    assert "<normlab" not in "".join(tasks.values())


def test_export_samples_pairs_of_every_task_per_agent(run_folder: Path, tmp_path: Path) -> None:
    path, count = write_questionnaires([run_folder], tmp_path / "q", seed=1, per_task=3)
    written = rows(path)
    assert len(written) == count and list(written[0]) == COLUMNS
    assert {row["module"] for row in written} == set(MODULES.values())
    bob = [row for row in written if row["agent"] == "Bob Johnson"]
    creation = [row for row in bob if row["module"] == "Creation"]
    assert len(creation) == 3 and all("utility" in row["output"] for row in creation)
    sender = [row for row in bob if row["module"] == "Sender"]
    assert [row["question"] for row in sender] == ["Q1", "Q2"] * 3  # a score per question
    assert all(row["score"] == "" for row in written)
    carlos = [row for row in written if row["agent"] == "Carlos Gomez"]
    assert not [row for row in carlos if row["module"] == "Creation"]  # not an entrepreneur
    page = (tmp_path / "q" / "run-1" / "Bob-Johnson.html").read_text()
    assert "AGENT NAME: Bob Johnson" in page and "TASK 8: (Compliance, Action)" in page
    again, _ = write_questionnaires([run_folder], tmp_path / "q2", seed=1, per_task=3)
    assert rows(again) == written  # the same seed draws the same pairs


def test_import_gives_figure_4_by_hand(run_folder: Path, tmp_path: Path) -> None:
    path, _ = write_questionnaires([run_folder], tmp_path / "q", per_task=2)
    filled = rows(path)
    for index, row in enumerate(filled):
        row["score"] = {"Creation": "7", "Plan": str(5 + index % 2)}.get(row["module"], "")
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(filled)
    figure = import_ratings([path])
    plans = [float(row["score"]) for row in filled if row["module"] == "Plan"]
    creation = [row for row in filled if row["module"] == "Creation"]
    assert figure.modules["Creation"].value == 7.0 and figure.modules["Creation"].n == len(creation)
    assert figure.modules["Plan"].value == pytest.approx(sum(plans) / len(plans))
    assert figure.modules["Sender"].value is None and figure.modules["Sender"].n == 0
    assert figure.overall.n == len(plans) + len(creation)
    assert figure.unrated == len(filled) - figure.overall.n
    result = runner.invoke(app, ["crsec", "questionnaire", "import", str(path)])
    assert result.exit_code == 0 and "Creation" in result.output and "6.44" in result.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("questionnaire,module,score\nr/A,Plan,8\n", "line 2: field 'score': '8' is not a rating"),
        ("questionnaire,module,score\nr/A,Vibes,3\n", "line 2: field 'module': unknown module"),
        ("questionnaire,module\nr/A,Plan\n", "field 'score': missing column"),
        ("questionnaire,module,score\nr/A,Plan,\n", "no scores filled in"),
    ],
)
def test_bad_ratings_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text(text)
    result = runner.invoke(app, ["crsec", "questionnaire", "import", str(path)])
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert str(path) in line and message.split("line 2: ")[-1] in line
