"""Benchmark scripts: each measures one number an issue names (time, calls, tokens)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def command(doc: str | None) -> argparse.ArgumentParser:
    """A benchmark's command line: its docstring's first paragraph as the description, and
    ``--out FILE``, where every benchmark also writes the JSON summary it prints (``emit``)."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None, help="Also write the JSON here.")
    return parser


def emit(summary: dict[str, Any], out: Path | None) -> None:
    """Print a benchmark's JSON summary, and write it to ``out`` when given."""
    text = json.dumps(summary, indent=2)
    print(text)
    if out:
        out.write_text(text + "\n")
