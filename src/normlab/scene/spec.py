"""SCENE's [`SystemSpec`][normlab.runs.SystemSpec], light: ``normlab --help`` and Inspect's entry
point read it without importing the system."""

from __future__ import annotations

from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.system import SystemSpec
from normlab.scene.defaults import ROLES

SPEC = SystemSpec(
    "scene",
    "SCENE",
    2,
    "SCENE: interactive norm episodes with sanctions.",
    "interactive benchmark: personas enforce a hidden norm",
    dict.fromkeys(ROLES, DEFAULT_MODEL),
    task="scene",
)
"""SCENE's description; the rest, loaded on first use, is ``parts.py``'s."""
