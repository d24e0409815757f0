"""Which variant a number is, read back from the log (issue 41, items 9 and 17): the study's
tables, each system's report and the web app's run and sample pages name the variant its logs
recorded (``normlab.core.logs.log_variant``), not a folder's name; a study whose instruction
file changed after its logs were written refuses to read or add to them; one analysis never
mixes two variants' logs; ``rename:01`` is ``rename:1``.

The study is the one of ``tests/study/test_variants.py`` (its scripts, 12 scenarios), under
``rename:01`` and the reworded instruction."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from normlab.core.errors import InputError
from normlab.core.logs import read_samples
from normlab.losona.analysis import analyze, load_run
from normlab.losona.report import build_report
from normlab.web import create_app
from tests.study.test_variants import REWORDED, invoke, make_study, ok
from tests.web.conftest import local, settings_for


def test_a_seed_with_leading_zeros_is_the_same_variant(workdir: Path) -> None:
    path = make_study(workdir, "[rename:1, rename:01]")
    code, _, err = invoke("plan", path)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "'rename:1' is listed twice (as 'rename:01')" in err, err
    make_study(workdir, "[rename:01]")
    plan = ok("plan", path, "--json")
    assert {c["variant"] for c in plan["cells"]} == {None, "rename:1"}


def test_every_table_and_page_names_the_variant_its_logs_ran(workdir: Path) -> None:
    path = make_study(workdir, "[rename:01, file:reworded.txt]")
    ok("run", path, "--json")
    out = workdir / "out"
    renamed = next((out / "variants" / "losona" / "rename-1" / "tariq").rglob("*.eval"))
    paper = next((out / "losona" / "tariq").rglob("*.eval"))
    sha = hashlib.sha256(REWORDED.rstrip("\n").encode()).hexdigest()

    # The study's tables: the variant as the logs name it, an instruction with its text's hash.
    report = ok("report", path, "--json")
    found = report["systems"][0]["variants"]
    assert found["labels"] == {
        "rename:1": "rename:1",
        f"file:{workdir / 'reworded.txt'}": f"file:reworded.txt (SHA-256 {sha[:12]})",
    }
    code, text, err = invoke("report", path)
    assert code == 0 and f"file:reworded.txt (SHA-256 {sha[:12]})" in text, err

    # A system's report says which prompt its numbers are under.
    run = load_run([renamed])
    html = build_report(run, analyze(run), [str(renamed)]).render()
    assert "Prompt variant: rename:1, the subject and every cast member renamed" in html
    run = load_run([paper])
    html = build_report(run, analyze(run), [str(paper)]).render()
    assert "Prompt variant: paper, the paper" in html, html[html.find("Prompt") :][:200]

    # One analysis never reads two variants' samples as one run's (their ids are the same).
    with pytest.raises(InputError, match="ran under two prompt variants") as error:
        read_samples([paper, renamed])
    assert "\n" not in error.value.one_line()

    # The web app's run list, run page and sample page.
    client = local(create_app(settings_for(out)))
    assert "prompt variant</span> rename:1" in client.get("/").text
    relative = str(renamed.relative_to(out))
    assert "prompt variant rename:1;" in client.get("/run", params={"path": relative}).text
    sample = client.get("/sample", params={"path": relative, "n": 0}).text
    assert "<dt>prompt variant</dt><dd>rename:1</dd>" in sample


def test_an_instruction_file_edited_after_its_run_is_refused(workdir: Path) -> None:
    path = make_study(workdir, "[file:reworded.txt]")
    ok("run", path, "--json")
    reworded = workdir / "reworded.txt"
    reworded.write_text(REWORDED.replace("send your next message", "write your next message"))
    for command in ("report", "run"):
        code, _, err = invoke(command, path)
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert "instruction had SHA-256" in err and "the file now holds" in err, err
    # Saved again with CRLF, the text is the one that ran: the study reads its logs.
    reworded.write_bytes(REWORDED.replace("\n", "\r\n").encode())
    assert ok("report", path, "--json")["missing"] == []
