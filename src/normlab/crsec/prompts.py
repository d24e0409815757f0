"""CRSEC's own prompt files (``crsec/prompts/``): the agents' system message, the newcomer's
occasion, the metrics' judge of compliance and of a demonstration, the export's generator and
Appendix D's questionnaire.

The operations' prompts (Figures 7–18 verbatim, our formats) and the judge's match prompt are
the norm architecture's, shared with the norm-learning subject: ``normlab.norms.prompts``. These
files use the same ``< placeholder >`` syntax ([`ANGLE`][normlab.norms.ANGLE]).
"""

from __future__ import annotations

from normlab.core.templates import PromptSet
from normlab.norms.prompts import ANGLE

PROMPTS = PromptSet("normlab.crsec", ANGLE)
"""CRSEC's own prompt files, filled by name."""
