"""Model roles: which model plays the subject, the judge, a persona…

Every role defaults to the embedded model, so a run with no model named is
fully offline. Any Inspect model string works for any role.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from normlab.core.errors import InputError

EMBEDDED_MODEL = "embedded/qwen2.5-coder-0.5b"
"""The embedded default (``normlab.models.embedded``), named here so that naming it costs no
import of Inspect or llama.cpp."""

DEFAULT_MODEL = EMBEDDED_MODEL
"""The model of every role the user names none for: the embedded one, so that a command runs
offline with no key; a 0.5B model proves plumbing, never a finding."""

NORM_MEMORY_ROLE = "norm_memory"
"""The model role of the norm-learning agent's own calls (identify, evaluate): bound to the
subject model unless ``--role norm_memory=M`` says otherwise, and counted apart in the usage
tables. Named here, below the agents, so every command can accept it."""


def parse_assignments(items: Iterable[str], name: str) -> dict[str, str]:
    """``["judge=M", "persona=P"]`` → ``{"judge": "M", "persona": "P"}``; malformed items raise."""
    result: dict[str, str] = {}
    option = f"--{name}".replace("_", "-")
    for item in items:
        role, separator, value = item.partition("=")
        if not separator or not role.strip() or not value.strip():
            raise InputError(option, f"expected ROLE=VALUE, got {item!r}", field=name)
        result[role.strip()] = value.strip()
    return result


def parse_role_assignments(assignments: list[str]) -> dict[str, str]:
    """Parse ``--role NAME=MODEL`` options into a mapping; reject malformed ones."""
    return parse_assignments(assignments, "role")


def is_embedded(model: str | None) -> bool:
    """True when ``model`` names the embedded provider (or defaults to it)."""
    return model is None or model.startswith("embedded/")


def bind_roles(
    system_roles: Sequence[str], judge: str | None, assignments: list[str] | None
) -> dict[str, str]:
    """Every role of the system bound to a model: ``--role`` or ``--judge``, else embedded.

    A role the system does not have (``--role juge=M``) is an error, not a binding nobody
    reads while the judge stays on the default; so is naming the judge twice, differently.
    """
    roles = {name: DEFAULT_MODEL for name in system_roles}
    given = parse_role_assignments(assignments or [])
    known = (*system_roles, NORM_MEMORY_ROLE)
    for name in given:
        if name not in known:
            raise InputError(
                "--role", f"unknown role {name!r}; roles: {', '.join(known)}", field="role"
            )
    if judge and given.get("judge", judge) != judge:
        raise InputError(
            "--judge",
            f"--judge {judge} and --role judge={given['judge']} name two judges: keep one",
            field="judge",
        )
    roles.update(given)
    if judge:
        roles["judge"] = judge
    return roles
