"""HSII's [`SystemSpec`][normlab.runs.SystemSpec], light: ``normlab --help`` and Inspect's entry
point read it without importing the system."""

from __future__ import annotations

from normlab.hsii.defaults import ROLES
from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.system import SystemSpec

SPEC = SystemSpec(
    "hsii",
    "HSII",
    3,
    "HSII: an assistant among several users picks whom to address and what to say.",
    "multi-user benchmark: whom to address and what to say",
    dict.fromkeys(ROLES, DEFAULT_MODEL),
    task="hsii",
)
"""HSII's description; the rest, loaded on first use, is ``parts.py``'s."""
