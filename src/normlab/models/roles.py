"""Model roles: which model plays the subject, the judge, a persona…

Every role defaults to the embedded model, so a run with no model named is
fully offline. Any Inspect model string works for any role.
"""

from __future__ import annotations

from normlab.core.errors import InputError
from normlab.models.embedded import EMBEDDED_MODEL

DEFAULT_MODEL = EMBEDDED_MODEL


def parse_role_assignments(assignments: list[str]) -> dict[str, str]:
    """Parse ``--role NAME=MODEL`` options into a mapping; reject malformed ones."""
    roles: dict[str, str] = {}
    for assignment in assignments:
        name, separator, model = assignment.partition("=")
        if not separator or not name.strip() or not model.strip():
            raise InputError("--role", f"expected NAME=MODEL, got {assignment!r}", field="role")
        roles[name.strip()] = model.strip()
    return roles


def is_embedded(model: str | None) -> bool:
    """True when ``model`` names the embedded provider (or defaults to it)."""
    return model is None or model.startswith("embedded/")
