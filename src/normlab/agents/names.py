"""Which subject answers a benchmark: the bare model (``base``) or an agent wrapping it.

One name per agent, validated once, so ``--agent``, ``-T agent=…`` and every analysis
use the same spelling; the name is written into each log's task metadata
(``normlab.core.logs.AGENT_KEY``), which is how analyses tell a base run from an
agent run of the same model and pair them.
"""

from __future__ import annotations

from normlab.core.errors import InputError
from normlab.core.logs import BASE_AGENT
from normlab.models.roles import NORM_MEMORY_ROLE

NORM_MEMORY = "norm-memory"
"""The norm-learning subject's name (``--agent norm-memory``): the subject model with a personal
norm database, as CRSEC's agents keep one."""
AGENTS: tuple[str, ...] = (BASE_AGENT, NORM_MEMORY)
"""Every subject a benchmark's ``agent`` argument accepts; ``base`` is the model alone."""


__all__ = ["AGENTS", "NORM_MEMORY", "NORM_MEMORY_ROLE", "resolve_agent"]


def resolve_agent(name: str) -> str:
    """``name`` if it is a known agent; otherwise one-line
    [`InputError`][normlab.core.InputError]."""
    if name not in AGENTS:
        raise InputError("--agent", f"unknown agent {name!r}; choose from {', '.join(AGENTS)}")
    return name
