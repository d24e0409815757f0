"""Outputs that are never inputs, and folders written whole (issue 32, item 2)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from normlab.core.errors import InputError, OutputError
from normlab.core.outputs import apart_from_inputs, built_folder, replaceable_folder


def test_an_output_that_is_an_input_or_inside_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    events = run / "events.jsonl"
    events.write_text("{}\n")
    monkeypatch.chdir(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(run)
    hard = tmp_path / "hard.jsonl"
    os.link(events, hard)
    refused = {
        run / "events.jsonl": "is inside the input folder",  # crsec export --out RUN/events
        Path("run/../run/events.jsonl"): "is inside the input folder",  # relative, with ..
        link / "events.jsonl": "is inside the input folder",  # through a link to the run
        run: "is the input folder",
        run / "new" / "x.csv": "is inside the input folder",
    }
    for out, said in refused.items():
        with pytest.raises(InputError, match=said) as raised:
            apart_from_inputs(out, [Path("run")])
        assert raised.value.path == "--out" and "which is only read" in str(raised.value)
    with pytest.raises(InputError, match="is the input"):
        apart_from_inputs(hard, [events])  # a hard link: another name, the same file
    with pytest.raises(InputError, match="inside the input folder"):
        apart_from_inputs(tmp_path / "audit.csv", [run], also=[run / "audit.key.jsonl"])
    for fine in (tmp_path / "out.jsonl", tmp_path / "runs", tmp_path / "run2" / "x"):
        apart_from_inputs(fine, [run, None])
    # A folder written whole must not hold an input either; one merely written into may.
    apart_from_inputs(tmp_path, [run])
    with pytest.raises(InputError, match="holds the input"):
        apart_from_inputs(tmp_path, [events], whole=True)


def test_a_folder_built_whole_replaces_every_stale_file(tmp_path: Path) -> None:
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "dialogues.jsonl").write_text("old\n")
    (bank / "cases.jsonl").write_text("old\n")
    replaceable_folder(bank, ["dialogues.jsonl", "cases.jsonl"], "--out")
    with built_folder(bank) as folder:
        (folder / "cases.jsonl").write_text("new\n")
    assert sorted(p.name for p in bank.iterdir()) == ["cases.jsonl"]
    assert (bank / "cases.jsonl").read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bank"]  # no scratch left
    with pytest.raises(RuntimeError), built_folder(bank) as folder:
        (folder / "cases.jsonl").write_text("half\n")
        raise RuntimeError("the work failed")
    assert (bank / "cases.jsonl").read_text() == "new\n"  # the old folder, untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bank"]


def test_a_folder_holding_other_files_is_not_replaced(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match=r"holds notes\.txt, which it would lose"):
        replaceable_folder(tmp_path, ["cases.jsonl"], "--out")
    new = replaceable_folder(tmp_path / "new", ["cases.jsonl"], "--out")
    assert not new.exists()  # made by built_folder once the work is done, not before
    with built_folder(new) as folder:
        (folder / "cases.jsonl").write_text("")
    assert [p.name for p in new.iterdir()] == ["cases.jsonl"]
