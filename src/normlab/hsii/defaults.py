"""What an HSII run takes when an option is not given, and the roles it binds.

Light on purpose: the command line reads these for ``--help`` without importing Inspect.
"""

from __future__ import annotations

EPSILON = 7
"""Turns of the long run, the subject's first statement included (Table 1: ε = 7)."""

ROLES = ("judge", "persona", "reference")
"""The models of an HSII run besides the subject."""

DEMO_LIMIT = 2
DEMO_EPSILON = 2
