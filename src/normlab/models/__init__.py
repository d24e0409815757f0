"""Every model call in normlab: embedded default, scripted test model, roles, structured output,
the role- and actor-tagged client, and usage."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.models.client import (
        DETERMINISTIC_CACHE,
        CallRecord,
        ModelClient,
        prefix_shares,
        role_model,
    )
    from normlab.models.embedded import EmbeddedLlamaCpp
    from normlab.models.human import Answerer, HumanModel, answering
    from normlab.models.roles import (
        DEFAULT_MODEL,
        EMBEDDED_MODEL,
        bind_roles,
        is_embedded,
        parse_role_assignments,
    )
    from normlab.models.scripted import ScriptedModel
    from normlab.models.settings import RoleSettings
    from normlab.models.spread import SpreadModel
    from normlab.models.structured import (
        CheckedResult,
        Generated,
        StructuredResult,
        generate_checked,
        generate_structured,
        parse_reply,
    )
    from normlab.models.usage import (
        SUBJECT_ROLE,
        AnalysisBase,
        RoleUsage,
        RunUsage,
        merge_usage,
        sample_usage,
        usage_by_role,
        usage_by_run,
    )
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "DEFAULT_MODEL",
    "DETERMINISTIC_CACHE",
    "EMBEDDED_MODEL",
    "SUBJECT_ROLE",
    "AnalysisBase",
    "Answerer",
    "CallRecord",
    "CheckedResult",
    "EmbeddedLlamaCpp",
    "Generated",
    "HumanModel",
    "ModelClient",
    "RoleSettings",
    "RoleUsage",
    "RunUsage",
    "ScriptedModel",
    "SpreadModel",
    "StructuredResult",
    "answering",
    "bind_roles",
    "generate_checked",
    "generate_structured",
    "is_embedded",
    "merge_usage",
    "parse_reply",
    "parse_role_assignments",
    "prefix_shares",
    "role_model",
    "sample_usage",
    "usage_by_role",
    "usage_by_run",
]
