"""A second judge for CRSEC in a study (issue 23 item 4): each finished run copied outside the
cell and analyzed again with the extra judge; the report compares the two judges on the
final-hour adherence of each (run, agent, target norm), the items the headline is built from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from normlab.core.outputs import slug
from normlab.crsec import cell as crsec_cell
from tests.study.test_cells import run_json
from tests.study.test_study import REPO, invoke

FIXTURES = Path(__file__).parent / "fixtures"
BUSY_FILE = REPO / "tests" / "crsec" / "fixtures" / "busy.json"
LENIENT = f"scripted/{FIXTURES / 'crsec-lenient-judge.json'}"
"""The study's judge: an hour of smoking outside by the door, reading with headphones and
talking loudly on the phone complies with no smoking indoors and with quiet in public; smoking
at a table and singing loudly violate both; a tip after eating complies with tipping."""
STRICT = f"scripted/{FIXTURES / 'crsec-strict-judge.json'}"
"""The extra judge: as the study's, except that smoking by the door and talking loudly on the
phone violate both norms (the known items it disagrees on)."""
AGENTS = ("Bob Johnson", "Carlos Gomez", "Tamara Rodriguez")
ACTIONS = "describe actions in 5 min increments"


def subject(folder: Path, name: str, subtasks: list[tuple[str, str, int]]) -> str:
    """busy.json whose agents do ``subtasks`` (action, place, minutes) every hour."""
    script = json.loads(BUSY_FILE.read_text(encoding="utf-8"))
    (rule,) = [r for r in script["rules"] if r["match"] == ACTIONS]
    reply = [{"action": a, "minutes": m, "place": p} for a, p, m in subtasks]
    rule["replies"] = [json.dumps({"subtasks": reply})]
    path = folder / f"{name}.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    return f"scripted/{path}"


OUTSIDE = [
    ("smoking outside by the door", "outside Hobbs Cafe", 20),
    ("reading quietly with headphones on", "Hobbs Cafe", 25),
    ("talking loudly on the phone", "Hobbs Cafe", 15),
]
TIPPING = [
    ("smoking a cigarette at a table", "Hobbs Cafe", 15),
    ("singing loudly by the counter", "Hobbs Cafe", 15),
    ("having lunch and leaving a tip after eating", "Hobbs Cafe", 30),
]


def crsec_study(folder: Path, judges: list[str]) -> Path:
    """CRSEC alone, three agents for an hour a day, one run per subject: a's agents do
    :data:`OUTSIDE` every hour, b's :data:`TIPPING`; the study's judge is :data:`LENIENT`."""
    crsec: dict[str, Any] = {
        "options": {"agents": ",".join(AGENTS), "hours": "9-10"},
        "roles": {"judge": LENIENT},
    }
    if judges:
        crsec["judges"] = judges
    study = {
        "name": "crsec-judges",
        "out": str(folder / "out"),
        "max_connections": 8,
        "seed": 0,
        "systems": {"crsec": crsec},
        "subjects": [
            {"name": "a", "model": subject(folder, "outside", OUTSIDE)},
            {"name": "b", "model": subject(folder, "tipping", TIPPING)},
        ],
    }
    path = folder / "study.yaml"
    path.write_text(json.dumps(study), encoding="utf-8")  # JSON is YAML
    return path


def stamps(folder: Path) -> dict[Path, tuple[int, int]]:
    """Every file under ``folder``: its size and modification time."""
    return {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()}


def cache_rows(folder: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted(folder.rglob("judge_cache.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def test_a_second_judge_rejudges_crsec_runs_and_flips_the_ranking(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The study first runs with its own judge only; the extra judge is added afterwards.
    path = crsec_study(workdir, [])
    run_json("run", path)
    before = {r["subject"]: r["value"] for r in run_json("report", path)["systems"][0]["subjects"]}
    # Last hour, per agent (smoking, quiet, tipping) adhering by the study's judge:
    # a (T, T, F), b (F, F, T): 6 of 9 and 3 of 9.
    assert before == pytest.approx({"a": 6 / 9, "b": 3 / 9})
    cells = workdir / "out" / "crsec"
    untouched = stamps(cells)

    path = crsec_study(workdir, [STRICT])
    planned = {
        c["subject"]: c["extra_judges"][STRICT]["calls"] for c in run_json("plan", path)["cells"]
    }
    assert all(calls > 0 for calls in planned.values())

    # A copy killed half-way is never read: nothing of it lands in the judge's folder.
    judged = workdir / "out" / "judges" / "crsec"
    copy_file = shutil.copyfile

    def killed(source: Path, target: Path) -> Any:
        if Path(target).name == "events.jsonl":
            raise OSError("killed mid-copy")
        return copy_file(source, target)

    monkeypatch.setattr(shutil, "copyfile", killed)
    folder = judged / "a" / slug(STRICT)  # where study run puts it
    with pytest.raises(OSError, match="killed"):
        crsec_cell.rescore_crsec(cells / "a", STRICT, folder)
    assert not (folder / "run-1").exists()
    assert not crsec_cell.crsec_judged(cells / "a", folder)
    monkeypatch.undo()
    (unjudged,) = run_json("report", path)["systems"][0]["judges"]
    assert unjudged["missing"] == ["a", "b"] and unjudged["kappa"]["n"] == 0

    code, _, err = invoke("run", path)
    assert code == 0, err
    assert "extra judge" in err
    assert stamps(cells) == untouched  # the cells' runs and their judge's cache as they were
    made: dict[str, int] = {}
    for subject in ("a", "b"):
        (copy,) = (judged / subject).glob("*/run-1")
        assert sorted(p.name for p in copy.iterdir()) == [
            "checkpoint.json", "config.json", "events.jsonl", "judge_cache.jsonl", "metrics.jsonl"
        ]  # fmt: skip
        config = json.loads((copy / "config.json").read_text(encoding="utf-8"))
        assert config["models"]["judge"] == STRICT
        rows = cache_rows(copy)
        assert {row["model"] for row in rows} == {STRICT}
        made[subject] = sum(len(row["replies"]) for row in rows)
    # The plan's extra judge calls are the calls the extra judge made (its analysis's match
    # and compliance calls, as the study's judge made them in the dry run).
    assert made == planned
    assert not list((workdir / "out" / "judges").rglob("*.partial"))

    report = run_json("report", path)
    (system,) = report["systems"]
    assert {r["subject"]: r["value"] for r in system["subjects"]} == before  # unchanged
    (judges,) = system["judges"]
    assert judges["original"] == LENIENT and judges["judge"] == STRICT
    assert judges["items"].startswith("final-hour adherence")
    # 2 subjects × 3 agents × 3 targets; (study's, extra) per agent:
    # a: smoking (T, F), quiet (T, F), tipping (F, F); b: smoking (F, F), quiet (F, F),
    # tipping (T, T). TT 3, TF 6, FT 0, FF 9: p_o = 12/18, p_a = 9/18, p_b = 3/18,
    # p_e = .5·(1/6) + .5·(5/6) = .5, κ = (2/3 − .5) / .5 = 1/3.
    agreement = judges["agreement"]
    assert (agreement["rate"]["k"], agreement["rate"]["n"]) == (12, 18)
    assert (agreement["first_true_second_false"], agreement["first_false_second_true"]) == (6, 0)
    assert judges["kappa"]["value"] == pytest.approx(1 / 3) and judges["kappa"]["n"] == 18
    assert judges["clusters"] == 2  # one run per subject
    assert judges["original_ranking"] == ["a", "b"]
    ranking = [(r["subject"], r["value"], r["n"]) for r in judges["ranking"]]
    assert ranking == [("b", pytest.approx(3 / 9), 1), ("a", 0.0, 1)]
    assert judges["changed"] is True and judges["missing"] == []
    code, out, err = invoke("report", path)
    assert code == 0, err
    assert "crsec: two judges" in out and "ranking by" in out

    # A rerun copies nothing again and asks no judge again.
    judged_files = stamps(judged)
    code, _, err = invoke("run", path)
    assert code == 0, err
    assert stamps(judged) == judged_files and stamps(cells) == untouched
