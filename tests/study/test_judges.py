"""Two judges (issue 23 item 4): a system's extra judge re-judges each finished cell without
re-running the subject, and the report gives the judges' agreement (raw, Cohen's κ with its
interval and n), each judge's ranking, and whether the ranking changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from normlab.study.judges import Judged, compare_judges
from tests.study.test_study import EXAMPLE, REPO, invoke, study_file

FIXTURES = Path(__file__).parent / "fixtures"
LOSONA = REPO / "tests" / "losona" / "fixtures"
FLIP = f"scripted/{FIXTURES / 'losona-flip.json'}"
"""Complies iff the reply names node 20 (the study's judge: iff it points to the wiki); as a
subject, it answers "use node 20" when told of the local pattern."""


def test_two_judges_disagreeing_on_a_known_item_give_the_hand_computed_kappa() -> None:
    # Four trials of one scenario pair; the judges differ on t2 only.
    # p_o = 3/4, p_a = 2/4, p_b = 1/4, p_e = .5·.25 + .5·.75 = .5, κ = (.75 − .5)/.5 = .5
    ours = {"a": {f"t{i}": ("s", label) for i, label in enumerate([True, True, False, False])}}
    theirs = {f"t{i}": ("s", label) for i, label in enumerate([True, False, False, False])}
    result = compare_judges(
        "judge-1", "judge-2", "trials", [("a", 0.5)], {"a": Judged(0.25, (0, 1), 4, theirs)}, ours
    )
    assert result.kappa.value == pytest.approx(0.5) and result.kappa.n == 4
    assert (result.agreement.rate.k, result.agreement.rate.n) == (3, 4)
    assert result.agreement.first_true_second_false == 1
    assert result.changed is None and result.kendall_tau is None  # one subject: no ranking


def test_a_ranking_that_flips_is_reported_as_changed() -> None:
    judged = {
        "a": Judged(0.2, (0.1, 0.3), 10),
        "b": Judged(0.9, (0.8, 1.0), 10),
        "c": Judged(0.5, (0.4, 0.6), 10),
    }
    result = compare_judges("j1", "j2", "trials", [("a", 0.8), ("c", 0.6), ("b", 0.1)], judged, {})
    assert result.original_ranking == ["a", "c", "b"]
    assert [r.subject for r in result.ranking] == ["b", "c", "a"]
    assert result.changed is True
    # Every pair of the three reversed: τ = (0 − 3) / 3.
    assert result.kendall_tau == pytest.approx(-1.0)
    kept = compare_judges("j1", "j2", "trials", [("a", 0.8), ("b", 0.1)], judged, {})
    assert kept.changed is True and kept.kendall_tau is None  # two subjects: no τ
    same = compare_judges("j1", "j2", "t", [("b", 0.9), ("a", 0.1)], judged, {})
    assert same.changed is False
    missing = compare_judges("j1", "j2", "t", [("a", 0.8), ("d", 0.1)], judged, {})
    assert missing.missing == ["d"] and missing.changed is None


def flip_study(folder: Path) -> Path:
    """LoSoNA alone: subject a points to the wiki when told of the pattern, subject b names
    node 20; the study's judge passes the wiki, the extra judge passes node 20."""
    path = folder / "flip.yaml"
    path.write_text(
        f"""name: flip
out: {folder / "out"}
max_connections: 4
systems:
  losona:
    options: {{scenarios: {LOSONA / "scenarios.jsonl"}, conditions: [naive, norm_informed],
              epochs: 2}}
    roles: {{judge: scripted/{LOSONA / "script.json"}}}
    judges: [{FLIP}]
subjects:
  - {{name: a, model: scripted/{LOSONA / "script.json"}}}
  - {{name: b, model: {FLIP}}}
""",
        encoding="utf-8",
    )
    return path


def test_the_plan_counts_each_extra_judges_calls_and_cost(workdir: Path) -> None:
    path = flip_study(workdir)
    script = f"scripted/{LOSONA / 'script.json'}"
    prices = f"prices:\n  {script}: {{input: 1, output: 2}}\n  {FLIP}: {{input: 10, output: 20}}\n"
    path.write_text(path.read_text(encoding="utf-8") + prices, encoding="utf-8")
    code, out, err = invoke("plan", path, "--json")
    assert code == 0, err
    for cell in json.loads(out)["cells"]:
        judge, (extra,) = cell["roles"]["judge"], cell["extra_judges"].values()
        # The scorer's calls again, with the same prompts: 2 scenarios × 2 conditions × 2 epochs.
        assert extra["model"] == FLIP and extra["calls"] == judge["calls"] == 8
        assert extra["input_tokens"] == judge["input_tokens"] > 0
        assert extra["cost"] == pytest.approx(10 * judge["cost"])  # ten times the price
        assert cell["calls"] == sum(r["calls"] for r in cell["roles"].values())  # the run's own
        own = sum(r["cost"] for r in cell["roles"].values())
        assert cell["cost"] == pytest.approx(own + extra["cost"])
        assert cell["wall_s_at_least"] == (16 + 8) * 2.0 / 4  # both judges, 2 s, 4 connections
    code, out, err = invoke("plan", path)
    assert code == 0, err
    assert f"extra judge {FLIP} on losona/a: 8 calls" in out


def test_a_second_judge_rescores_losona_and_flips_the_ranking(workdir: Path) -> None:
    path = flip_study(workdir)
    code, _, err = invoke("run", path)
    assert code == 0, err
    assert "extra judge" in err
    code, out, err = invoke("report", path, "--json")
    assert code == 0, err
    (system,) = json.loads(out)["systems"]
    (judges,) = system["judges"]
    # Per subject, 2 scenarios × (norm_informed, naive) × 2 epochs; (study's, extra) label:
    # a: informed "…wiki…" (T, F) ×4; naive "just run make deploy" (F, F) ×2, "use node 20"
    #    (F, T) ×2.  b: informed "use node 20" (F, T) ×4; naive "make deploy" (F, F) ×4.
    # 16 items: TF 4, FT 6, FF 6. p_o = 6/16, p_a = 4/16, p_b = 6/16,
    # p_e = .25·.375 + .75·.625 = .5625, κ = (.375 − .5625) / .4375 = −3/7.
    assert judges["kappa"]["n"] == 16 and judges["clusters"] == 2
    assert judges["kappa"]["value"] == pytest.approx(-3 / 7)
    agreement = judges["agreement"]
    assert (agreement["rate"]["k"], agreement["rate"]["n"]) == (6, 16)
    assert (agreement["first_true_second_false"], agreement["first_false_second_true"]) == (4, 6)
    assert [r["subject"] for r in system["subjects"]] == ["a", "b"]
    assert judges["original_ranking"] == ["a", "b"]
    assert [(r["subject"], r["value"]) for r in judges["ranking"]] == [("b", 1.0), ("a", 0.0)]
    assert judges["changed"] is True and judges["missing"] == []
    code, out, err = invoke("report", path)
    assert code == 0, err
    assert "losona: two judges" in out and "ranking by" in out


@pytest.mark.slow
def test_every_system_of_the_scripted_study_with_a_second_judge(workdir: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    extra: dict[str, str] = {}
    for system, script in (
        ("losona", "losona-flip.json"),
        ("scene", "scene-judge.json"),
        ("hsii", "hsii-judge.json"),
    ):
        judge = extra[system] = f"scripted/{FIXTURES / script}"
        text = text.replace(f"  {system}:\n", f"  {system}:\n    judges: [{judge}]\n", 1)
    path = study_file(workdir, text)
    code, out, err = invoke("plan", path, "--json")
    assert code == 0, err
    planned = {
        (c["system"], c["subject"]): {m: r["calls"] for m, r in c["extra_judges"].items()}
        for c in json.loads(out)["cells"]
    }
    code, _, err = invoke("run", path)
    assert code == 0, err
    judged = sorted((workdir / "out" / "judges").rglob("*.rescored.eval"))
    assert len(judged) == 6  # one log per cell, each judged again once
    # The plan's extra-judge calls are the calls the second judge made.
    made: dict[tuple[str, str], dict[str, int]] = {}
    for rescored in judged:
        system, subject = rescored.parents[2].name, rescored.parents[1].name
        log, judge = read_eval_log(str(rescored)), extra[system]
        calls = sum(
            1
            for sample in log.samples or []
            for e in sample.events
            if e.event == "model" and e.role == "judge" and e.model == judge
        )
        made.setdefault((system, subject), {})[judge] = calls
    assert made == planned and all(c > 0 for cell in made.values() for c in cell.values())
    stamps = [p.stat().st_mtime_ns for p in judged]
    code, out, err = invoke("report", path, "--json")
    assert code == 0, err
    report = json.loads(out)
    for system in report["systems"]:
        (judges,) = system["judges"]
        assert judges["kappa"]["n"] > 0 and judges["agreement"]["n"] == judges["kappa"]["n"]
        assert len(judges["ranking"]) == 2 and judges["changed"] is False, system["system"]
        assert judges["missing"] == []
    # SCENE's extra judge labels no repair: its repair rate is 0 where the study's is 1.
    scene = next(s for s in report["systems"] if s["system"] == "scene")
    assert [r["value"] for r in scene["judges"][0]["ranking"]] == [0.0, 0.0]
    assert [r["value"] for r in scene["subjects"]] == [1.0, 1.0]
    # A rerun skips every finished cell and judges nothing again.
    code, _, err = invoke("run", path)
    assert code == 0, err
    assert [p.stat().st_mtime_ns for p in judged] == stamps
    assert not list((workdir / "out" / "judges").rglob("*.partial"))
