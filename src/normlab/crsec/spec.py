"""CRSEC's [`SystemSpec`][normlab.runs.SystemSpec], light: ``normlab --help`` and Inspect's entry
point read it without importing the system."""

from __future__ import annotations

from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.system import SystemSpec

SPEC = SystemSpec(
    "crsec",
    "CRSEC",
    4,
    "CRSEC: a society of agents in which norms are created, spread, evaluated, synthesized "
    "and obeyed, over simulated days.",
    "simulation: norms emerge in a society of agents",
    {"judge": DEFAULT_MODEL},  # the metrics' judge; every agent's model is the subject's
    subject_role="agent",
)
"""CRSEC's description; the rest, loaded on first use, is ``parts.py``'s."""
