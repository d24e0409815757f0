"""Which prompt variant a study cell's logs ran, read back from the logs themselves.

A cell's folder is named after its variant (``OUT/variants/SYSTEM/rename-1/SUBJECT``), but a
folder's name says what the study meant to run, not what ran: the logs' own record
(``normlab.core.logs.log_variant``) is what the study's tables name a variant's numbers by.
An instruction file keeps its name when it is edited; its logs record the SHA-256 of the text
the subject was given, and a study whose file now holds another text refuses to read or add
to those logs (one line): the cell's numbers would be the old wording's under the new one's
name, or a mix of both.
"""

from __future__ import annotations

from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.logs import log_variant
from normlab.core.variants import (
    PAPER,
    VARIANT_KEY,
    VariantRecord,
    VariantSpec,
    canonical_variant,
    instruction_text,
    sha256_text,
)
from normlab.study.systems import Cell


def _headers(folder: Path | str) -> list[tuple[str, VariantRecord]]:
    """Each log under ``folder`` (header only) with its variant; none for a folder not there."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    if isinstance(folder, Path) and not folder.is_dir():
        return []
    found = []
    for info in list_eval_logs(str(folder)):
        try:
            log = read_eval_log(info.name, header_only=True)
        except Exception:  # an unreadable log is the system's loader's to report
            continue
        found.append((info.name, log_variant(log)))
    return found


def logged_variant(cell: Cell) -> VariantRecord | None:
    """The prompt variant the cell's logs ran; None while it has none. Refused on one line
    naming a log when a log ran another variant than the cell's (the paper's prompt for a cell
    of the study's own), or, for an instruction file, another text than the file now holds."""
    expected = PAPER if cell.variant is None else canonical_variant(cell.variant)
    now: dict[str, str] = {}
    """Per instruction file, the SHA-256 of the text it holds now."""
    chosen: VariantRecord | None = None
    for where, record in _headers(cell.folder):
        if canonical_variant(record.spec) != expected and cell.variant is not None:
            raise InputError(
                where,
                f"{cell.label}: this log ran the prompt variant {record.spec!r}, not "
                f"{expected!r}: move it out of the cell's folder",
                field=VARIANT_KEY,
            )
        if record.kind == "file":
            if record.spec not in now:
                spec = VariantSpec("file", record.spec.partition(":")[2])
                now[record.spec] = sha256_text(instruction_text(spec))
            current = now[record.spec]
            if record.sha256 != current:
                raise InputError(
                    where,
                    f"{cell.label}: this log's instruction had SHA-256 "
                    f"{(record.sha256 or 'none')[:12]}, the file now holds {current[:12]}: "
                    "restore the file, or move the cell's logs away to run the new text (a "
                    "study never mixes two texts under one name)",
                    field=VARIANT_KEY,
                )
        chosen = chosen or record
    return chosen
