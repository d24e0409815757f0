"""The command line's own pieces, typer only: options declared once, the ``run`` command built
from a task's signature and docstring, the ``analyze``/``report``/``import`` commands, the
generation commands' writer, plain help.

Above the runtime (``normlab.runs``: a run from task to report, console output) and below the
systems: each system's ``cli.py`` builds its commands from these pieces and runs through
``normlab.runs``.
"""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.commands.generation import write_generated
    from normlab.commands.options import (
        AgentOption,
        BlindCsvOption,
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
        ScenarioFilesArgument,
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
    "BlindCsvOption",
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
    "ScenarioFilesArgument",
    "ShardOption",
    "add_read_commands",
    "add_run_command",
    "role_settings",
    "shared_options",
    "write_generated",
]
