"""``analyze`` and ``report``, the same two commands for every benchmark, and ``import`` of
people's labels for every human check of a judge.

Light at import, as every command module is: the benchmark (its loader, analysis and
report, which import Inspect and matplotlib) is asked for when a command runs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from normlab.commands.options import JsonOption, OutOption, PathsArgument
from normlab.core.csvio import key_path_for
from normlab.core.outputs import apart_from_inputs, output_folder
from normlab.core.storage import log_paths
from normlab.runs.console import note, print_json, reports_errors

if TYPE_CHECKING:
    from normlab.runs.benchmark import Benchmark


def add_read_commands(app: typer.Typer, benchmark: Callable[[], Benchmark[Any, Any]]) -> None:
    """``analyze`` and ``report`` for the benchmark ``benchmark()`` returns (a system with
    scoring options of its own writes these two itself around
    [`emit`][normlab.runs.emit])."""

    @app.command("analyze")
    @reports_errors
    def analyze(paths: PathsArgument, as_json: JsonOption = False) -> None:
        """Compute the benchmark's metrics, with n and 95% intervals, from logs or records."""
        from normlab.runs.benchmark import analyze_and_emit, load_some

        bench = benchmark()
        analyze_and_emit(bench, load_some(bench, log_paths(paths)), as_json)

    @app.command("report")
    @reports_errors
    def report(paths: PathsArgument, out: OutOption = Path(".")) -> None:
        """Write report.html: the paper's figures and tables, usage and cost, sample transcripts."""
        from normlab.runs.benchmark import load_some

        bench = benchmark()
        output_folder(out, "--out")
        loaded = load_some(bench, log_paths(paths))
        path = bench.write_report(loaded, bench.analyze(loaded), out)
        note(f"report: {path.resolve()}")


KeyOption = Annotated[Path | None, typer.Option(help="Key file (default: beside the CSV).")]


def export_logs(paths: list[str], out: Path, *read: Path | None) -> list[Path]:
    """The logs a human check's ``export`` samples (and any other file it ``read``s), once the
    CSV and its key are known to go neither onto one of them nor into a log folder, where the
    key file would be read back as records."""
    logs = log_paths(paths)
    apart_from_inputs(out, [*logs, *read], also=[key_path_for(out)])
    return logs


def import_command(
    app: typer.Typer, reader: str, csv_help: str
) -> Callable[[Callable[[Any], None]], Callable[[Any], None]]:
    """Decorate how a result is shown to add ``import CSV [--key FILE] [--json]``: read
    people's answers to an audit or grading CSV with ``reader`` (``module:function``, imported
    when the command runs, taking the CSV and the key file) and print the result, as JSON
    only or in the decorated function's lines; its docstring is the command's help."""

    def add(show: Callable[[Any], None]) -> Callable[[Any], None]:
        def import_answers(
            csv_path: Path, key: KeyOption = None, as_json: JsonOption = False
        ) -> None:
            from normlab.commands.running import imported

            result = cast(Callable[[Path, Path | None], Any], imported(reader))(csv_path, key)
            if as_json:
                print_json(result)
            else:
                show(result)

        # Declared here, not in the signature: annotations are text until typer reads them in
        # this module's namespace, which has no ``csv_help``.
        import_answers.__annotations__["csv_path"] = Annotated[Path, typer.Argument(help=csv_help)]
        app.command("import", help=show.__doc__)(reports_errors(import_answers))
        return show

    return add


def agreement_said(who: str, judges: list[str], agreement: Any, unlabelled: int, done: str) -> str:
    """The sentence every audit's ``import`` opens with: people against the models, their
    agreement with its interval, how many were ``done`` (labelled, answered) and left blank."""
    from normlab.report import format_agreement

    return (
        f"human vs {who} ({', '.join(judges)}): agreement {format_agreement(agreement)}, "
        f"n = {agreement.n} {done} ({unlabelled} left blank)"
    )
