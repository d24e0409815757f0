"""The runtime every system's run uses, below the command line: a system's read side and its run
from task to report ([`Benchmark`][normlab.runs.Benchmark], [`TaskRun`][normlab.runs.TaskRun],
[`RunOptions`][normlab.runs.RunOptions]), the log folders runs default to, console output
(one-line errors, notes on stderr, tables, JSON on stdout), and the one typed description each
system gives of itself ([`SystemSpec`][normlab.runs.SystemSpec]) with what a study reads of a
cell ([`Headline`][normlab.runs.Headline]).

Above the shared ground (core, models, stats, report) and below the command line
(``normlab.commands``, typer only): a system's ``runner.py``, studies, the web app and the demo
run a system through these, never through a command.
"""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.runs.benchmark import (
        Benchmark,
        Runner,
        RunOptions,
        TaskRun,
        emit,
        finish_run,
        load_some,
        summed_usage,
    )
    from normlab.runs.console import (
        note,
        print_json,
        print_table,
        report_findings,
        reports_errors,
        say,
        stdout_to_stderr,
    )
    from normlab.runs.folders import default_log_dir, roles_line
    from normlab.runs.headline import Headline, UnitRows
    from normlab.runs.people import Play, PlayLength, Rating
    from normlab.runs.statistics import HeadlineStats, Measured, Simulated
    from normlab.runs.system import Pairing, Rejudge, System, SystemParts, SystemSpec
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "Benchmark",
    "Headline",
    "HeadlineStats",
    "Measured",
    "Pairing",
    "Play",
    "PlayLength",
    "Rating",
    "Rejudge",
    "RunOptions",
    "Runner",
    "Simulated",
    "System",
    "SystemParts",
    "SystemSpec",
    "TaskRun",
    "UnitRows",
    "default_log_dir",
    "emit",
    "finish_run",
    "load_some",
    "note",
    "print_json",
    "print_table",
    "report_findings",
    "reports_errors",
    "roles_line",
    "say",
    "stdout_to_stderr",
    "summed_usage",
]
