"""Types and I/O shared by all four systems: chat transcripts, input errors, JSON files."""

from normlab.core.chat import Participant, Turn, render_transcript
from normlab.core.errors import InputError, NormlabError, RunIncompleteError
from normlab.core.jsonio import read_json, read_jsonl_rows

__all__ = [
    "InputError",
    "NormlabError",
    "Participant",
    "RunIncompleteError",
    "Turn",
    "read_json",
    "read_jsonl_rows",
    "render_transcript",
]
