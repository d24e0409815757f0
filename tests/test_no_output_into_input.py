"""No command writes into its own input (issue 32, item 2): an ``--out`` that is, or is inside,
what the command reads is refused on one line, exit 2, before anything is written, and the
input is left byte for byte as it was. ``crsec export RUN --out RUN/events.jsonl`` exited 0
having replaced the run's events; ``hsii cut`` wrote cases over the dialogues it cut; a blind
export's key file in a log folder is read back as records by the next ``analyze``. The one
check is :func:`normlab.core.outputs.apart_from_inputs`; ``crsec export`` and ``newcomer``
are tested beside their own tests (they need a finished run)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.crsec.sim.society import HOBBS_CAFE

TESTS = Path(__file__).parent
FORUM = TESTS / "hsii" / "fixtures" / "native_forum.csv"
LOSONA_SCENARIOS = TESTS / "losona" / "fixtures" / "scenarios.jsonl"
LOSONA_JUDGE = f"scripted/{TESTS / 'losona' / 'fixtures' / 'script.json'}"
runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def snapshot(root: Path) -> dict[str, bytes]:
    files = (path for path in sorted(root.rglob("*")) if path.is_file())
    return {str(path.relative_to(root)): path.read_bytes() for path in files}


def bank(root: Path) -> Path:
    code, output = invoke("hsii", "import-dialogues", str(FORUM), "--out", str(root / "bank"),
                          "--assistant", "mod")  # fmt: skip
    assert code == 0, output
    return root / "bank"


def logs(root: Path) -> Path:
    """A log folder: what is in it is never read, since the refusal comes first."""
    folder = root / "logs"
    folder.mkdir()
    (folder / "run.eval").write_bytes(b"PK not really a log")
    return folder


Case = Callable[[Path], list[str]]
CASES: dict[str, Case] = {
    "hsii cut onto the dialogues it cuts": lambda r: [
        "hsii", "cut", str(bank(r) / "dialogues.jsonl"), "--out", str(r / "bank/dialogues.jsonl")
    ],
    "hsii curate export into the bank (its key file would join the bank)": lambda r: [
        "hsii", "curate", "export", str(bank(r)), "--out", str(r / "bank" / "curation.csv")
    ],
    "hsii import-dialogues into the folder holding its file": lambda r: [
        "hsii", "import-dialogues", str(r / "forum.csv"), "--out", str(r), "--assistant", "mod"
    ],
    "hsii generate --cases-out onto its --out": lambda r: [
        "hsii", "generate", "--model", "scripted/none.json", "--out", str(r / "d.jsonl"),
        "--cases-out", str(r / "d.jsonl"),
    ],
    "hsii grade export into a log folder": lambda r: [
        "hsii", "grade", "export", str(logs(r)), "--out", str(r / "logs" / "grading.csv")
    ],
    "losona audit export onto a log": lambda r: [
        "losona", "audit", "export", str(logs(r)), "--out", str(r / "logs" / "run.eval")
    ],
    "scene audit export into a log folder": lambda r: [
        "scene", "audit", "export", str(logs(r)), "--out", str(r / "logs" / "audit.csv")
    ],
    "losona rescore into the log folder it rescores": lambda r: [
        "losona", "rescore", str(logs(r) / "run.eval"), "--judge", LOSONA_JUDGE, "--out",
        str(r / "logs"),
    ],
    "losona export into its data folder": lambda r: [
        "losona", "export", "--data", str(r / "data"), "--out", str(r / "data" / "hf")
    ],
    "losona screen into the folder holding its candidates": lambda r: [
        "losona", "screen", str(r / "data" / "s.jsonl"), "--out", str(r / "data")
    ],
    "crsec society onto the society it grows": lambda r: [
        "crsec", "society", "--agents", "3", "--society", str(r / "s.json"), "--out",
        str(r / "s.json"),
    ],
    "crsec questionnaire export into the run": lambda r: [
        "crsec", "questionnaire", "export", str(r / "run"), "--out", str(r / "run" / "q")
    ],
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_command_never_writes_into_its_own_input(case: str, tmp_path: Path) -> None:
    (tmp_path / "forum.csv").write_bytes(FORUM.read_bytes())
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "s.jsonl").write_bytes(LOSONA_SCENARIOS.read_bytes())
    (tmp_path / "s.json").write_bytes(HOBBS_CAFE.read_bytes())
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json").write_text("{}")
    args = CASES[case](tmp_path)
    before = snapshot(tmp_path)
    code, output = invoke(*args)
    assert code == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1 and "which is only read: write elsewhere" in lines[0], lines
    assert snapshot(tmp_path) == before
