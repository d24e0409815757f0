"""Does CRSEC's cheaper default mode change what emerges? Default and ``--faithful`` compared.

    python -m benchmarks.crsec_modes [--model M] [--judge J] [--seeds 3] [--seed 0]
        [--agents "Bob Johnson,Tamara Rodriguez,Carlos Gomez"] [--hours 9-11] [--days 1]
        [--tick-minutes 30] [--society FILE] [--keep DIR] [--out results.json]

The default mode batches conflict detection (one call per observer and tick), merges the
four checks of the immediate evaluation and the utility into one call, skips exact
duplicates without a call and caps conversations at 6 utterances; ``--faithful`` makes one
call per operation as the paper describes (conversations of up to 10). This runs both modes
on the same society, model and seeds (seeds ``seed … seed+N-1``, the same N in each mode,
so each seed is a pair), analyzes each mode's runs with the same judge, and reports per
Figure 2 metric the mean over seeds with its 95% bootstrap interval in each mode and the
paired difference faithful − default over seeds (:mod:`normlab.stats`):

* Figure 2(a): social conflicts, norm-related thoughts and norm-related chats per simulated
  hour (the run's mean over its hours);
* Figure 2(b), per norm at stake: the share of agents holding it, complying in plans, in
  actions and adhering, as the mean over the run's hours (the curve's height) and at the
  end; the emergence hour (over 70% hold / adhere), over the seeds that got there, with the
  difference over the seeds where both modes got there;
* the final norm databases: qualified norms and all entries per agent; per seed, the
  overlap of the two modes' qualified norms (same words, Jaccard over (agent, norm) pairs)
  and the share of (agent, norm at stake) cells where both modes agree on holding;
* agent calls per run (what the default mode saves).

With no model named, agents and judge are the embedded 0.5B model: that proves the
plumbing, not a finding. ``--model openai/gpt-4o-mini --judge openai/gpt-4.1 --agents ""
--hours 8-16 --days 2 --tick-minutes 5 --seeds 5`` repeats it at the paper's size on real
models (``--agents ""``: every agent). ``--keep DIR`` keeps the run directories there, and a
run found there is resumed or reused, so a long benchmark that was stopped goes on.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import command
from benchmarks.crsec_calls import paper_config
from normlab.crsec.analysis.figure2 import (
    EMERGENCE_MEASURES,
    MEASURES,
    CrsecAnalysis,
    RunResult,
    analyze_runs,
    load_runs,
)
from normlab.crsec.analysis.judge import cached_matches
from normlab.crsec.runner import model_client
from normlab.crsec.sim.loop import Simulation
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.society import HOBBS_CAFE
from normlab.models import DEFAULT_MODEL
from normlab.norms.normdb import normalized
from normlab.stats import Estimate

MODES = ("default", "faithful")
COUNT_METRICS = {
    "conflicts": "social conflicts per hour",
    "norm_thoughts": "norm-related thoughts per hour",
    "norm_chats": "norm-related chats per hour",
}
SHARE_NAMES = {
    "holding": "hold",
    "plan": "comply in plans",
    "actions": "comply in actions",
    "adhering": "adhere",
    "both": "hold and adhere",
}
DEFAULT_AGENTS = "Bob Johnson,Tamara Rodriguez,Carlos Gomez"
"""The norm entrepreneur, the woman sensitive to smoke and the smoker: conflicts from the start."""


@dataclass(frozen=True)
class Setup:
    """One comparison: the society, the models and the clock both modes run with."""

    models: dict[str, str]
    """``agent`` and ``judge``."""
    seeds: list[int]
    society: Path = HOBBS_CAFE
    agents: str | None = DEFAULT_AGENTS
    """Comma-separated names; None or "": every agent of the society."""
    hours: str | None = "9-11"
    days: int | None = 1
    tick_minutes: int | None = 30
    progress: Callable[[str], None] = field(default=lambda line: None, compare=False)


def simulate(folder: Path, setup: Setup, seed: int, faithful: bool) -> None:
    """One run, created (or found, and resumed where it stopped) in ``folder``."""
    run = RunDir(folder)
    if not run.exists():
        # max_utterances left to each mode's own cap: 6, faithful 10
        varied = {"seed": seed, "days": setup.days, "hours": setup.hours, "faithful": faithful}
        varied |= {"agents": setup.agents or None, "tick_minutes": setup.tick_minutes}
        run.create(paper_config(setup.society, setup.models, varied))
    state = run.checkpoint()
    if state is not None and state.finished:
        return
    name = f"{'faithful' if faithful else 'default'}, seed {seed}"
    simulation = Simulation(
        run,
        model_client(run.config().models),
        lambda line: setup.progress(f"{name}: {line}"),
        tick_lines=True,
    )
    outcome = asyncio.run(simulation.run())
    if outcome != "finished":
        raise RuntimeError(f"{folder}: the run stopped ({outcome})")


def analyze(folders: list[Path], judge: str) -> CrsecAnalysis:
    """One mode's runs through ``normlab crsec analyze``'s own analysis (verdicts cached)."""
    return asyncio.run(analyze_runs(load_runs(folders), model_client({"judge": judge}), judge))


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def run_metrics(run: RunResult) -> dict[str, float | None]:
    """One run's Figure 2 metrics as numbers (None: an emergence that never happened)."""
    values: dict[str, float | None] = {}
    for key, name in COUNT_METRICS.items():
        values[name] = _mean([float(getattr(hour, key)) for hour in run.counts])
    for target, final in run.final.items():
        for measure in MEASURES:
            curve = [getattr(hour, measure)[target] for hour in run.hours]
            values[f"{target}: {SHARE_NAMES[measure]}, mean over hours"] = _mean(curve)
            values[f"{target}: {SHARE_NAMES[measure]}, at the end"] = final[measure]
        for measure in EMERGENCE_MEASURES:
            hour = getattr(run.emergence[target], measure)
            values[f"{target}: {SHARE_NAMES[measure]} > 70%, hour"] = (
                None if hour is None else float(hour)
            )
    values["agent calls per run"] = float(run.usage.calls)
    return values


def _qualified(run: RunResult) -> dict[str, list[str]]:
    return {
        agent: [norm["content"] for norm in norms if norm["activated"] and norm["valid"]]
        for agent, norms in run.norm_databases.items()
    }


def database_metrics(run: RunResult) -> dict[str, float | None]:
    """One run's final norm databases: qualified norms and all entries, per agent."""
    agents = max(1, len(run.norm_databases))
    return {
        "qualified norms per agent": sum(map(len, _qualified(run).values())) / agents,
        "entries per agent (with rejected and folded)": (
            sum(map(len, run.norm_databases.values())) / agents
        ),
    }


def holding_cells(run: RunResult, judge: str) -> set[tuple[str, str]]:
    """(agent, norm at stake) pairs the agent holds at the end, from the run's judge cache."""
    matches = cached_matches(Path(run.folder), judge)
    return {
        (agent, target)
        for agent, contents in _qualified(run).items()
        for content in contents
        for target in matches.get(content, [])
    }


def overlap(default: RunResult, faithful: RunResult, judge: str) -> dict[str, float | None]:
    """What one seed's two final databases share: the same qualified norms (same words, as
    the duplicate pre-check compares them: Jaccard over (agent, norm) pairs), and the
    (agent, norm at stake) cells both modes agree on holding or not."""
    words = [
        {
            (agent, normalized(content))
            for agent, contents in _qualified(run).items()
            for content in contents
        }
        for run in (default, faithful)
    ]
    union = words[0] | words[1]
    cells = [holding_cells(run, judge) for run in (default, faithful)]
    targets = list(default.final)
    agents = list(default.norm_databases)
    every = [(agent, target) for agent in agents for target in targets]
    agree = [(cell in cells[0]) == (cell in cells[1]) for cell in every]
    return {
        "same qualified norms (Jaccard, same words)": (
            len(words[0] & words[1]) / len(union) if union else None
        ),
        "final holding agrees (agent × norm cells)": (sum(agree) / len(agree) if agree else None),
    }


def unit(name: str) -> str:
    """How a metric reads: ``share`` (a fraction, printed in %), ``hour`` or ``count``."""
    if name.endswith("> 70%, hour"):
        return "hour"
    if name.endswith((", mean over hours", ", at the end")) or name.endswith("cells)"):
        return "share"
    if name.startswith("same qualified norms"):
        return "share"
    return "count"


def _estimate(values: Sequence[float | None]) -> Estimate:
    return Estimate.mean_of([value for value in values if value is not None])


def compare(runs: dict[str, list[RunResult]], judge: str, seeds: list[int]) -> list[dict[str, Any]]:
    """Per metric: each mode's mean over seeds with its interval, and the paired difference
    faithful − default over the seeds where both have a value."""
    per_run = {
        mode: [run_metrics(run) | database_metrics(run) for run in runs[mode]] for mode in MODES
    }
    rows = []
    for name in per_run["default"][0]:
        values = {mode: [metrics[name] for metrics in per_run[mode]] for mode in MODES}
        pairs = [
            (faithful, default)
            for default, faithful in zip(values["default"], values["faithful"], strict=True)
            if default is not None and faithful is not None
        ]
        rows.append(
            {
                "metric": name,
                "unit": unit(name),
                "per_seed": {
                    mode: dict(zip(map(str, seeds), values[mode], strict=True)) for mode in MODES
                },
                "default": _estimate(values["default"]).model_dump(),
                "faithful": _estimate(values["faithful"]).model_dump(),
                "reached": {mode: sum(v is not None for v in values[mode]) for mode in MODES},
                "difference": Estimate.paired_delta(
                    [f for f, _ in pairs], [d for _, d in pairs]
                ).model_dump(),
            }
        )
    shared = [
        overlap(default, faithful, judge)
        for default, faithful in zip(runs["default"], runs["faithful"], strict=True)
    ]
    for name in shared[0]:
        values_shared = [item[name] for item in shared]
        rows.append(
            {
                "metric": name,
                "unit": unit(name),
                "per_seed": {"both": dict(zip(map(str, seeds), values_shared, strict=True))},
                "both": _estimate(values_shared).model_dump(),
            }
        )
    return rows


def curves(analysis: CrsecAnalysis) -> dict[str, Any]:
    """One mode's per-hour curves: the mean over seeds and the min–max band."""
    (group,) = analysis.groups
    return {
        "hours": group.hours,
        "counts": {key: [band.model_dump() for band in group.counts[key]] for key in COUNT_METRICS},
        "shares": {
            measure: {
                target: [band.model_dump() for band in bands]
                for target, bands in group.series[measure].items()
            }
            for measure in MEASURES
        },
    }


def compare_modes(folder: Path, setup: Setup) -> dict[str, Any]:
    """Run both modes for every seed in ``folder``, analyze them, compare them."""
    started = time.perf_counter()
    folders = {mode: [folder / mode / f"seed-{seed}" for seed in setup.seeds] for mode in MODES}
    seconds: dict[str, float] = {}
    for mode in MODES:
        began = time.perf_counter()
        for seed, run_folder in zip(setup.seeds, folders[mode], strict=True):
            simulate(run_folder, setup, seed, faithful=mode == "faithful")
        seconds[f"simulate {mode}"] = round(time.perf_counter() - began, 1)
    judge = setup.models["judge"]
    analyses: dict[str, CrsecAnalysis] = {}
    for mode in MODES:
        began = time.perf_counter()
        setup.progress(f"{mode}: analyzing {len(folders[mode])} run(s) with {judge}")
        analyses[mode] = analyze(folders[mode], judge)
        seconds[f"analyze {mode}"] = round(time.perf_counter() - began, 1)
    runs = {mode: analyses[mode].runs for mode in MODES}
    config = RunDir(folders["default"][0]).config()
    seconds["total"] = round(time.perf_counter() - started, 1)
    return {
        "setup": {
            "models": setup.models,
            "seeds": setup.seeds,
            "society": config.society.name,
            "agents": [agent.name for agent in config.society.agents],
            "days": config.society.days,
            "active_hours": list(config.society.active_hours),
            "tick_minutes": config.society.tick_minutes,
            "max_utterances": {
                mode: RunDir(folders[mode][0]).config().max_utterances for mode in MODES
            },
        },
        "rows": compare(runs, judge, setup.seeds),
        "curves": {mode: curves(analyses[mode]) for mode in MODES},
        "parse_failures": {
            mode: [run.usage.parse_failures for run in runs[mode]] for mode in MODES
        },
        "judge_failures": {mode: [run.judge_failures for run in runs[mode]] for mode in MODES},
        "seconds": seconds,
    }


def _cell(estimate: dict[str, Any], percent: bool, signed: bool = False) -> str:
    """``66.7 [33.3, 100.0]``: the value and its interval (× 100 for a share); – if none."""
    value, (low, high) = estimate["value"], estimate["ci"]
    if value is None:
        return "–"
    scale, sign = (100.0 if percent else 1.0), ("+" if signed else "")
    text = f"{scale * value:{sign}.1f}"
    if low is not None and high is not None:
        text += f" [{scale * low:{sign}.1f}, {scale * high:{sign}.1f}]"
    return text


def table(summary: dict[str, Any]) -> str:
    """The comparison as a Markdown table (shares in %, their differences in percentage
    points; emergence hours with the seeds that got there)."""
    seeds = len(summary["setup"]["seeds"])
    lines = [
        "| metric | default | `--faithful` | faithful − default |",
        "|---|---|---|---|",
    ]
    for row in summary["rows"]:
        percent = row["unit"] == "share"
        name = row["metric"] + (" (%)" if percent else "")
        if "both" in row:
            lines.append(
                f"| {name} | {_cell(row['both'], percent)} (n={row['both']['n']}) "
                "| (seed by seed, the two modes) | |"
            )
            continue
        cells = [_cell(row[mode], percent) for mode in MODES]
        if row["unit"] == "hour":
            cells = [
                f"{cell} ({row['reached'][mode]} of {seeds})"
                for cell, mode in zip(cells, MODES, strict=True)
            ]
        difference = _cell(row["difference"], percent, signed=True)
        if percent and difference != "–":
            difference += " pp"
        lines.append(
            f"| {name} | {cells[0]} | {cells[1]} | {difference} (n={row['difference']['n']}) |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--model", default=DEFAULT_MODEL, help="Every agent's model.")
    parser.add_argument("--judge", default=None, help="The metrics' judge (default: --model).")
    parser.add_argument("--seeds", type=int, default=3, help="Seeds (runs per mode).")
    parser.add_argument("--seed", type=int, default=0, help="The first seed.")
    parser.add_argument("--society", type=Path, default=HOBBS_CAFE)
    parser.add_argument("--agents", default=DEFAULT_AGENTS, help='Names; "" for every agent.')
    parser.add_argument("--hours", default="9-11", help="Active hours START-END.")
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--tick-minutes", type=int, default=30)
    parser.add_argument("--keep", type=Path, default=None, help="Keep (and reuse) runs here.")
    arguments = parser.parse_args()
    setup = Setup(
        models={"agent": arguments.model, "judge": arguments.judge or arguments.model},
        seeds=list(range(arguments.seed, arguments.seed + arguments.seeds)),
        society=arguments.society,
        agents=arguments.agents,
        hours=arguments.hours,
        days=arguments.days,
        tick_minutes=arguments.tick_minutes,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    if arguments.keep is not None:
        summary = compare_modes(arguments.keep, setup)
    else:
        with tempfile.TemporaryDirectory(prefix="crsec-modes-") as scratch:
            summary = compare_modes(Path(scratch), setup)
    print(table(summary))
    print(f"\n{json.dumps(summary['setup'])}\nseconds: {json.dumps(summary['seconds'])}")
    if arguments.out:
        arguments.out.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
