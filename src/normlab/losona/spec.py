"""LoSoNA's [`SystemSpec`][normlab.runs.SystemSpec], light: ``normlab --help`` and Inspect's entry
point read it without importing the system."""

from __future__ import annotations

from normlab.losona.defaults import ROLES
from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.system import SystemSpec

SPEC = SystemSpec(
    "losona",
    "LoSoNA",
    1,
    "LoSoNA: local social norm adaptation (static).",
    "static benchmark: write the next message of a group chat",
    dict.fromkeys(ROLES, DEFAULT_MODEL),
    task="losona",
)
"""LoSoNA's description; the rest, loaded on first use, is ``parts.py``'s."""
