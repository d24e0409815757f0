"""What every ``normlab`` command shares: output conventions, options, the benchmark factory
(``run``, ``analyze``, ``report``).

Above the shared ground (core, models, stats, report) and below the systems:
each system's ``cli.py`` builds its commands from these pieces.
"""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.commands.benchmark import (
        Benchmark,
        RunOptions,
        TaskRun,
        emit,
        finish_run,
        load_some,
    )
    from normlab.commands.console import (
        note,
        print_json,
        print_table,
        report_findings,
        reports_errors,
        say,
        stdout_to_stderr,
    )
    from normlab.commands.folders import default_log_dir
    from normlab.commands.generation import write_generated
    from normlab.commands.options import (
        AgentOption,
        JsonOption,
        JudgeOption,
        LogDirOption,
        LogLocationOption,
        MaxConnectionsOption,
        MaxTokensOption,
        ModelOption,
        OutOption,
        PathsArgument,
        ReasoningEffortOption,
        ReportDirOption,
        RoleOption,
        ShardOption,
        role_settings,
        shared_options,
    )
    from normlab.commands.reading import add_read_commands
    from normlab.commands.running import Flag, RunCommand, add_run_command
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "AgentOption",
    "Benchmark",
    "Flag",
    "JsonOption",
    "JudgeOption",
    "LogDirOption",
    "LogLocationOption",
    "MaxConnectionsOption",
    "MaxTokensOption",
    "ModelOption",
    "OutOption",
    "PathsArgument",
    "ReasoningEffortOption",
    "ReportDirOption",
    "RoleOption",
    "RunCommand",
    "RunOptions",
    "ShardOption",
    "TaskRun",
    "add_read_commands",
    "add_run_command",
    "default_log_dir",
    "emit",
    "finish_run",
    "load_some",
    "note",
    "print_json",
    "print_table",
    "report_findings",
    "reports_errors",
    "role_settings",
    "say",
    "shared_options",
    "stdout_to_stderr",
    "write_generated",
]
