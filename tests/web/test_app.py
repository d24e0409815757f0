"""The web app without a browser: safety rules, the store, studies feeding the analyses."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Protocol

import pytest

from normlab.core.errors import InputError
from normlab.web import create_app
from normlab.web.store import Store
from tests.web.conftest import INJECTED, TOKEN, cli, local, settings_for


class Page(Protocol):
    """What the tests read of a response, from TestClient's httpx or a live server's."""

    @property
    def text(self) -> str: ...

    @property
    def status_code(self) -> int: ...


class Browser(Protocol):
    def get(self, url: str) -> Page: ...


def csrf(client: Browser, url: str = "/") -> str:
    """The token the forms carry, signed for the client's session (set on its first page)."""
    found = re.search(r'<meta name="csrf" content="([^"]+)">', client.get(url).text)
    assert found
    return found.group(1)


def first_eval(runs: Path, system: str) -> str:
    return str(next((runs / system).glob("*.eval")).relative_to(runs))


def test_off_loopback_needs_an_owner_token(runs: Path) -> None:
    with pytest.raises(InputError, match="owner-token"):
        create_app(settings_for(runs, host="0.0.0.0"))


def cli_fails(*args: str) -> str:
    from typer.testing import CliRunner

    from normlab.cli import app

    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 2, result.output
    return result.output


def test_owner_pages_need_the_token_when_one_is_set(runs: Path) -> None:
    client = local(create_app(settings_for(runs, host="0.0.0.0", owner_token=TOKEN)))
    assert client.get("/").status_code == 403
    token = csrf(client, "/login")
    assert client.post("/login", data={"token": "wrong", "csrf": token}).status_code == 403
    assert client.post("/login", data={"token": TOKEN, "csrf": token}).status_code == 200
    assert "losona" in client.get("/").text


def test_forms_without_the_csrf_token_are_refused(runs: Path) -> None:
    client = local(create_app(settings_for(runs)))
    client.get("/")
    response = client.post("/studies", data={"kind": "losona-audit", "run": "losona"})
    assert response.status_code == 403 and "CSRF" in response.text


def test_paths_stay_inside_the_runs_folder(runs: Path) -> None:
    client = local(create_app(settings_for(runs)))
    assert client.get("/run", params={"path": "../../etc"}).status_code == 400
    assert client.get("/files/../scenarios.jsonl").status_code in (400, 404)


def test_every_reader_keeps_transcript_markup_as_text(runs: Path) -> None:
    client = local(create_app(settings_for(runs)))
    home = client.get("/").text
    for system in ("losona", "scene", "hsii", "crsec"):
        assert f'data-system="{system}"' in home
    html = client.get("/sample", params={"path": first_eval(runs, "losona"), "n": 0}).text
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in html
    assert INJECTED not in html
    for system in ("scene", "hsii"):
        response = client.get("/sample", params={"path": first_eval(runs, system), "n": 0})
        assert response.status_code == 200
    assert "norm database" in client.get("/run", params={"path": "crsec", "tick": 2}).text


def test_the_crsec_replay_rebuilds_the_norm_databases_the_hour_snapshots_recorded(
    runs: Path,
) -> None:
    from normlab.crsec import RunDir, moment
    from normlab.crsec.sim.events import HourEvent

    run = RunDir(runs / "crsec")
    events = list(run.events())
    hours = [e for e in events if isinstance(e, HourEvent)]
    assert hours
    for hour in hours:
        now = moment(events, run.config(), hour.tick)
        assert now.agents
        for agent in now.agents:
            qualified = sorted(n.id for n in agent.norms if n.activated and n.valid)
            assert qualified == sorted(n.id for n in hour.data.agents[agent.name].qualified)


def test_a_rater_finishes_a_losona_audit_and_the_agreement_matches_the_import(runs: Path) -> None:
    client = local(create_app(settings_for(runs)))
    token = csrf(client)
    response = client.post(
        "/studies",
        data={"kind": "losona-audit", "run": first_eval(runs, "losona"), "n": "4", "csrf": token},
    )
    assert response.status_code == 200
    study_url = str(response.url.path)
    invite = re.search(r'id="invite" href="[^"]*(/join/[^"]+)"', response.text)
    assert invite
    rater = local(client.app)
    joined = rater.post(invite.group(1), data={"name": "ann", "csrf": csrf(rater, invite.group(1))})
    seen = []
    while 'id="finished"' not in joined.text:
        item = re.search(r'action="(/rate/[^"]+)"', joined.text)
        assert item
        seen.append(item.group(1))
        assert "complies" not in joined.text.split("<dl")[1].split("</dl>")[0].lower()  # blind
        answer = "yes" if len(seen) % 2 else "no"
        joined = rater.post(item.group(1), data={"answer": answer, "csrf": csrf(rater, "/")})
    assert len(seen) == 4 and len(set(seen)) == 4
    page = client.get(study_url).text
    assert "ann: 4 of 4 answered" in page and "agreement" in page
    (csv_path,) = runs.glob(".normlab/studies/*/ratings-*.csv")
    output = cli(
        "losona",
        "audit",
        "import",
        str(csv_path),
        "--key",
        str(csv_path.parent / "items.key.jsonl"),
        "--json",
    )
    result = json.loads(output[output.index("{") :])
    assert result["agreement"]["n"] == 4
    shown = f"{result['agreement']['rate']['k']} of 4"
    assert shown in page or f"{100 * result['agreement']['rate']['value']:.1f}%" in page


def test_a_rater_link_opens_only_its_own_study(runs: Path) -> None:
    client = local(create_app(settings_for(runs, host="0.0.0.0", owner_token=TOKEN)))
    token = csrf(client, "/login")
    client.post("/login", data={"token": TOKEN, "csrf": token})
    token = csrf(client, "/studies")  # the owner's session is a new one, with its own token
    studies = []
    for kind, run in [
        ("losona-audit", first_eval(runs, "losona")),
        ("crsec-questionnaire", "crsec"),
    ]:
        page = client.post("/studies", data={"kind": kind, "run": run, "n": "2", "csrf": token})
        invite = re.search(r'id="invite" href="[^"]*(/join/[^"]+)"', page.text)
        assert invite
        studies.append((str(page.url.path), invite.group(1)))
    (_, invite_a), (study_b, _) = studies
    stranger = local(client.app)
    joined = stranger.post(invite_a, data={"name": "bo", "csrf": csrf(stranger, invite_a)})
    found = re.search(r'action="(/rate/[^/"]+)/', joined.text)
    assert found
    rate_link = found.group(1)
    other_items = client.get(study_b).text  # owner sees study B; its item ids are Q0001…
    assert stranger.get(f"{rate_link}/Q0001").status_code == 404
    assert stranger.get(study_b).status_code == 403
    assert stranger.get("/").status_code == 403
    assert "Q0001" not in joined.text and other_items


def test_a_killed_rater_process_leaves_whole_ratings(tmp_path: Path) -> None:
    """Kill -9 mid-stream: every rating is there whole or not at all, none after the count."""
    db = tmp_path / "state.sqlite3"
    store = Store(db)
    study = store.create_study("losona-audit", "t", "x", [(f"A{i}", "{}") for i in range(5000)])
    rater = store.join(study.id, "ann")
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from normlab.web.store import Store
        store = Store(Path({str(db)!r}))
        rater = store.rater({rater.token!r})
        for i in range(5000):
            store.rate(rater, f"A{{i}}", "yes", "n" * 2000 + str(i))
            print(i, flush=True)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    done = [process.stdout.readline() for _ in range(40)]
    process.kill()
    process.wait()
    ratings = Store(db).ratings(rater)
    assert len(ratings) >= len(done)
    for item_id, rating in ratings.items():
        assert rating.answer == "yes" and rating.notes == "n" * 2000 + item_id[1:]


@pytest.mark.parametrize(
    ("kind", "system"),
    [
        ("losona-audit", "losona"),
        ("scene-audit", "scene"),
        ("hsii-grading", "hsii"),
        ("crsec-questionnaire", "crsec"),
    ],
)
def test_every_kind_of_study_runs_from_a_run_to_its_analysis(
    runs: Path, kind: str, system: str
) -> None:
    client = local(create_app(settings_for(runs)))
    token = csrf(client)
    run = "crsec" if system == "crsec" else first_eval(runs, system)
    page = client.post("/studies", data={"kind": kind, "run": run, "n": "3", "csrf": token})
    assert page.status_code == 200, page.text
    total = int(re.search(r"· (\d+) items ·", page.text).group(1))  # type: ignore[union-attr]
    invite = re.search(r'id="invite" href="[^"]*(/join/[^"]+)"', page.text)
    assert invite and total > 0
    rater = local(client.app)
    shown = rater.post(invite.group(1), data={"name": "ann", "csrf": csrf(rater, invite.group(1))})
    answered = 0
    while 'id="finished"' not in shown.text:
        item = re.search(r'action="(/rate/[^"]+)"', shown.text)
        choice = re.search(r'name="answer" value="([^"]+)"', shown.text)
        assert item and choice
        shown = rater.post(item.group(1), data={"answer": choice.group(1), "csrf": csrf(rater)})
        answered += 1
        assert answered <= total
    study = client.get(str(page.url.path)).text
    assert f"ann: {total} of {total} answered" in study
    assert 'class="analysis"' in study and 'class="error"' not in study


def test_an_unreadable_crsec_metrics_file_is_a_line_on_the_page(runs: Path, tmp_path: Path) -> None:
    shutil.copytree(runs / "crsec", tmp_path / "crsec")
    for bad in (
        b'{"runs": [',
        b"\xff\xfe",
        b'["not", "a", "summary"]',
        b'{"runs": [{"hours": 3}]}',
    ):
        (tmp_path / "crsec" / "metrics.json").write_bytes(bad)
        client = local(create_app(settings_for(tmp_path)))
        home = client.get("/")
        assert home.status_code == 200 and "metrics" in home.text
        assert client.get("/run", params={"path": "crsec", "tick": 2}).status_code == 200


def test_the_study_form_offers_only_runs_a_study_can_use(runs: Path) -> None:
    client = local(create_app(settings_for(runs)))
    form = client.get("/studies").text
    options = re.findall(r'<option value="([^"]+)" data-system="(\w+)">', form)
    runs_offered = {system for _, system in options if "/" in _ or system == "crsec"}
    assert runs_offered == {"losona", "scene", "hsii", "crsec"}
    token = csrf(client)
    page = client.post(
        "/studies",
        data={"kind": "losona-audit", "run": first_eval(runs, "scene"), "n": "2", "csrf": token},
    )
    assert page.status_code == 400
    assert "a LoSoNA judge audit (§7) needs a losona run" in page.text


def test_a_killed_run_beside_its_resumed_log_is_one_row_with_named_metrics(runs: Path) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    from normlab.web.runs import discover

    finished = next((runs / "losona").glob("*.eval"))
    partial = read_eval_log(str(finished))
    partial.status = "started"
    partial.eval.created = "2000-01-01T00:00:00+00:00"
    write_eval_log(partial, str(finished.with_name("partial.eval")))
    (row,) = [run for run in discover(runs) if run.system == "losona"]
    assert row.path.endswith(finished.name) and row.status == "success"
    assert any(name == "naive accuracy-at-1" for name, _ in row.headline)
    (scene,) = [run for run in discover(runs) if run.system == "scene"]
    assert ("all episodes repair rate", "1") in scene.headline


def test_the_scene_reader_marks_staged_labels_as_not_counted(runs: Path) -> None:
    """The staged precedent's breaches and sanctions are evidence for the subject, not
    outcomes: the reader says so beside them, as the report does, so the transcript's marks
    agree with the outcome counts shown above it."""
    from inspect_ai.log import read_eval_log

    from normlab.scene.reader import scene_view

    log = read_eval_log(str(runs / first_eval(runs, "scene")))
    index, sample = 0, (log.samples or [])[0]
    entries = (sample.metadata or {})["episode"]["entries"]
    entries[0]["phase"] = "precedent"  # the fixture's tuple has no precedent: stage one turn
    staged, later = int(entries[0]["turn_id"]), int(entries[-1]["turn_id"])
    score = next(iter((sample.scores or {}).values()))
    labels = (score.metadata or {})["labels"]
    labels["sanctions"] = [staged, later]
    labels["demonstrations"] = [staged]
    view = scene_view(log, index)
    rows = {int(row.turn_id): row for row in view.chat}
    assert "staged sanction (not counted)" in rows[staged].marks
    assert "demonstration" in rows[staged].marks  # demonstrations count, for d
    assert "sanction" in rows[later].marks
    assert not any("staged" in mark for mark in rows[later].marks)
