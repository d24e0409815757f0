"""Run folders (CRSEC's ``config.json`` and ``events.jsonl``) reach the web app through their
system's parts (``SystemParts.folder_runs``), not through a branch on CRSEC's name: the runs page
lists what each system's part lists, and a study asks the parts whose run a folder is."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import pytest

import normlab.web.runs
from normlab.runs.people import FolderPage, RunSummary
from normlab.runs.system import System, SystemSpec
from normlab.specs import parts
from normlab.web import create_app
from normlab.web.runs import discover, folder_system
from tests.web.conftest import local, settings_for
from tests.web.test_app import csrf, first_eval


def test_the_runs_page_lists_what_each_systems_part_lists(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every system's ``folder_runs`` is asked, in the specs' order, after the Inspect logs."""
    line = RunSummary("crsec", "crsec", [], "", [("made by", "the part")], "", "listed by it")

    def listed(spec: SystemSpec) -> System:
        found = parts(spec)
        if found.folder_runs is None:
            return found
        listing = dataclasses.replace(found.folder_runs, summaries=lambda root: [line], holds=bool)
        return dataclasses.replace(found, folder_runs=listing)

    monkeypatch.setattr(normlab.web.runs, "parts", listed)
    found = discover(runs)
    assert found[-1] is line and [run.system for run in found].count("crsec") == 1
    home = local(create_app(settings_for(runs))).get("/").text
    assert "listed by it" in home and "the part" in home and "not analyzed" not in home


def test_a_folder_is_the_run_of_the_system_whose_part_holds_it(runs: Path) -> None:
    crsec = next(path.parent for path in (runs / "crsec").rglob("config.json"))
    assert folder_system(crsec) == "crsec"
    assert folder_system(runs / "losona") is None  # a folder of logs is no system's run folder
    assert folder_system(runs) is None


def test_a_study_from_a_folder_that_is_no_run_is_refused_in_one_line(runs: Path) -> None:
    """Every folder was taken for a CRSEC run ("crsec" if run.is_dir()), so a questionnaire
    from a folder of LoSoNA logs went on to the export and failed there."""
    client = local(create_app(settings_for(runs)))
    token = csrf(client)
    logs = str(Path(first_eval(runs, "losona")).parent)
    data = {"kind": "crsec-questionnaire", "run": logs, "n": "3", "csrf": token}
    page = client.post("/studies", data=data)
    assert page.status_code == 400
    assert f"a CRSEC questionnaire (Appendix D) needs a crsec run; {Path(logs).name} is no run" in (
        page.text
    )
    data = {"kind": "losona-audit", "run": "crsec", "n": "3", "csrf": token}
    page = client.post("/studies", data=data)
    assert page.status_code == 400 and "crsec is a crsec run" in page.text


def test_a_run_folders_page_is_its_systems_own(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/run`` on a run folder renders the page its system's part makes, from the system's
    own template under the system's name, with what the part read from the query: the web app
    names no system and holds none of its pages."""
    (tmp_path / "run.html").write_text(
        '{% extends "base.html" %}{% block content %}<p id="own">{{ said }} at {{ path }}</p>'
        "{% endblock %}",
        encoding="utf-8",
    )
    asked = []

    def page(folder: Path, query: Mapping[str, str]) -> FolderPage:
        asked.append((folder.name, query.get("at")))
        return FolderPage("run.html", {"said": "<b>its own</b>"})

    def own(spec: SystemSpec) -> System:
        found = parts(spec)
        if found.folder_runs is None:
            return found
        listing = dataclasses.replace(found.folder_runs, page=page, templates=tmp_path)
        return dataclasses.replace(found, folder_runs=listing)

    monkeypatch.setattr(normlab.web.runs, "parts", own)
    client = local(create_app(settings_for(runs)))
    html = client.get("/run", params={"path": "crsec", "at": "noon"}).text
    assert '<p id="own">&lt;b&gt;its own&lt;/b&gt; at crsec</p>' in html  # escaped, in base.html
    assert asked == [("crsec", "noon")]


def test_a_folder_that_is_no_run_or_a_bad_tick_is_refused(runs: Path) -> None:
    client = local(create_app(settings_for(runs)))
    assert client.get("/run", params={"path": "losona"}).status_code == 404
    for bad in ("-1", "x", "²", "1" * 12):
        page = client.get("/run", params={"path": "crsec", "tick": bad})
        assert page.status_code == 400 and "tick: not a whole number of ticks" in page.text
    assert client.get("/run", params={"path": "crsec", "tick": "99999"}).status_code == 200
