"""Coverage of the sequential run's confidence sequences under optional stopping, against the
fixed-n Wilson interval, and the units a sequential run saves on the shipped banks (issue 35,
part 1).

    python -m benchmarks.sequential_coverage [--studies 1000] [--out F]

Coverage: ``--studies`` simulated studies of independent 0/1 units at a known rate (0.1, 0.5,
0.9), looked at after every unit, for n = 46 (LoSoNA's bank) and n = 477 (HSII's cases, as if
independent). For each interval, the share of studies it covers at *every* look (what
coverage at any stopping time needs: a stop may be chosen at the first look that misses, as
"stop once the interval excludes the other subject's value" does), and the share it covers at
the stop of ``--until-halfwidth 0.10`` (looks after every 10 units). The hedged capital
sequence (``normlab.stats.sequences``) against the Wilson interval over the units so far.

Saving: the shipped banks in the units a sequential run takes (``normlab.study.sequential``'s
order: LoSoNA's 46 scenarios, SCENE's 28 scenarios of 5 episodes, HSII's 64 dialogues of its
477 cases), simulated at rates 0.1, 0.5 and 0.9 (SCENE: the repair rate, 0.547 sanctions per
episode; HSII: every stage at the rate, ι on 0–3) as ``normlab.study.sequential.sim`` draws
them, looked at after every batch of 4 units, stopped at a half-width of 0.05 and 0.10 on the
headline's own scale: the mean units run, the share saved, and the sequence's coverage at the
stop (of the true headline). And ``--until-decided`` on LoSoNA's 46 scenarios for two
subjects at known rates: how often the pair is decided, the units run, the share saved.
"""

from __future__ import annotations

from pathlib import Path
from typing import Never

import numpy as np

from benchmarks import command, emit
from normlab.runs.statistics import HeadlineStats
from normlab.stats import confidence_sequence, wilson_interval
from normlab.study.schema import Subject
from normlab.study.sequential import batched, build_order, sizes
from normlab.study.sequential.sim import sequences, units_at_stop
from normlab.study.systems import Cell

RATES = (0.1, 0.5, 0.9)
LENGTHS = (46, 477)
HALFWIDTHS = (0.05, 0.10)
SAVING_BATCH = 4


def _wilson_bounds(units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts = units.cumsum(axis=1).astype(int)
    lower = np.empty(units.shape)
    upper = np.empty(units.shape)
    for study, row in enumerate(counts):
        for index, k in enumerate(row):
            lower[study, index], upper[study, index] = wilson_interval(int(k), index + 1)
    return lower, upper


def coverage_rows(studies: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    rng = np.random.default_rng(35)
    for n in LENGTHS:
        for rate in RATES:
            units = (rng.random((studies, n)) < rate).astype(float)
            found = {}
            for name, (lower, upper) in (
                ("sequence", confidence_sequence(units)),
                ("wilson", _wilson_bounds(units)),
            ):
                covers = (lower <= rate) & (rate <= upper)
                run = units_at_stop(lower, upper, 0.10, 10)
                at_stop = covers[np.arange(studies), run - 1].mean()
                found[name] = (covers.all(axis=1).mean(), at_stop, run.mean())
            rows.append(
                {
                    "n": n,
                    "rate": rate,
                    "sequence_every_look": round(float(found["sequence"][0]), 4),
                    "wilson_every_look": round(float(found["wilson"][0]), 4),
                    "sequence_at_stop_0.10": round(float(found["sequence"][1]), 4),
                    "wilson_at_stop_0.10": round(float(found["wilson"][1]), 4),
                    "sequence_units_at_stop": round(float(found["sequence"][2]), 1),
                    "wilson_units_at_stop": round(float(found["wilson"][2]), 1),
                }
            )
    return rows


def shipped_orders() -> dict[str, tuple[HeadlineStats[Never, Never], list[float], float]]:
    """Each bank's units as a sequential run orders them: how a unit is drawn, sizes and the
    denominators' bound."""
    subject = Subject(name="s", model="scripted/none.json")
    found = {}
    for system, options in (
        ("losona", {}),
        ("scene", {"reps": 5}),
        ("hsii", {}),
    ):
        cell = Cell(system, subject, "scripted/none.json", {}, options, Path("."))
        order = build_order(cell, 0)
        described = batched(system)
        assert described is not None
        found[system] = (described, sizes(order), order.bound)
    return found


def saving_rows(studies: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    rng = np.random.default_rng(36)
    for system, (described, units, bound) in shipped_orders().items():
        for rate in RATES:
            assumed = described.assumed(rate=rate)
            found = described.simulate(rng, units, assumed, bound, studies)
            lower, upper = sequences(found)
            truth = described.true_value(assumed)
            covers = (lower <= truth) & (truth <= upper)
            for halfwidth in HALFWIDTHS:
                run = units_at_stop(lower, upper, halfwidth, SAVING_BATCH)
                rows.append(
                    {
                        "system": system,
                        "units": len(units),
                        "rate": rate,
                        "halfwidth": halfwidth,
                        "mean_units_run": round(float(run.mean()), 1),
                        "saved": round(float(1 - run.mean() / len(units)), 3),
                        "coverage_at_stop": round(
                            float(covers[np.arange(studies), run - 1].mean()), 4
                        ),
                    }
                )
    return rows


DECIDED_PAIRS = ((0.5, 0.5), (0.5, 0.7), (0.5, 0.9), (0.1, 0.5))


def decided_rows(studies: int) -> list[dict[str, object]]:
    """``--until-decided`` on LoSoNA's 46 scenarios: two subjects at known rates, independent
    on each scenario; the paired difference's sequence looked at after every 4 scenarios,
    stopped once it excludes 0. Equal rates: the share of studies falsely decided."""
    rows: list[dict[str, object]] = []
    rng = np.random.default_rng(37)
    n = 46
    for first, second in DECIDED_PAIRS:
        a = (rng.random((studies, n)) < first).astype(float)
        b = (rng.random((studies, n)) < second).astype(float)
        lower, upper = confidence_sequence((a - b + 1) / 2)
        looks = [*range(SAVING_BATCH, n, SAVING_BATCH), n]
        decided = np.zeros(studies, dtype=bool)
        run = np.full(studies, n)
        for t in looks:
            now = ~decided & ((lower[:, t - 1] > 0.5) | (upper[:, t - 1] < 0.5))
            run[now] = t
            decided |= now
        rows.append(
            {
                "rates": f"{first} vs {second}",
                "decided": round(float(decided.mean()), 4),
                "mean_units_run": round(float(run.mean()), 1),
                "saved": round(float(1 - run.mean() / n), 3),
            }
        )
    return rows


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--studies", type=int, default=1000)
    args = parser.parse_args()
    emit(
        {
            "studies": args.studies,
            "coverage": coverage_rows(args.studies),
            "saving": saving_rows(args.studies),
            "decided": decided_rows(args.studies),
        },
        args.out,
    )


if __name__ == "__main__":
    main()
