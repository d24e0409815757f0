"""CSVs people are told to open in a spreadsheet (issue 32, item 5): ``hsii curate export``
from dialogues someone else wrote, with a formula for a speaker's name. The cell reaches the
sheet as text (a leading ', every cell quoted), and what the curator hands back reads as the
original text (the web app's ratings export: ``tests/web/test_safety.py``)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.csvio import FORMULA_STARTS
from normlab.hsii.curation.decisions import read_curation

EVIL = "=cmd|' /C calc'!A0"
NATIVE = f"""dialogue_id,turn,speaker,addressee,text,scene
thread-1,1,{EVIL},,Our bins moved to Mondays. Who decided this?,A forum thread.
thread-1,2,bob,{EVIL},"The council did, it was in the newsletter.",
thread-1,3,mod,{EVIL},The change was announced on the council site last month.,
thread-1,4,{EVIL},mod,I never saw it. Can we ask for Tuesdays back?,
thread-1,5,bob,mod,Me neither.,
thread-1,6,mod,bob,"Bob, the newsletter is on the council site too.",
"""


def test_curate_export_of_an_imported_formula_is_text_and_reads_back(tmp_path: Path) -> None:
    native = tmp_path / "native.csv"
    native.write_text(NATIVE, encoding="utf-8")
    bank, sheet = tmp_path / "bank", tmp_path / "curation.csv"
    for args in (
        ["hsii", "import-dialogues", str(native), "--out", str(bank), "--assistant", "mod"],
        ["hsii", "curate", "export", str(bank), "--out", str(sheet)],
    ):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    exported = sheet.read_text("utf-8")
    rows = list(csv.DictReader(io.StringIO(exported, newline="")))
    cells = [cell for row in rows for cell in row.values()]
    assert any(cell.startswith("'" + EVIL) for cell in cells)
    assert not [cell for cell in cells if cell[:1] in FORMULA_STARTS]  # none a formula
    assert exported.startswith('"item_id","level"')
    # The curator amends the dialogue, copying its cell as the spreadsheet shows and saves it
    # (the mark kept), and notes a formula of their own: both read back as the text meant.
    dialogue = next(row for row in rows if row["level"] == "dialogue")
    dialogue.update(
        curator="ann", curator_decision="amend", curator_amended=dialogue["text"],
        curator_notes="'@bob please check",
    )  # fmt: skip
    filled = tmp_path / "filled.csv"
    with filled.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (decided,) = read_curation(filled)
    assert decided.amended.startswith(EVIL + " -> ")
    assert decided.notes == "@bob please check"
