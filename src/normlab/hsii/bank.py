"""A bank of HSII dialogues and cases as people hand it around: a JSONL file or a folder
holding both (a row with ``golden`` is a case, any other a dialogue, as the linter reads
them). Curation exports its items from one and writes the curated one back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.fields import validate_known
from normlab.core.jsonio import jsonl_files, read_jsonl_rows, write_jsonl
from normlab.hsii.schemas import Case, Dialogue


@dataclass
class Bank:
    """Dialogues and cases, as a folder (``dialogues.jsonl``, ``cases.jsonl``) holds them."""

    dialogues: list[Dialogue] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)


def load_bank(path: Path) -> Bank:
    """Every dialogue and case under ``path`` (a JSONL file or folder; a row with ``golden`` is
    a case, any other a dialogue, as the linter reads them); ids are unique."""
    from normlab.hsii.dataset import parse_case_row

    bank = Bank()
    seen: dict[str, str] = {}
    for file in jsonl_files(path):
        for line, row in read_jsonl_rows(file):
            item: Case | Dialogue
            if "golden" in row:
                item = parse_case_row(row, file, line)
                bank.cases.append(item)
                key = f"case {item.case_id}"
            else:
                item = validate_known(Dialogue, row, file, line)
                bank.dialogues.append(item)
                key = f"dialogue {item.dialogue_id}"
            if key in seen:
                raise InputError(file, f"{key} appears twice (first at {seen[key]})", line=line)
            seen[key] = f"{file}:{line}"
    if not bank.dialogues and not bank.cases:
        raise InputError(path, "no dialogues or cases found")
    return bank


def write_bank(bank: Bank, out: Path) -> list[Path]:
    """``out/dialogues.jsonl`` (when there are dialogues) and ``out/cases.jsonl``, replaced."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if bank.dialogues:
        written.append(write_jsonl(out / "dialogues.jsonl", bank.dialogues))
    written.append(write_jsonl(out / "cases.jsonl", bank.cases))
    return written
