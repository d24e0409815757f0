"""The ground every system stands on: transcripts, input errors, JSON files, prompts, logs.

- ``normlab.core.chat``: the one multi-party transcript and its renderer;
- ``normlab.core.errors``: the error types commands report on one line;
- ``normlab.core.jsonio``, ``normlab.core.yamlio``: JSON/JSONL and YAML reading and writing
  with file/line/field errors;
- ``normlab.core.fields``: a row's unknown names, kept as metadata or refused as near misses;
- ``normlab.core.templates``: prompt files with each paper's placeholder names;
- ``normlab.core.leaks``: leak checks for data linters;
- ``normlab.core.logs``: Inspect logs, each read once, each sample counted once;
- ``normlab.core.evalrun``, ``normlab.core.batch``: running tasks and model batches;
- ``normlab.core.secrets``: credentials redacted from everything written or printed.
"""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.core.chat import Participant, Turn, render_transcript, render_turn
    from normlab.core.errors import InputError, NormlabError, RunIncompleteError
    from normlab.core.jsonio import read_collection, read_json, read_jsonl_rows, write_jsonl
    from normlab.core.logs import SampleSet, expand_paths, read_samples
    from normlab.core.progress import register as register_progress
    from normlab.core.secrets import guard_inspect_logs, redact_text, redact_url
    from normlab.core.templates import DOUBLE_BRACES, SINGLE_BRACES, PromptSet
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "DOUBLE_BRACES",
    "SINGLE_BRACES",
    "InputError",
    "NormlabError",
    "Participant",
    "PromptSet",
    "RunIncompleteError",
    "SampleSet",
    "Turn",
    "expand_paths",
    "guard_inspect_logs",
    "read_collection",
    "read_json",
    "read_jsonl_rows",
    "read_samples",
    "redact_text",
    "redact_url",
    "register_progress",
    "render_transcript",
    "render_turn",
    "write_jsonl",
]
