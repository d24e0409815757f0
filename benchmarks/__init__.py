"""Benchmark scripts: each measures one number an issue names (time, calls, tokens)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def emit(summary: dict[str, Any], out: Path | None) -> None:
    """Print a benchmark's JSON summary, and write it to ``out`` when given."""
    text = json.dumps(summary, indent=2)
    print(text)
    if out:
        out.write_text(text + "\n")
