"""Shared options: the line that names every role's model before a run, and its warning."""

from __future__ import annotations

import pytest

from normlab.models import bind_roles
from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.folders import roles_line


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


def test_unknown_and_conflicting_roles_are_errors() -> None:
    import pytest

    from normlab.core.errors import InputError

    with pytest.raises(InputError, match="unknown role 'juge'; roles: judge, persona"):
        bind_roles(("judge", "persona"), None, ["juge=openai/j"])
    with pytest.raises(InputError, match="name two judges"):
        bind_roles(("judge",), "openai/a", ["judge=openai/b"])
    # The same judge twice is no conflict; the norm-memory agent's role is every system's.
    assert bind_roles(("judge",), "openai/a", ["judge=openai/a"])["judge"] == "openai/a"
    assert bind_roles(("judge",), None, ["norm_memory=openai/m"])["norm_memory"] == "openai/m"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("judge=0", "greater than or equal to 1"),
        ("judge=-1", "greater than or equal to 1"),
        ("judge=1e30", "valid integer"),
        ("judge=2000000", "less than or equal to 1000000"),
        ("nosuch=5", "unknown role 'nosuch'"),
    ],
)
def test_max_tokens_out_of_range_or_for_no_role_are_errors(value: str, message: str) -> None:
    from normlab.commands.options import role_settings
    from normlab.core.errors import InputError

    with pytest.raises(InputError, match=message) as raised:
        role_settings([value], None, ("judge",))
    assert str(raised.value).startswith("--max-tokens")
    assert role_settings(["judge=5", "subject=7"], None, ("judge",)).max_tokens == {
        "judge": 5,
        "subject": 7,
    }
