"""Finding Inspect logs: the paths a user names, and the logs inside folders they name."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from normlab.core.errors import InputError


def local_path(location: str) -> Path:
    """A filesystem path from an Inspect log location (``file://…``, ``file:…`` or plain)."""
    for prefix in ("file://", "file:"):
        if location.startswith(prefix):
            return Path(location.removeprefix(prefix))
    return Path(location)


def logs_in_folder(folder: Path) -> list[Path]:
    """Inspect logs (found by Inspect itself, skipping eval-set bookkeeping) and JSONL files."""
    from inspect_ai.log import list_eval_logs

    logs = [local_path(info.name) for info in list_eval_logs(str(folder))]
    return sorted(logs) + sorted(folder.rglob("*.jsonl"))


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files named, plus the logs and JSONL files inside folders named."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(logs_in_folder(path))
        elif not path.exists():
            raise InputError(path, "no such file")
        else:
            files.append(path)
    return files
