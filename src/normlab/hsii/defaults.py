"""What an HSII run takes when an option is not given, and the roles it binds.

Light on purpose: the command line reads these for ``--help`` without importing Inspect.
"""

from __future__ import annotations

EPSILON = 7
"""Turns of the long run, the subject's first statement included (Table 1: ε = 7)."""
MAX_EPSILON = 64
"""The longest long run accepted: each turn re-sends the whole history, so a mistyped ε
(1,000,000,000) would grow a sample by megabytes a second and never end."""

PAPER_CAP = 128
"""N∞ (§6.4): rounds of reasoning and reflection before a case counts as unsolved."""

ROLES = ("judge", "persona", "reference")
"""The models of an HSII run besides the subject."""

DEMO_LIMIT = 2
DEMO_EPSILON = 2
