"""Where a run's logs go and what it says before it starts: needed by the run itself
(``normlab.runs.benchmark``, which programs and the web app call), so kept apart from
the command line's option declarations and free of typer."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from normlab.core.logs import BASE_AGENT
from normlab.core.outputs import slug
from normlab.models import DEFAULT_MODEL

MAX_FOLDER_NAME = 160


def roles_line(model: str, roles: Mapping[str, str], subject: str = "subject") -> list[str]:
    """What a run is about to use, said before it starts: one line naming every role's model,
    and a warning when the subject is another model but roles fell back to the embedded
    0.5B one (a plumbing check, never a judge), which would otherwise go unnoticed for the
    whole run."""
    lines = [
        "models: "
        + ", ".join(f"{role}={name}" for role, name in [(subject, model), *sorted(roles.items())])
    ]
    embedded = sorted(role for role, name in roles.items() if name == DEFAULT_MODEL)
    if embedded and model != DEFAULT_MODEL:
        options = ", ".join(f"--role {role}=MODEL" for role in embedded)
        lines.append(
            f"warning: {', '.join(embedded)} use the embedded 0.5B model ({DEFAULT_MODEL}), "
            f"a plumbing check, not a measurement: name them with {options}"
        )
    return lines


def default_log_dir(
    system: str, model: str, roles: Mapping[str, str], agent: str = BASE_AGENT
) -> Path:
    """``runs/SYSTEM/SUBJECT__ROLE-MODEL…``: one folder per set of models, so a rerun resumes
    it and runs with a different judge or persona never share a folder; an agent's name
    follows the subject's (``MODEL+norm-memory``), so a base run and an agent run of the same
    model never resume into each other."""
    subject = slug(model) if agent == BASE_AGENT else f"{slug(model)}+{slug(agent)}"
    name = "__".join([subject, *(f"{role}-{slug(roles[role])}" for role in sorted(roles))])
    if len(name) > MAX_FOLDER_NAME:
        digest = hashlib.sha256(name.encode()).hexdigest()[:10]
        name = f"{name[: MAX_FOLDER_NAME - 12]}__{digest}"
    return Path("runs") / system / name
