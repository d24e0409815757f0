"""Shared options: the line that names every role's model before a run, and its warning."""

from __future__ import annotations

from normlab.commands.options import bind_roles, roles_line
from normlab.models.roles import DEFAULT_MODEL


def test_a_run_names_every_roles_model_before_it_starts() -> None:
    roles = bind_roles(("judge", "persona"), "openai/j", None)
    assert roles_line("openai/s", roles)[0] == (
        f"models: subject=openai/s, judge=openai/j, persona={DEFAULT_MODEL}"
    )


def test_roles_left_on_the_embedded_model_beside_another_subject_are_warned_about() -> None:
    roles = bind_roles(("judge", "persona", "auditor"), None, ["auditor=openai/a"])
    line, warning = roles_line("openai/s", roles)
    assert line.startswith("models: subject=openai/s, auditor=openai/a, judge=")
    assert warning.startswith("warning: judge, persona use the embedded 0.5B model")
    assert "--role judge=MODEL, --role persona=MODEL" in warning


def test_no_warning_when_every_role_is_named_or_everything_is_embedded() -> None:
    assert len(roles_line("openai/s", bind_roles(("judge",), "openai/j", None))) == 1
    assert len(roles_line(DEFAULT_MODEL, bind_roles(("judge", "persona"), None, None))) == 1
    crsec = roles_line("openai/a", {"judge": "openai/j"}, subject="agent")
    assert crsec == ["models: agent=openai/a, judge=openai/j"]
