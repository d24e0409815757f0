"""The norm architecture CRSEC's agents and the norm-learning subject share: personal norms and
an agent's database of them, the model's replies, the operations that create, spread, evaluate,
synthesize and obey norms (``operations/``, one module per paper module), their prompts
(Figures 7–18 verbatim, ours where the paper prints none), the seeded caller every operation
asks a model through, and the judge's match prompt.

``normlab.crsec`` runs them in a society over simulated days; ``normlab.agents`` runs them in
one subject over one episode of a benchmark. Neither imports the other: both import this.
"""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.norms.calls import Caller, CallLog, call_seed
    from normlab.norms.clock import Clock
    from normlab.norms.matching import match_prompt, target_line
    from normlab.norms.normdb import add_norm, exact_duplicate
    from normlab.norms.operations.evaluation import evaluate
    from normlab.norms.operations.spreading import identify_in_conversation
    from normlab.norms.prompts import ANGLE, PROMPTS, numbered, render
    from normlab.norms.replies import IdentifiedNorm, NormMatches
    from normlab.norms.schemas import (
        Actor,
        EvaluationMode,
        NormDatabase,
        NormType,
        PersonalNorm,
    )
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "ANGLE",
    "PROMPTS",
    "Actor",
    "CallLog",
    "Caller",
    "Clock",
    "EvaluationMode",
    "IdentifiedNorm",
    "NormDatabase",
    "NormMatches",
    "NormType",
    "PersonalNorm",
    "add_norm",
    "call_seed",
    "evaluate",
    "exact_duplicate",
    "identify_in_conversation",
    "match_prompt",
    "numbered",
    "render",
    "target_line",
]
