"""What each system's reader page shows: the system's own reader (``SystemParts.reader``,
built on ``normlab.runs.reader``'s rows), looked up by the log's task.

The readers show what the papers' figures and appendices show (the brief's list): LoSoNA's
chat with its demonstrations and elicitor and every condition's replies with the judge's
verdict; SCENE's episode with the labels on the turns, precedent turns set apart, and the
fidelity verdict; HSII's history with who speaks to whom and the subject's pick beside the
golden; CRSEC's replay (``normlab.crsec.analysis.replay``). Each system builds its rows in its
own ``reader.py``, so a system added touches no table here.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from inspect_ai.log import EvalLog, EvalSample

from normlab.core.errors import InputError
from normlab.core.logs import read_log
from normlab.runs.reader import Reader
from normlab.specs import parts, specs


@lru_cache(maxsize=16)
def _cached(path: str, mtime: float) -> EvalLog:
    return read_log(Path(path))


def load(path: Path) -> EvalLog:
    """A whole log, re-read only when the file changes."""
    return _cached(str(path), path.stat().st_mtime)


def load_under(root: Path, path: Path) -> EvalLog:
    """The log at ``path`` (inside the served folder ``root``); a file that is no log is a
    one-line refusal naming it relative to ``root``, as the pages name runs: never the
    server's absolute path (``/run?path=notes.txt`` showed it)."""
    try:
        return load(path)
    except InputError as error:
        raise InputError(path.relative_to(root), error.problem) from None


def system_of(log: EvalLog) -> str:
    """The system's name from the task name (``normlab/losona`` or ``losona``)."""
    return log.eval.task.split("/")[-1]


def reader_of(system: str) -> Reader | None:
    """The reader of the system named ``system``; None for another task's log."""
    for spec in specs():
        if spec.name == system:
            return parts(spec).reader
    return None


def sample_label(system: str, log: EvalLog, sample: EvalSample) -> tuple[str, str]:
    """(what the sample is, its outcome) for the run page's list."""
    reader = reader_of(system)
    if reader is not None:
        return reader.label(log, sample)
    return str(sample.id), str(next(iter((sample.scores or {}).values()), ""))
