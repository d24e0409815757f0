"""Cases: the paper's printed shape, cutting dialogues, the linter, and the shipped bank."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.hsii import cut_dialogue, load_cases, load_dialogues, load_news
from normlab.hsii.dataset import CASES_PATH, DIALOGUES_PATH
from normlab.hsii.lint import lint_paths

FIXTURES = Path(__file__).parent / "fixtures"
runner = CliRunner()


def test_the_papers_tables_3_to_5_load() -> None:
    cases = load_cases(FIXTURES / "paper_tables.jsonl")
    assert [c.topic for c in cases] == ["agriculture", "business", "tennis"]
    agriculture, business, tennis = cases
    assert agriculture.messages[0].role_from == "FARMERS"  # spelt "role-from" in the file
    assert agriculture.messages[0].index == "1"
    assert (agriculture.golden.role_to, len(agriculture.messages)) == ("TECHNICAL COORDINATOR", 9)
    assert business.characters == ["F", "G", "H", "I", "J"] and business.golden.role_to == "I"
    assert tennis.golden.role_to == "Rafael Nadal"
    assert all(c.case_id.startswith("case-") for c in cases), "ids derived from content"
    assert load_cases(FIXTURES / "paper_tables.jsonl")[0].case_id == agriculture.case_id
    rows, findings = lint_paths([FIXTURES / "paper_tables.jsonl"], news_path=None)
    assert (rows, findings) == (3, [])


def test_cutting_keeps_assistant_turns_with_history_and_one_addressee() -> None:
    dialogue = load_dialogues(DIALOGUES_PATH)[0]
    cases = cut_dialogue(dialogue)
    assistant_turns = [
        i for i, m in enumerate(dialogue.messages) if m.role_from == "Intelligent Assistant"
    ]
    assert cases and len(cases) == len([i for i in assistant_turns if i >= 2])
    for case in cases:
        position = int(case.golden.index) - 1
        assert case.messages == dialogue.messages[:position]
        assert case.golden.role_to in dialogue.background.characters
        assert case.case_id == f"{dialogue.dialogue_id}#{case.golden.index}"


def test_the_shipped_bank_is_large_enough_and_lints_clean() -> None:
    news, dialogues, cases = load_news(), load_dialogues(), load_cases(CASES_PATH)
    assert len(news) >= 100 and len({n.domain for n in news}) >= 12
    assert all(120 <= len(n.text.split()) <= 300 for n in news)
    assert len(dialogues) >= 60 and len(cases) >= 300
    assert len({d.domain for d in dialogues}) >= 10
    assert [c.case_id for c in cases] == [c.case_id for d in dialogues for c in cut_dialogue(d)]
    assert lint_paths([DIALOGUES_PATH, CASES_PATH]) == (len(dialogues) + len(cases), [])
    assert max(Counter(c.domain for c in cases).values()) < len(cases) / 5


def row(**changes: object) -> dict[str, object]:
    base: dict[str, object] = json.loads(
        (FIXTURES / "paper_tables.jsonl").read_text().splitlines()[1]
    )
    base["case_id"] = "c1"
    base.update(changes)
    return base


def lint_row(tmp_path: Path, data: dict[str, object]) -> list[str]:
    """The linter's findings on one case row, each its one line after the file's name."""
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(data) + "\n")
    found = [finding.one_line() for finding in lint_paths([path], news_path=None)[1]]
    return [line.removeprefix(f"{path}:") for line in found]


def test_linter_findings_one_line_each(tmp_path: Path) -> None:
    """Each broken row gets exactly the findings it earns, each on one line naming the row,
    the case and the field (an unbroken row gets none): not one true finding among others."""
    assert lint_row(tmp_path, row()) == []
    background = row()["background"]
    assert isinstance(background, dict)
    six = {**background, "characters": ["F", "G", "H", "I", "J", "K"]}
    assert lint_row(tmp_path, row(background=six)) == [
        "1: c1: background.characters: 6 characters, expected 2–5 (the assistant is not listed)"
    ]
    # F, G and the assistant listed: H, I and J, who speak, are then strangers too.
    with_ia = {**background, "characters": ["F", "G", "Intelligent Assistant"]}
    assert lint_row(tmp_path, row(background=with_ia)) == [
        "1: c1: background.characters: 'Intelligent Assistant': only one assistant, and it is "
        "not listed",
        "1: c1: messages.1: addressee 'I' is not one character or the assistant",
        "1: c1: messages.2: speaker 'I' is not a character or the assistant",
        "1: c1: messages.5: addressee 'H' is not one character or the assistant",
        "1: c1: messages.6: speaker 'H' is not a character or the assistant",
        "1: c1: messages.7: speaker 'J' is not a character or the assistant",
        "1: c1: messages.7: addressee 'I' is not one character or the assistant",
        "1: c1: messages.8: speaker 'I' is not a character or the assistant",
        "1: c1: messages.8: addressee 'J' is not one character or the assistant",
        "1: c1: golden: the golden's addressee 'I' is not one character",
    ]
    stranger = row(golden={"role_from": "Intelligent Assistant", "role_to": "Z", "content": "x"})
    assert lint_row(tmp_path, stranger) == [
        "1: c1: golden: the golden's addressee 'Z' is not one character"
    ]
    not_ia = row(golden={"role_from": "F", "role_to": "G", "content": "x"})
    assert lint_row(tmp_path, not_ia) == [
        "1: c1: golden: the golden is by 'F', not the Intelligent Assistant"
    ]
    two = row(golden={"role_from": "Intelligent Assistant", "role_to": "F, G", "content": "x"})
    assert lint_row(tmp_path, two) == [
        "1: c1: golden: the golden's addressee 'F, G' is not one character"
    ]
    unknown_speaker = row()
    messages = list(unknown_speaker["messages"])  # type: ignore[call-overload]
    messages[0] = {**messages[0], "role-from": "NOBODY"}
    assert lint_row(tmp_path, row(messages=messages)) == [
        "1: c1: messages.1: speaker 'NOBODY' is not a character or the assistant"
    ]


def test_a_dialogue_where_the_assistant_talks_to_one_character_is_flagged(tmp_path: Path) -> None:
    dialogue = json.loads(DIALOGUES_PATH.read_text().splitlines()[0])
    first = next(
        m["role_to"] for m in dialogue["messages"] if m["role_from"] == "Intelligent Assistant"
    )
    for message in dialogue["messages"]:
        if message["role_from"] == "Intelligent Assistant":
            message["role_to"] = first
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(dialogue) + "\n")
    (finding,) = lint_paths([path])[1]
    assert "addresses 1 character(s), expected ≥ 2" in finding.one_line()


def test_validate_command_exit_codes(tmp_path: Path) -> None:
    assert runner.invoke(app, ["hsii", "validate"]).exit_code == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"case_id": "x", "golden": {}}\n')
    result = runner.invoke(app, ["hsii", "validate", str(bad)])
    assert result.exit_code == 1 and "bad.jsonl:1: x: topic: Field required" in result.output
    bad.write_text('{"case_id": "x"\n')
    result = runner.invoke(app, ["hsii", "validate", str(bad)])
    assert result.exit_code == 2 and "bad.jsonl:1: invalid JSON" in result.output
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert runner.invoke(app, ["hsii", "validate", str(empty)]).exit_code == 2
    with pytest.raises(InputError):
        load_cases(tmp_path / "missing.jsonl")


def test_the_shipped_dataset_card_counts_the_shipped_files() -> None:
    from normlab.hsii.bank.card import CARD_PATH, render_card

    expected = render_card(load_news(), load_dialogues(), load_cases(CASES_PATH))
    assert CARD_PATH.read_text(encoding="utf-8") == expected, "run: normlab hsii card --out …"


def test_limit_draws_across_dialogues_with_a_seed() -> None:
    """Dialogue a has 5 cases, b 1, c 2 (in that order in the file). The first 3 cases were
    all a's; the draw takes one of each dialogue, then a second of a and c, then a's rest."""
    from normlab.hsii.dataset import select_cases

    base = load_cases(CASES_PATH)[0]
    cases = [
        base.model_copy(update={"case_id": f"{dialogue}#{turn}", "dialogue_id": ""})
        for dialogue, turns in (("a", 5), ("b", 1), ("c", 2))
        for turn in range(turns)
    ]

    def dialogues(limit: int, seed: int = 0) -> Counter[str]:
        return Counter(case.cluster for case in select_cases(cases, None, limit, seed))

    assert dialogues(3) == {"a": 1, "b": 1, "c": 1}
    assert dialogues(5) == {"a": 2, "b": 1, "c": 2}
    assert dialogues(8) == {"a": 5, "b": 1, "c": 2}
    for seed in range(5):
        assert dialogues(3, seed) == {"a": 1, "b": 1, "c": 1}
    drawn = [case.case_id for case in select_cases(cases, None, 4, seed=1)]
    assert drawn == [case.case_id for case in select_cases(cases, None, 4, seed=1)]
    assert drawn == sorted(drawn, key=[c.case_id for c in cases].index)  # the file's order
    seeds = {tuple(c.case_id for c in select_cases(cases, None, 4, seed)) for seed in range(8)}
    assert len(seeds) > 1
    # Ids given by hand keep their order; the limit then takes the first of them.
    chosen = select_cases(cases, ["c#1", "a#4", "a#0"], 2)
    assert [case.case_id for case in chosen] == ["c#1", "a#4"]
    # The shipped bank: 2 cases come from 2 dialogues.
    assert len({case.cluster for case in select_cases(load_cases(CASES_PATH), None, 2)}) == 2


def test_the_report_shows_the_clusters_of_the_cases_the_run_used() -> None:
    """Four clustered cases, the run used two: x (cluster 0) and z (noise). The run's map
    has those two points; cluster 0 has one of the run's one clustered case (share 1.0);
    noise is 1 of 2 (0.5). A run with a case the file does not hold gets no clusters."""
    from normlab.hsii.clusters import Cluster, ClusterAnalysis, for_cases

    bank = ClusterAnalysis(
        encoder="tfidf", cases=4, eps=0.3, min_samples=2,
        clusters=[
            Cluster(label=0, name="water", size=2, share=2 / 3, domains={"agri": 2}),
            Cluster(label=1, name="pay", size=1, share=1 / 3, domains={"work": 1}),
        ],
        noise=1, noise_share=0.25, silhouette=0.4, domain_agreement=0.9,
        assignments={"x": 0, "y": 0, "w": 1, "z": -1}, projection="lsh",
        points=[(0.0, 1.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0)],
    )  # fmt: skip
    shown = for_cases(bank, {"x": "agri", "z": "work"})
    assert shown is not None
    assert (shown.cases, shown.noise, shown.noise_share) == (2, 1, 0.5)
    assert [(c.name, c.size, c.share, c.domains) for c in shown.clusters] == [
        ("water", 1, 1.0, {"agri": 1})
    ]
    assert shown.assignments == {"x": 0, "z": -1}
    assert shown.points == [(0.0, 1.0), (3.0, 3.0)]
    assert shown.silhouette == 0.4  # the clustering's quality stays the whole set's
    assert for_cases(bank, {"x": "agri", "other": "agri"}) is None


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"messages": []}, "messages: List should have at least 1 item"),
        ({"golden": {"index": "abc"}}, "golden.index: String should match pattern"),
    ],
)
def test_validate_catches_what_a_run_would_trip_on(
    tmp_path: Path, change: dict[str, object], said: str
) -> None:
    row = json.loads(CASES_PATH.read_text().splitlines()[0])
    for key, value in change.items():
        row[key] = {**row[key], **value} if isinstance(value, dict) else value
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(row) + "\n")
    result = runner.invoke(app, ["hsii", "validate", str(bad)])
    assert result.exit_code == 1, result.output
    assert said in result.output
