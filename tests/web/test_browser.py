"""The web app in a real headless Chromium: readers, play, rating, slider, escaping.

These tests also take the README's screenshots when ``NORMLAB_SCREENSHOTS`` names a folder.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log

from normlab.scene.analysis import load_episode_records
from normlab.web.play import PlayConfig
from tests.web.conftest import (
    SCENE,
    SCENE_MODEL,
    cli,
    screenshot,
    serving,
    settings_for,
)

TIMEOUT = 60_000

# A real Chromium and a server per test: CI's `make test` runs them, `make check` leaves them out.
pytestmark = pytest.mark.slow


def test_a_browser_leaves_no_event_loop_running_in_the_tests_thread(page: Any) -> None:
    """With the browser open, an eval in this thread starts its own loop: it failed with
    "Runner.run() cannot be called from a running event loop" in every test that ran an eval
    after a browser test in the same process (Playwright's sync API marked its loop running
    here for the whole session)."""
    page.set_content("<p>open</p>")
    assert page.locator("p").inner_text() == "open"
    with pytest.raises(RuntimeError, match="no running event loop"):
        asyncio.get_running_loop()
    assert asyncio.run(asyncio.sleep(0, result="ran")) == "ran"
    assert page.locator("p").inner_text() == "open"  # and the browser still answers


def test_home_and_every_reader(runs: Path, page: Any) -> None:
    with serving(settings_for(runs)) as url:
        page.goto(url)
        for system in ("losona", "scene", "hsii", "crsec"):
            assert page.locator(f'tr.run[data-system="{system}"]').count() == 1
        screenshot(page, "home")
        for system, marks in [("losona", "demonstration"), ("scene", "breach"), ("hsii", "golden")]:
            page.goto(url)
            page.locator(f'tr.run[data-system="{system}"] a').first.click()
            page.locator("a.sample-link").first.click()
            assert page.locator("ol.chat li.turn").count() > 0
            assert marks in page.content()
            screenshot(page, f"reader-{system}")
        page.goto(
            f"{url}/sample?path={next((runs / 'scene').glob('*.eval')).relative_to(runs)}&n=0"
        )
        assert page.locator(".mark-sanction").count() >= 1 or "sanction" in page.content()


def test_transcript_markup_stays_inert(runs: Path, page: Any) -> None:
    with serving(settings_for(runs)) as url:
        page.goto(url)
        page.locator('tr.run[data-system="losona"] a').first.click()
        page.locator("a.sample-link").first.click()
        assert page.evaluate("window.pwned") is None
        assert page.locator("b", has_text="bold").count() == 0
        assert page.get_by_text("<script>window.pwned = 1</script>", exact=False).count() == 1
        assert page.dialogs == []


def test_the_crsec_slider_changes_what_the_page_shows(runs: Path, page: Any) -> None:
    with serving(settings_for(runs)) as url:
        page.goto(f"{url}/run?path=crsec&tick=0")
        before = page.locator("#time").inner_text()
        doing_before = page.locator(".agent .where").all_inner_texts()
        norms_before = page.locator(".agent summary").all_inner_texts()
        slider = page.locator("#tick")
        last = int(slider.get_attribute("max"))
        slider.fill(str(last))
        slider.dispatch_event("change")
        page.wait_for_url(re.compile(rf"tick={last}"), timeout=TIMEOUT)
        assert page.locator("#time").inner_text() != before
        assert (
            page.locator(".agent .where").all_inner_texts() != doing_before
            or page.locator(".agent summary").all_inner_texts() != norms_before
        )
        assert page.locator("svg.figure #moment").count() == 1
        screenshot(page, "reader-crsec")


def test_a_losona_play_answer_is_analyzed_as_human_tester(runs: Path, page: Any) -> None:
    with serving(settings_for(runs)) as url:
        page.goto(f"{url}/play?system=losona")
        page.fill("#player", "tester")
        page.select_option("#option", index=0)
        page.click("#start")
        page.wait_for_selector("#content", timeout=TIMEOUT)
        screenshot(page, "play-losona")
        page.fill("#content", "check the wiki <script>window.pwned = 2</script>")
        page.click("#send")
        page.wait_for_selector("#done, #failed", timeout=TIMEOUT)
        assert page.locator("#failed").count() == 0, page.content()
        assert page.evaluate("window.pwned") is None
    output = cli("losona", "analyze", str(runs / "play" / "losona"), "--json")
    analysis = json.loads(output[output.index("{") :])
    assert "human/tester" in json.dumps(analysis)


def test_a_scene_episode_played_live_against_scripted_personas(runs: Path, page: Any) -> None:
    roles = [f"{role}={SCENE_MODEL}" for role in ("persona", "orchestrator", "auditor")]
    settings = settings_for(
        runs,
        judge=SCENE_MODEL,
        roles=roles,
        play=PlayConfig(banks={"scene": SCENE / "scenarios.jsonl"}, lengths={"scene": 2}),
    )
    with serving(settings) as url:
        page.goto(f"{url}/play?system=scene")
        page.fill("#player", "tester")
        page.click("#start")
        replies = 0
        while True:
            page.wait_for_selector("#content, #done, #failed", timeout=TIMEOUT)
            if page.locator("#content").count() == 0:
                break
            chat_before = page.locator("ol.prompt li").count()
            if replies == 1:
                screenshot(page, "play-scene")
            page.fill("#content", f"my message number {replies + 1}")
            page.click("#send")
            replies += 1
            assert replies <= 20
        assert page.locator(".error").count() == 0, page.content()
        assert replies >= 2 and chat_before > 1
    assert "human/tester" in cli("scene", "analyze", str(runs / "play" / "scene"), "--json")
    (record,) = load_episode_records([runs / "play" / "scene"])
    said = [e.content for e in record.episode.entries if e.actor == record.episode.subject]
    assert said[:replies] == [f"my message number {n}" for n in range(1, replies + 1)]


PLAYERS = 20
"""People at the play page at once (issue 41, item 15: one seat could run at a time)."""
CROWD_TIMEOUT = 300_000
"""Milliseconds for the slowest of the crowd's seats: twenty processes start on two cores."""


def test_twenty_players_at_once_each_finish_with_their_own_verdict(
    runs: Path, browser: Any
) -> None:
    """Twenty browsers take a LoSoNA seat; all twenty are asked at the same time (each seat's
    eval a process of its own), then each answers, half pointing to the wiki (the scripted
    judge: complies) and half not (breaches), and each page shows its own verdict, its log its
    own answer. Before seats had processes, every seat after the first failed with "Multiple
    concurrent calls to eval_async are not allowed"."""
    players = [f"player-{n:02d}" for n in range(PLAYERS)]
    answers = {
        player: "check the wiki" if n % 2 == 0 else f"just run make deploy, says {player}"
        for n, player in enumerate(players)
    }
    with serving(settings_for(runs, max_seats=PLAYERS)) as url:
        pages = {player: browser.new_context().new_page() for player in players}
        for player, page in pages.items():
            page.goto(f"{url}/play?system=losona")
            page.fill("#player", player)
            page.select_option("#option", index=0)
            page.click("#start")
        for page in pages.values():  # every seat waits for its person before anyone answers
            page.wait_for_selector("#content, #failed", timeout=CROWD_TIMEOUT)
            assert page.locator("#failed").count() == 0, page.locator("#failed").inner_text()
        for player, page in pages.items():
            page.fill("#content", answers[player])
            page.click("#send")
        for player, page in pages.items():
            page.wait_for_selector("#done, #failed", timeout=CROWD_TIMEOUT)
            assert page.locator("#failed").count() == 0, page.locator("#failed").inner_text()
            expected = "complies" if "wiki" in answers[player] else "breaches"
            assert page.locator(".verdict").all_inner_texts() == [expected], player
            page.context.close()
    for player in players:
        (log,) = (runs / "play" / "losona" / player).glob("*/*.eval")
        played = read_eval_log(str(log))
        (sample,) = played.samples or []
        assert played.eval.model == f"human/{player}"
        assert sample.output.completion == answers[player]


def losona_audit(page: Any, url: str, runs: Path, items: int) -> str:
    """A LoSoNA audit of ``items`` items of the runs' LoSoNA log, created on the studies page;
    its invite link (the page left on the study)."""
    page.goto(f"{url}/studies")
    page.select_option("#kind", "losona-audit")
    losona = next((runs / "losona").glob("*.eval")).relative_to(runs)
    page.select_option("#run", str(losona))
    page.fill("#n", str(items))
    page.click("#create")
    invite: str = page.locator("#invite").get_attribute("href")
    return invite


def test_a_rater_finishes_an_audit_and_sees_only_their_study(runs: Path, page: Any) -> None:
    with serving(settings_for(runs)) as url:
        invite = losona_audit(page, url, runs, 4)
        study_url = page.url
        page.goto(f"{url}/studies")
        page.select_option("#kind", "crsec-questionnaire")
        page.select_option("#run", "crsec")
        page.fill("#n", "1")
        page.click("#create")
        other_item = f"{page.url}"
        rater = page.context.browser.new_context().new_page()
        rater.goto(invite)
        rater.fill("#name", "ann")
        rater.click("#join")
        screenshot(rater, "rate-item")
        answers = 0
        while rater.locator("#finished").count() == 0:
            rater.locator("button.choice").nth(answers % 2).click()
            answers += 1
            assert answers <= 4
        assert answers == 4
        link = re.sub(r"/Q?A?\d+$", "", rater.url)
        rater.goto(f"{link}/Q0001")
        assert "no such item in your study" in rater.content()
        rater.goto(other_item)
        assert rater.locator("#invite").count() == 1  # loopback without a token: owner pages open
        page.goto(study_url)
        assert "ann: 4 of 4 answered" in page.content()
        assert page.locator("table.analysis").count() == 1
        assert "agreement" in page.locator("table.analysis").inner_text()
        screenshot(page, "study")


def test_a_second_browser_typing_a_raters_name_gets_nothing_of_theirs(
    runs: Path, page: Any
) -> None:
    """Issue 32: a second browser with the invite link typed "ann" and landed on ann's own
    items, her notes shown. It is now told the name is taken; ann's link still opens hers."""
    with serving(settings_for(runs)) as url:
        invite = losona_audit(page, url, runs, 2)
        ann = page.context.browser.new_context().new_page()
        ann.goto(invite)
        assert "Joined before? Open the rating link" in ann.content()
        ann.fill("#name", "ann")
        ann.click("#join")
        own_link = ann.url
        ann.fill('input[name="notes"]', "my private doubts")
        ann.locator("button.choice").first.click()
        stranger = page.context.browser.new_context().new_page()
        stranger.goto(invite)
        stranger.fill("#name", "Ann")
        stranger.click("#join")
        assert "already called" in stranger.content() and "/rate/" not in stranger.url
        assert "my private doubts" not in stranger.content()
        ann.goto(own_link)
        assert ann.locator("#rating").count() == 1


@pytest.mark.parametrize("how", ["relative", "symlinked"])
def test_every_page_opens_from_a_relative_or_symlinked_runs_folder(
    runs: Path, page: Any, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """``normlab serve --runs runs``, as the README shows it: no page may answer 500."""
    monkeypatch.chdir(runs.parent)
    folder = Path("runs")
    if how == "symlinked":
        (runs.parent / "linked").symlink_to(runs)
        folder = Path("linked")
    with serving(settings_for(folder, state=folder / ".normlab")) as url:
        home = page.goto(url)
        assert home.status == 200
        links = page.locator("tr.run a").evaluate_all("(nodes) => nodes.map((n) => n.href)")
        assert len(links) >= 4
        opened = 0
        for link in links:
            response = page.goto(link)
            assert response.status == 200, link
            samples = page.locator("a.sample-link").evaluate_all(
                "(nodes) => nodes.map((n) => n.href)"
            )
            for sample in samples[:2]:
                assert page.goto(sample).status == 200, sample
                opened += 1
        assert opened >= 3
        for path in ("/studies", "/play?system=losona"):
            assert page.goto(url + path).status == 200
