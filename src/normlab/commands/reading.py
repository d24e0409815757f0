"""``analyze`` and ``report``, the same two commands for every benchmark.

Light at import, as every command module is: the benchmark (its loader, analysis and
report, which import Inspect and matplotlib) is asked for when a command runs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from normlab.commands.console import note, reports_errors
from normlab.commands.options import JsonOption, OutOption, PathsArgument
from normlab.core.outputs import output_folder
from normlab.core.storage import log_paths

if TYPE_CHECKING:
    from normlab.commands.benchmark import Benchmark


def add_read_commands(app: typer.Typer, benchmark: Callable[[], Benchmark[Any, Any]]) -> None:
    """``analyze`` and ``report`` for the benchmark ``benchmark()`` returns (a system with
    scoring options of its own writes these two itself around
    :func:`~normlab.commands.benchmark.emit`)."""

    @app.command("analyze")
    @reports_errors
    def analyze(paths: PathsArgument, as_json: JsonOption = False) -> None:
        """Compute the benchmark's metrics, with n and 95% intervals, from logs or records."""
        from normlab.commands.benchmark import analyze_and_emit, load_some

        bench = benchmark()
        analyze_and_emit(bench, load_some(bench, log_paths(paths)), as_json)

    @app.command("report")
    @reports_errors
    def report(paths: PathsArgument, out: OutOption = Path(".")) -> None:
        """Write report.html: the paper's figures and tables, usage and cost, sample transcripts."""
        from normlab.commands.benchmark import load_some

        bench = benchmark()
        output_folder(out, "--out")
        loaded = load_some(bench, log_paths(paths))
        path = bench.write_report(loaded, bench.analyze(loaded), out)
        note(f"report: {path.resolve()}")
