"""Subjects that wrap a model: the norm-learning subject, CRSEC's architecture taking
LoSoNA and SCENE (see ``agents/README.md``)."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.agents.inference import (
        INFERENCE_KEY,
        InferenceSummary,
        NormInference,
        judge_inference,
    )
    from normlab.agents.names import AGENTS, NORM_MEMORY, NORM_MEMORY_ROLE, resolve_agent
    from normlab.agents.norm_memory import (
        MEMORY_KEY,
        MemoryLog,
        NormMemory,
        Reading,
        memory_model,
    )
    from normlab.agents.report import inference_table, memory_trace
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "AGENTS",
    "INFERENCE_KEY",
    "MEMORY_KEY",
    "NORM_MEMORY",
    "NORM_MEMORY_ROLE",
    "InferenceSummary",
    "MemoryLog",
    "NormInference",
    "NormMemory",
    "Reading",
    "inference_table",
    "judge_inference",
    "memory_model",
    "memory_trace",
    "resolve_agent",
]
