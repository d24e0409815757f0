"""Every model call in normlab: embedded default, scripted test model, roles, structured output."""

from normlab.models.embedded import EMBEDDED_MODEL, EmbeddedLlamaCpp
from normlab.models.roles import DEFAULT_MODEL, is_embedded, parse_role_assignments
from normlab.models.scripted import ScriptedModel
from normlab.models.structured import StructuredResult, generate_structured, parse_reply

__all__ = [
    "DEFAULT_MODEL",
    "EMBEDDED_MODEL",
    "EmbeddedLlamaCpp",
    "ScriptedModel",
    "StructuredResult",
    "generate_structured",
    "is_embedded",
    "parse_reply",
    "parse_role_assignments",
]
