"""A finished run's logs judged again by another model, without running the subject again.

Inspect's ``score`` runs a scorer over a log's samples; a system whose judge is a scorer
(LoSoNA's ``norm_judge``, SCENE's ``episode_judge``, HSII's ``hsii_stages``) is judged again by
binding its ``judge`` role to the other model. The copy is written beside, never over, the
original: ``losona rescore`` appends the second judge's score, a study's second judge
(``normlab.study.judges``) overwrites it in a copy whose header names that judge, so the
system's own loader reads the copy as the run judged by the other model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from normlab.core.logs import model_name, read_log, read_samples
from normlab.core.outputs import built_whole
from normlab.runs.console import stdout_to_stderr

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog
    from inspect_ai.scorer import Scorer

RESCORED_SUFFIX = ".rescored.eval"
"""What a log judged again is named: ``STEM.rescored.eval`` (a study's second judge),
``STEM.JUDGE-ADDENDA.rescored.eval`` (``losona rescore``)."""


def score_again(
    original: EvalLog,
    scorer: Scorer,
    judge: str,
    bound: Mapping[str, str],
    action: Literal["append", "overwrite"],
) -> EvalLog:
    """``original`` scored again by ``scorer`` with ``bound`` roles (``judge`` among them) and
    ``judge`` as the eval model. Inspect's ``score`` builds every role a log's header names:
    without them it builds only the models bound here (not the subject's or the personas',
    whose SDKs, keys and endpoints judging again does not need); the copy gets the header's
    roles back, the caller saying which judge it names."""
    from inspect_ai import score

    roles = original.eval.model_roles
    original.eval.model_roles = None
    with stdout_to_stderr():
        rescored = score(
            original,
            scorer,
            action=action,
            model=judge,
            model_roles=dict(bound),
            display="none",
        )
    rescored.eval.model_roles = roles
    return rescored


def contributing_logs(logs: Path) -> list[Path]:
    """The logs whose samples the system's loader counts (a killed run's partial log beside
    the one that resumed it adds nothing and is not judged again)."""
    found = read_samples(sorted(logs.rglob("*.eval")))
    return sorted({item.path for item in found.samples})


def rescore_logs(
    logs: Path,
    judge: str,
    folder: Path,
    scorer: Callable[..., Scorer],
    scorer_name: str,
    keep_roles: Sequence[str] = (),
) -> None:
    """Each contributing log under ``logs`` scored again by the system's scorer (``scorer``,
    called with the options its log recorded) with ``judge`` in the judge role, overwriting the
    scores in a copy written to ``folder`` whose header names ``judge``; the roles in
    ``keep_roles`` stay bound to the run's own models (SCENE's fidelity auditor). A log whose
    copy exists is not judged again."""
    from inspect_ai.log import write_eval_log
    from inspect_ai.model import ModelConfig

    folder.mkdir(parents=True, exist_ok=True)
    for path in contributing_logs(logs):
        target = folder / f"{path.stem}{RESCORED_SUFFIX}"
        if target.exists():
            continue
        original = read_log(path)
        spec = next(s for s in original.eval.scorers or [] if s.name.endswith(scorer_name))
        roles = dict(original.eval.model_roles or {})
        bound = {"judge": judge, **{r: model_name(roles[r]) for r in keep_roles if r in roles}}
        rescored = score_again(original, scorer(**(spec.options or {})), judge, bound, "overwrite")
        rescored.eval.model_roles = {**roles, "judge": ModelConfig(model=judge)}
        # Whole or not at all (a kill mid-write leaves nothing the loader reads): a rerun
        # skips a log whose copy exists.
        with built_whole(target) as written:
            write_eval_log(rescored, str(written))


def rescored_folder(folder: Path) -> list[Path]:
    """``[folder]`` once it holds a log judged again, else none (the loader's input)."""
    return [folder] if folder.is_dir() and any(folder.glob(f"*{RESCORED_SUFFIX}")) else []
