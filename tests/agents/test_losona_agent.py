"""The norm-learning subject takes LoSoNA: ``--agent norm-memory``, ``-T agent=…``, the paired
comparison with the base model in one report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalSample, read_eval_log

from normlab.agents import MEMORY_KEY, MemoryLog
from normlab.core.errors import InputError
from normlab.core.logs import read_samples
from normlab.losona.analysis import analyze_records, load_records
from normlab.losona.task import losona
from normlab.models.usage import usage_by_role
from tests.agents.conftest import LOSONA_SCRIPT
from tests.losona.conftest import SCENARIOS, run_cli

MODEL = f"scripted/{LOSONA_SCRIPT}"
AGENT_SUBJECT = f"{MODEL} + norm-memory"
KEPT = "Questions are answered by pointing to a document."
REJECTED = "Marcus asks about the build."


def run(workdir: Path, *extra: str) -> str:
    code, output = run_cli(
        "losona", "run", "--model", MODEL, "--judge", MODEL, "--data", str(SCENARIOS),
        "-c", "naive", *extra,
    )  # fmt: skip
    assert code == 0, output
    return output


def samples(folder: Path) -> list[EvalSample]:
    (path,) = sorted(folder.rglob("*.eval"))
    return list(read_eval_log(str(path)).samples or [])


@pytest.fixture
def both_runs(workdir: Path) -> Path:
    """The base model and the agent around it, each in its default log folder."""
    run(workdir)
    run(workdir, "--agent", "norm-memory")
    return workdir / "runs" / "losona"


def test_base_and_agent_runs_never_share_a_folder(both_runs: Path) -> None:
    base, agent = sorted(both_runs.iterdir(), key=lambda p: "+norm-memory" in p.name)
    assert "norm-memory" not in base.name
    assert agent.name.startswith(base.name.split("__")[0] + "+norm-memory__")


def test_the_reply_prompt_lists_the_kept_norm_not_the_rejected_one(both_runs: Path) -> None:
    agent = next(p for p in both_runs.iterdir() if "+norm-memory" in p.name)
    found = samples(agent)
    assert found
    for sample in found:
        prompt = sample.messages[0].text
        assert f"QUALIFIED PERSONAL NORMS: 1. {KEPT}" in prompt
        assert REJECTED not in prompt
        assert prompt.index("QUALIFIED PERSONAL NORMS") < prompt.index("Your next message:")
        assert sample.output.completion == "check the wiki, it's documented there"
        log = MemoryLog.model_validate((sample.metadata or {})[MEMORY_KEY])
        assert [item.status for item in log.readings[0].items] == ["qualified", "rejected"]
        inference = (sample.scores or {})["norm_judge"].metadata or {}
        assert inference["norm_inference"]["held"] is True


def test_the_agents_calls_are_a_role_of_their_own(both_runs: Path) -> None:
    folders = sorted(both_runs.iterdir())
    assert len(folders) == 2
    for folder in folders:
        usage = usage_by_role(
            item.sample for item in read_samples(sorted(folder.rglob("*.eval"))).samples
        )
        if "+norm-memory" in folder.name:
            # per trial: identify + two evaluations; the judge: the verdict + one norm matched
            assert usage["norm_memory"].calls == 3 * 6
            assert usage["subject"].calls == 6
        else:
            assert "norm_memory" not in usage and usage["subject"].calls == 6


def test_one_report_pairs_the_agent_with_its_model(both_runs: Path) -> None:
    records = load_records([both_runs])
    assert {r.subject for r in records} == {MODEL, AGENT_SUBJECT}
    analysis = analyze_records(records)
    comparison = analysis.agents[AGENT_SUBJECT]
    assert (comparison.model, comparison.agent) == (MODEL, "norm-memory")
    paired = comparison.paired["naive"]
    assert (paired.delta.value, paired.recovered, paired.regressed) == (1.0, (2, 2), (0, 0))
    inference = comparison.inference["naive"]
    assert (inference.held.k, inference.held.n) == (6, 6)
    assert inference.first_held_reply.value == 1.0
    code, output = run_cli("losona", "report", str(both_runs), "--out", str(both_runs / "r"))
    assert code == 0, output
    html = (both_runs / "r" / "report.html").read_text()
    section = html.split("<h2>Norm-learning subject vs base model</h2>")[1].split("<h2>")[0]
    assert "+100.0 pp" in section and "2/2" in section
    assert f"+ {KEPT}" in section and f"− {REJECTED}" in section
    code, output = run_cli("losona", "analyze", str(both_runs), "--json")
    data = json.loads(output)
    assert data["agents"][AGENT_SUBJECT]["paired"]["naive"]["recovered"] == [2, 2]
    assert set(data["usage"][AGENT_SUBJECT]["roles"]) == {"judge", "norm_memory", "subject"}


def test_role_norm_memory_binds_another_model(workdir: Path) -> None:
    other = workdir / "other.json"
    other.write_text(LOSONA_SCRIPT.read_text())
    run(workdir, "--agent", "norm-memory", "--role", f"norm_memory=scripted/{other}", "-k", "1")
    (folder,) = (workdir / "runs" / "losona").iterdir()
    (path,) = sorted(folder.rglob("*.eval"))
    log = read_eval_log(str(path))
    events = [e for s in log.samples or [] for e in s.events if e.event == "model"]
    agent_calls = [e for e in events if e.role == "norm_memory"]
    assert agent_calls and all(str(e.model) == f"scripted/{other}" for e in agent_calls)


def test_inspect_eval_takes_the_agent_as_a_task_argument(workdir: Path) -> None:
    logs = inspect_eval(
        "normlab/losona",
        model=MODEL,
        model_roles={"judge": MODEL},
        task_args={"scenarios": str(SCENARIOS), "conditions": "naive", "agent": "norm-memory"},
        epochs=1,
        log_dir=str(workdir / "logs"),
    )
    assert [log.status for log in logs] == ["success"]
    records = load_records([workdir / "logs"])
    assert {r.subject for r in records} == {AGENT_SUBJECT}
    assert all(r.complies and r.norm_inference and r.norm_inference.held for r in records)


def test_an_unknown_agent_is_refused_on_one_line(workdir: Path) -> None:
    with pytest.raises(InputError, match="unknown agent 'memory'"):
        losona(scenarios=str(SCENARIOS), agent="memory")
    code, output = run_cli("losona", "run", "--model", MODEL, "--agent", "memory")
    assert code == 2
    assert output.strip().splitlines() == [
        "normlab: error: --agent: unknown agent 'memory'; choose from base, norm-memory"
    ]
    assert not (workdir / "runs").exists()


def test_the_web_reader_shows_its_norm_database(both_runs: Path) -> None:
    from normlab.losona.reader import losona_view

    agent = next(p for p in both_runs.iterdir() if "+norm-memory" in p.name)
    (path,) = sorted(agent.rglob("*.eval"))
    view = losona_view(read_eval_log(str(path)), 0)
    assert ("subject model", AGENT_SUBJECT) in view.facts
    assert f"+ {KEPT}" in view.replies[0].reasons and f"− {REJECTED}" in view.replies[0].reasons
