"""The paid example's SCENE cell against the paper's printed cost (issue 35, item 0.3).

    python -m benchmarks.study_cost [--reps 1] [--out F]

``study plan`` counts a cell's calls and tokens on a dry run whose every model is a busy
script. Its SCENE script (``examples/busy/busy-scene.json``) is meant to behave like a model of
the paper: personas who speak about half the time, a subject that writes a considered reply,
the four-list judge and the auditor. Here the paid example's SCENE cell (Claude Opus 4.7 as the
subject, Gemini 3 Flash in every other role, at the study file's prices) is dry-run on the
shipped bank, and per episode set against what SCENE §6 prints for its 6,000 episodes (the
rows of ``paper_numbers.json``): 386,829 calls, 712M input and 44M output tokens, $966, of
which Claude Opus 4.7's 1,000 episodes $349 and the Gemini 3 Flash roles $266.

The plan's words are turned into tokens by ``TOKENS_PER_WORD``; its dollars at those tokens are
a floor for a subject that reasons before it answers (the paper's Gemini 3.1 Pro: $286 for
1,000 episodes, about 1,000 output tokens per subject call at its list price).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks import command, emit
from normlab.study.papers import paper_numbers
from normlab.study.pilot import rate_for
from normlab.study.plan import (
    TOKENS_PER_WORD,
    CellPlan,
    corrected,
    dry_models,
    dry_run,
    plan_cell,
    price_of,
)
from normlab.study.power import Sizing
from normlab.study.schema import load_study
from normlab.study.systems import cells

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "study.yaml"
SUBJECT = "claude-opus-4-7"


def scene_cell(reps: int = 1) -> tuple[CellPlan, int]:
    """The paid example's SCENE cell for Claude Opus 4.7, planned at ``reps`` repetitions,
    and its episodes."""
    study = load_study(EXAMPLE)
    spec = study.systems["scene"]
    spec = spec.model_copy(update={"options": {**spec.options, "reps": reps}})
    study = study.model_copy(update={"systems": {"scene": spec}})
    cell = next(c for c in cells(study) if c.subject.name == SUBJECT)
    model, roles = dry_models(cell, study)
    counted = dry_run(cell, model, roles, study.max_connections)
    assumed = rate_for(None, "scene", SUBJECT, 0.5)
    plan = plan_cell(cell, counted, study, 2.0, assumed, Sizing(0.05))
    return plan, plan.samples


def printed(metric: str, model: str = "all") -> float:
    """SCENE §6's printed number (``paper_numbers.json``)."""
    for row in paper_numbers().printed:
        if row.system == "scene" and row.metric == metric and row.model.startswith(model):
            return row.value
    raise KeyError(metric)


def compare(plan: CellPlan, episodes: int) -> dict[str, Any]:
    """Per episode and per call: the plan's (words corrected to tokens) beside the paper's."""
    study = load_study(EXAMPLE)
    paper_episodes = 6000
    calls = plan.calls
    tokens_in = plan.input_tokens * TOKENS_PER_WORD["input"]
    tokens_out = plan.output_tokens * TOKENS_PER_WORD["output"]
    subject = plan.roles["subject"]
    others = [role for name, role in plan.roles.items() if name != "subject"]
    subject_cost = corrected(subject, price_of(subject.model, study.prices)) or 0.0
    others_cost = sum(corrected(r, price_of(r.model, study.prices)) or 0.0 for r in others)
    rows = {
        "calls per episode": (calls / episodes, printed("calls") / paper_episodes),
        "input tokens per call": (tokens_in / calls, printed("input tokens") / printed("calls")),
        "output tokens per call": (
            tokens_out / calls,
            printed("output tokens") / printed("calls"),
        ),
        "Claude Opus 4.7 (subject) $ per episode": (
            subject_cost / episodes,
            printed("cost (USD)", "Claude Opus 4.7") / 1000,
        ),
        "Gemini 3 Flash roles $ per episode": (
            others_cost / episodes,
            printed("cost (USD)", "Gemini 3 Flash") / paper_episodes,
        ),
    }
    return {
        name: {"plan": round(ours, 4), "paper": round(theirs, 4), "ratio": round(ours / theirs, 3)}
        for name, (ours, theirs) in rows.items()
    }


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--reps", type=int, default=1)
    args = parser.parse_args()
    plan, episodes = scene_cell(args.reps)
    emit(
        {"episodes": episodes, "tokens_per_word": TOKENS_PER_WORD, **compare(plan, episodes)},
        args.out,
    )


if __name__ == "__main__":
    main()
