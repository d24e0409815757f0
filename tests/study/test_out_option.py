"""``--out`` runs a study file into another folder (issue 34, item 4): the shipped example,
as it is in the repository, planned, run and reported into a folder of the user's, relative
to where the command runs; the example's own out folder is never written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.study.test_study import EXAMPLE, invoke


def test_the_shipped_example_runs_as_it_is_into_another_folder(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workdir)
    own = (EXAMPLE.parent / "../runs/study-scripted").resolve()
    existed = own.exists()
    code, _, err = invoke("run", EXAMPLE, "--out", "mine")
    assert code == 0, err
    assert (workdir / "mine" / "losona").is_dir()
    code, out, err = invoke("report", EXAMPLE, "--out", "mine", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert not report["missing"], "report --out reads what run --out wrote"
    assert (workdir / "mine" / "study-report.html").exists()
    assert own.exists() == existed, "the example's own out folder is left alone"


def test_an_empty_or_unknown_home_out_is_one_line(workdir: Path) -> None:
    for given, said in (("", "name the study's folder"), ("~nobody-here-x/s", "home folder")):
        code, _, err = invoke("run", EXAMPLE, "--out", given)
        assert code == 2 and said in err and len(err.strip().splitlines()) == 1, err
    assert not any(name.startswith("~") for name in os.listdir(workdir))
