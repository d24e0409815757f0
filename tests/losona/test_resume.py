"""A run killed part-way and resumed analyzes to exactly the planned n (issue 8, §11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from normlab.core.logs import read_samples
from normlab.losona.analysis import analyze, load_run
from tests.helpers.interrupt import finished_samples, kill_when
from tests.losona.conftest import SCENARIOS, SCRIPT, run_cli


@pytest.mark.slow
def test_killed_and_resumed_run_counts_every_trial_once(workdir: Path) -> None:
    script = json.loads(SCRIPT.read_text())
    for rule in script["rules"]:
        if "repeated local pattern" in rule["match"]:  # norm_informed replies hang
            rule["delay"] = 120
    path = workdir / "script.json"
    path.write_text(json.dumps(script))
    model = f"scripted/{path}"
    logs = workdir / "logs"
    args = ["losona", "run", "--model", model, "--judge", model, "--data", str(SCENARIOS),
            "-c", "naive", "-c", "norm_informed", "--log-dir", str(logs)]  # fmt: skip
    kill_when(args, lambda: finished_samples(logs) >= 6, workdir)  # naive done, the rest hang
    path.write_text(SCRIPT.read_text())  # the same model, answering at once now
    code, output = run_cli(*args)
    assert code == 0, output
    assert len(list(logs.glob("*.eval"))) == 2, "the killed run's partial log is still there"
    run = load_run([logs, logs])  # the folder named twice, too
    result = analyze(run).models[model]
    planned = 2 * 3  # scenarios × K per condition
    assert {c: r.n_trials for c, r in result.conditions.items()} == {
        "naive": planned,
        "norm_informed": planned,
    }
    assert len(read_samples(list(logs.glob("*.eval"))).samples) == 2 * planned
    assert any("already read from a finished or newer log" in note for note in run.samples.skipped)


def _replies(logs: Path) -> dict[tuple[str, int], str]:
    return {
        (str(item.sample.id), item.sample.epoch): item.sample.output.completion
        for item in read_samples(list(logs.glob("*.eval"))).samples
    }


@pytest.mark.slow
def test_a_resumed_scripted_run_reproduces_an_uninterrupted_one(workdir: Path) -> None:
    """The scripted model picks replies per sample and epoch, not per process (issue 12): the
    samples killed part-way get, on resume, the replies an uninterrupted run gets."""
    script = json.loads(SCRIPT.read_text())
    wiki_verdict = script["rules"][0]["replies"]
    # Judging the third naive reply hangs, so one epoch per scenario is cut off.
    hang = {"match": "(?s)^You are judging.*the wiki covers it", "replies": wiki_verdict}
    path = workdir / "script.json"
    path.write_text(json.dumps({**script, "rules": [{**hang, "delay": 120}, *script["rules"]]}))
    model = f"scripted/{path}"

    def args(logs: Path) -> list[str]:
        return ["losona", "run", "--model", model, "--judge", model, "--data", str(SCENARIOS),
                "-c", "naive", "-c", "norm_informed", "--log-dir", str(logs)]  # fmt: skip

    resumed = workdir / "resumed"
    kill_when(args(resumed), lambda: finished_samples(resumed) >= 10, workdir)
    path.write_text(SCRIPT.read_text())
    assert run_cli(*args(resumed))[0] == 0
    whole = workdir / "whole"
    assert run_cli(*args(whole))[0] == 0
    replies = _replies(whole)
    assert len(replies) == 12 and "the wiki covers it" in replies.values()
    assert _replies(resumed) == replies
