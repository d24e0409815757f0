"""Every n names its unit, and subjects the study cannot tell apart share a rank (issue 35,
items 0.4 and 0.7)."""

from __future__ import annotations

import json
from pathlib import Path

from normlab.stats import Estimate
from normlab.study.compare import Comparisons, PairedDifference
from normlab.study.report import Ranked, SystemReport, rank_subjects
from normlab.study.tables import rows_of
from tests.study.test_study import REPO, invoke

SCENE = REPO / "tests" / "scene" / "fixtures"


def test_a_scene_study_with_no_sanction_shows_zero_sanctions(workdir: Path) -> None:
    """It showed "— [—, —]" beside n = 2, the episodes, where the rate is over sanctions."""
    silent = workdir / "judge.json"
    silent.write_text(
        json.dumps(
            {
                "rules": [
                    {"match": "^You identify", "replies": ['{"events": []}']},
                    {
                        "match": "^You label events",
                        "replies": [
                            '{"turn_labels": [], "episode_metrics": {"subject_breach_count": 0, '
                            '"subject_corrected": false, "subject_relapses": 0, '
                            '"subject_face_save": false, "subject_late_comply": false, '
                            '"sanction_shape_match": true}}'
                        ],
                    },
                ],
                "default": '{"label": "VALID", "justification": "fine"}',
            }
        ),
        encoding="utf-8",
    )
    script = f"scripted/{SCENE / 'script.json'}"
    study = {
        "name": "quiet",
        "out": str(workdir / "out"),
        "systems": {
            "scene": {
                "options": {"scenarios": str(SCENE / "scenarios.jsonl"), "reps": 1},
                "roles": {
                    "judge": f"scripted/{silent}",
                    "persona": script,
                    "orchestrator": script,
                    "auditor": script,
                },
            }
        },
        "subjects": [{"name": "a", "model": script}],
    }
    path = workdir / "study.yaml"
    path.write_text(json.dumps(study), encoding="utf-8")
    code, _, err = invoke("run", path)
    assert code == 0, err
    code, out, err = invoke("report", path, "--json")
    assert code == 0, err
    (row,) = json.loads(out)["systems"][0]["subjects"]
    assert (row["value"], row["n"], row["unit"]) == (None, 0, "sanction")
    assert "no sanction was made" in " ".join(row["notes"])
    code, out, _ = invoke("report", path)
    assert "0 sanctions in 0 scenarios" in " ".join(out.split())


def ranked(subject: str, value: float, ci: tuple[float, float] | None = None) -> Ranked:
    low, high = ci or (None, None)
    return Ranked(rank=0, subject=subject, value=value, ci=(low, high), n=10, samples=10,
                  calls=10, planned_calls=None, calls_over_plan=None)  # fmt: skip


def pairs(*found: tuple[str, str, float, float]) -> Comparisons:
    return Comparisons(
        unit="scenario",
        comparisons=len(found),
        note="",
        pairs=[
            PairedDifference(
                first=a,
                second=b,
                delta=Estimate(value=(lo + hi) / 2, ci=(lo, hi), n=10),
                familywise=(lo, hi),
            )
            for a, b, lo, hi in found
        ],
    )


def test_subjects_a_paired_interval_cannot_tell_apart_share_a_rank() -> None:
    rows = [ranked("a", 0.8), ranked("b", 0.7)]
    tied, how = rank_subjects(rows, pairs(("a", "b", -0.05, 0.25)))
    assert [r.rank for r in tied] == [1, 1] and tied[0].tied_with == ["b"]
    assert "family-wise" in how
    apart, _ = rank_subjects(rows, pairs(("a", "b", 0.02, 0.2)))
    assert [r.rank for r in apart] == [1, 2] and apart[0].tied_with == []
    # Three subjects: a beats c, but neither is told apart from b.
    three = [ranked("a", 0.9), ranked("b", 0.7), ranked("c", 0.5)]
    found, _ = rank_subjects(three, pairs(("a", "b", -0.1, 0.5), ("a", "c", 0.1, 0.7),
                                          ("b", "c", -0.1, 0.5)))  # fmt: skip
    assert [r.rank for r in found] == [1, 1, 2]
    report = SystemReport(system="losona", metric="m", unit="scenario", subjects=found,
                          ranking=how)  # fmt: skip
    assert [cells[0] for cells in rows_of(report)] == ["1=", "1=", "2"]


def test_without_a_paired_form_overlapping_intervals_share_a_rank() -> None:
    overlapping = [ranked("a", 0.8, (0.6, 0.9)), ranked("b", 0.6, (0.4, 0.7))]
    found, how = rank_subjects(overlapping, None)
    assert [r.rank for r in found] == [1, 1] and "do not overlap" in how
    apart = [ranked("a", 0.8, (0.7, 0.9)), ranked("b", 0.5, (0.4, 0.6))]
    assert [r.rank for r in rank_subjects(apart, None)[0]] == [1, 2]
    one_run = [ranked("a", 0.8), ranked("b", 0.5)]  # no interval: nothing told apart
    assert [r.rank for r in rank_subjects(one_run, None)[0]] == [1, 1]
