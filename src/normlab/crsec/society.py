"""Loading a society file (JSON or YAML): the agents, places, norms at stake and the clock.

Errors name the file and the field (``hobbs.yaml: field 'agents.3.role': …``) and
exit 2, so a researcher can set up another society without reading a traceback.
The shipped society is Hobbs Cafe (``data/hobbs_cafe.json``): the paper's ten
agents with their descriptions verbatim (Figures 5–6).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.jsonio import read_document, validate_row
from normlab.crsec.schemas import Society

HOBBS_CAFE = Path(str(files("normlab.crsec") / "data" / "hobbs_cafe.json"))


def load_society(path: Path = HOBBS_CAFE) -> Society:
    """A validated society, or an :class:`InputError` naming the file and field."""
    data = read_document(path)
    if not isinstance(data, dict):
        raise InputError(path, "a society file holds one object (name, places, norms, agents…)")
    return validate_row(Society, data, path)
