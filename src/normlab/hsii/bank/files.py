"""A bank of HSII dialogues and cases as people hand it around: a JSONL file or a folder
holding both (a row with ``golden`` is a case, any other a dialogue, as the linter reads
them). Curation exports its items from one and writes the curated one back."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.fields import validate_known
from normlab.core.jsonio import jsonl_files, jsonl_line, read_jsonl_rows
from normlab.core.outputs import apart_from_inputs, built_folder, replaceable_folder, replacing
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


DIALOGUES_FILE = "dialogues.jsonl"
CASES_FILE = "cases.jsonl"
BANK_FILES = (DIALOGUES_FILE, CASES_FILE)
"""What a bank folder written by normlab holds, and nothing else."""


def check_bank_out(out: Path, inputs: Iterable[Path | None]) -> Path:
    """``--out`` as a bank folder to write: none of ``inputs`` (the command's files and
    folders) is it, is inside it or holds it, and it is new, empty or a bank written before
    (it is replaced whole, so anything else in it would be lost)."""
    apart_from_inputs(out, inputs, "--out", whole=True)
    return replaceable_folder(out, BANK_FILES, "--out")


def write_bank(out: Path, items: Iterable[Dialogue | Case]) -> list[Path]:
    """The bank folder ``out``, written whole (``normlab.core.outputs.built_folder``):
    ``dialogues.jsonl`` (when there are dialogues) and ``cases.jsonl``, nothing else, so no
    file of an earlier bank stays beside them. Each item goes to its file as it is iterated:
    an importer that makes one dialogue at a time, and each case when asked for
    (``normlab.hsii.dataset.cuts``), holds one dialogue and one case, not every case's copy
    of its history."""
    dialogues = 0
    with built_folder(out) as folder:
        with (
            replacing(folder / DIALOGUES_FILE) as dialogue_rows,
            replacing(folder / CASES_FILE) as case_rows,
        ):
            for item in items:
                dialogues += isinstance(item, Dialogue)
                handle = dialogue_rows if isinstance(item, Dialogue) else case_rows
                handle.write(jsonl_line(item))
        if not dialogues:
            (folder / DIALOGUES_FILE).unlink()  # a bank of cases alone, as it was given
    return [out / name for name in BANK_FILES if (out / name).exists()]
