"""HSII's curation study in the web app: a bank's items, two curators through invite links,
agreement on the study page, the amended-text field's safety, and the curated bank."""

from __future__ import annotations

import html
import os
import re
import shutil
from pathlib import Path

from fastapi.testclient import TestClient

from normlab.hsii import load_cases
from normlab.web import create_app
from normlab.web.guard import MAX_AMENDED
from normlab.web.studies import MAX_FIRST_ROW, discover_banks, study_kinds
from tests.web.conftest import INJECTED, TOKEN, cli, local, settings_for
from tests.web.test_app import csrf

FORUM = Path(__file__).parents[1] / "hsii" / "fixtures" / "native_forum.csv"
AMENDED = "Intelligent Assistant -> alice: Alice, the ward office takes requests on weekdays."


def make_bank(runs: Path) -> str:
    bank = runs / "banks" / "forum"
    cli("hsii", "import-dialogues", str(FORUM), "--out", str(bank), "--assistant", "mod")
    return "banks/forum"


def new_curation(client: TestClient, bank: str) -> tuple[str, str]:
    token = csrf(client, "/studies")
    data = {"kind": "hsii-curation", "run": bank, "n": "50", "csrf": token}
    page = client.post("/studies", data=data)
    assert page.status_code == 200, page.text
    assert "· 9 items ·" in page.text  # 2 scenarios, 2 dialogues, 5 cases
    invite = re.search(r'id="invite" href="[^"]*(/join/[^"]+)"', page.text)
    assert invite
    return str(page.url.path), invite.group(1)


def shown_item(page: str) -> str:
    found = re.search(r"<dt>item</dt><dd class=\"text\">([^<]+)</dd>", page)
    assert found, page
    return html.unescape(found.group(1))


def curate(
    client: TestClient, invite: str, name: str, rejects: set[str], amends: dict[str, str]
) -> int:
    page = client.post(invite, data={"name": name, "csrf": csrf(client, invite)})
    answered = 0
    while 'id="finished"' not in page.text:
        action = re.search(r'action="(/rate/[^"]+)"', page.text)
        assert action and 'name="amended"' in page.text and 'name="criteria"' in page.text
        item = shown_item(page.text)
        data: dict[str, object] = {"csrf": csrf(client), "criteria": ["realism"]}
        if item in rejects:
            data["answer"] = "reject"
        elif item in amends:
            data |= {"answer": "amend", "amended": amends[item]}
        else:
            data["answer"] = "accept"
        page = client.post(action.group(1), data=data)
        assert page.status_code == 200, page.text
        answered += 1
    return answered


def test_two_curators_agreement_and_the_curated_bank(runs: Path, tmp_path: Path) -> None:
    bank = make_bank(runs)
    app = create_app(settings_for(runs))
    owner = local(app)
    form = owner.get("/studies").text
    assert 'data-system="hsii-bank">bank: banks/forum/cases.jsonl' in form
    study, invite = new_curation(owner, bank)
    assert curate(local(app), invite, "ann", {"thread-1#5"}, {"thread-1#7": AMENDED}) == 9
    assert curate(local(app), invite, "bo", set(), {}) == 9
    page = owner.get(study).text
    assert "ann: 9 of 9 answered" in page and "bo: 9 of 9 answered" in page
    assert "Agreement between raters" in page
    assert re.search(r"same decision ann / bo</th><td>[^<]*\(7/9\)", page), page
    assert 'class="error"' not in page and "<td>ann, bo</td>" in page

    exports = []
    for rater_id in re.findall(r'/ratings/([0-9a-f]+)\.csv"', page):
        content = owner.get(f"{study}/ratings/{rater_id}.csv")
        assert content.status_code == 200
        path = tmp_path / f"{rater_id}.csv"
        path.write_bytes(content.content)
        exports.append(str(path))
    assert len(exports) == 2
    out = tmp_path / "curated"
    cli("hsii", "curate", "apply", *exports, "--bank", str(runs / bank), "--out", str(out))
    cases = {case.case_id: case for case in load_cases(out / "cases.jsonl")}
    assert sorted(cases) == ["thread-1#3", "thread-1#7", "thread-2#3", "thread-2#5"]
    assert cases["thread-1#7"].golden.content.startswith("Alice, the ward office")
    curators = {d.curator for d in cases["thread-2#5"].provenance.curator_decisions}  # type: ignore[union-attr]
    assert curators == {"ann", "bo"}
    cli("hsii", "validate", str(out))


def test_the_amended_field_is_bounded_escaped_and_checked(runs: Path) -> None:
    bank = make_bank(runs)
    app = create_app(settings_for(runs, host="0.0.0.0", owner_token=TOKEN))
    owner = local(app)
    owner.post("/login", data={"token": TOKEN, "csrf": csrf(owner, "/login")})
    study, invite = new_curation(owner, bank)
    rater = local(app)
    page = rater.post(invite, data={"name": "cy", "csrf": csrf(rater, invite)})
    action = re.search(r'action="(/rate/[^"]+)"', page.text)
    assert action
    url = action.group(1)
    token = csrf(rater, url)
    assert rater.get(study).status_code == 403  # the study page is the owner's
    no_csrf = rater.post(url, data={"answer": "amend", "amended": "x"})
    assert no_csrf.status_code == 403
    long = rater.post(
        url, data={"answer": "amend", "amended": "a" * (MAX_AMENDED + 1), "csrf": token}
    )
    assert long.status_code == 413 and f"{MAX_AMENDED:,} characters" in long.text
    blank = rater.post(url, data={"answer": "amend", "amended": "  ", "csrf": token})
    assert blank.status_code == 400
    bogus = rater.post(url, data={"answer": "accept", "criteria": "pwned", "csrf": token})
    assert bogus.status_code == 400
    saved = rater.post(url, data={"answer": "amend", "amended": INJECTED, "csrf": token})
    assert saved.status_code == 200
    again = rater.get(url).text
    assert INJECTED not in again and html.escape(INJECTED, quote=False) in again


def test_a_run_is_not_a_bank(runs: Path, tmp_path: Path) -> None:
    shutil.copy(FORUM, runs / "forum.csv")
    client = local(create_app(settings_for(runs)))
    page = client.post(
        "/studies",
        data={"kind": "hsii-curation", "run": "forum.csv", "n": "5", "csrf": csrf(client)},
    )
    assert page.status_code == 400


def test_the_form_offers_only_banks_and_reads_no_file_unbounded(runs: Path) -> None:
    """A bank is offered to the kind whose system says its first row is a bank's (HSII's
    ``is_bank_row``); a FIFO named ``.jsonl`` (it hung the page), a first row longer than the
    cap, a row that is no object and another system's data are passed over."""
    make_bank(runs)
    other = runs / "other"
    other.mkdir()
    os.mkfifo(other / "pipe.jsonl")
    (other / "long.jsonl").write_text('{"messages": "' + "x" * (MAX_FIRST_ROW + 1) + '"}\n')
    (other / "list.jsonl").write_text('["messages"]\n')
    (other / "scenarios.jsonl").write_text('{"scenario_id": "s1", "norm": "n"}\n')
    found = discover_banks(runs, study_kinds().values())
    assert found == {"hsii-bank": ["banks/forum/cases.jsonl", "banks/forum/dialogues.jsonl"]}
    form = local(create_app(settings_for(runs))).get("/studies").text
    assert 'data-system="hsii-bank">bank: banks/forum/dialogues.jsonl' in form
    assert "other/" not in form
