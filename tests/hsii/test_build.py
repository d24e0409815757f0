"""HSII's data pipeline on the scripted model: retrieval, dedupe, toxicity, top-k, aliases."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import get_model
from typer.testing import CliRunner

from normlab.cli import app
from normlab.hsii.aliases import fill_aliases
from normlab.hsii.bank.news import FieldMap, Filters, Hit, NewsItem, read_corpus, search
from normlab.hsii.bank.newsprep import dedupe, screen_toxicity
from normlab.hsii.bank.topk import top_k_scenarios
from normlab.hsii.parse import target_correct
from normlab.hsii.prompts import PROMPTS
from normlab.hsii.schemas import Statement
from normlab.models.client import ModelClient
from tests.hsii.test_generator import SCENE, dialogue

PROMPT_1 = PROMPTS.load("scene_from_news").splitlines()[0][:40]
PROMPT_2 = PROMPTS.load("dialogue_from_scene").splitlines()[0][:40]
CORPUS = [
    {"id": "a", "title": "Canal rota splits growers", "text": "Irrigation canal rota cuts water "
     "for orchard growers in the valley.", "date": "2024-05-02", "source": "Valley Post",
     "language": "en"},
    {"id": "b", "title": "Council budget vote", "text": "The council voted on the library budget "
     "and bus routes.", "date": "2024-06-10", "source": "City Herald", "language": "en"},
    {"id": "c", "title": "Drought and irrigation", "text": "Farmers ask for irrigation help as "
     "the drought deepens; the canal is low.", "date": "2023-08-01", "source": "Valley Post",
     "language": "de"},
    {"id": "d", "title": "School opens", "text": "A new school opened with a music hall.",
     "date": "2024-09-01", "source": "City Herald", "language": "en"},
]  # fmt: skip


def write_corpus(path: Path, rows: list[dict[str, Any]] = CORPUS) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def scripted(folder: Path, rules: list[tuple[str, list[Any]]]) -> str:
    path = folder / f"script-{len(list(folder.glob('script-*.json')))}.json"
    replies = [[r if isinstance(r, str) else json.dumps(r) for r in rs] for _, rs in rules]
    path.write_text(
        json.dumps(
            {
                "rules": [
                    {"match": m, "replies": r} for (m, _), r in zip(rules, replies, strict=True)
                ]
            }
        )
    )
    return f"scripted/{path}"


def test_search_ranks_the_known_answer_first_and_filters(tmp_path: Path) -> None:
    items = read_corpus(str(write_corpus(tmp_path / "news.jsonl")))
    hits = search(items, ["irrigation", "canal"], top=5)
    assert [hit.item.id for hit in hits] == ["c", "a"]  # c says irrigation twice; b, d never
    assert hits[0].rank == 1 and hits[0].score > hits[1].score > 0
    # A keyword of two words is one phrase (issue 31): c has both words, never side by side.
    assert [hit.item.id for hit in search(items, ["irrigation canal"])] == ["a"]
    since = Filters.model_validate({"since": "2024-01-01"})
    assert [hit.item.id for hit in search(items, ["irrigation"], since)] == ["a"]
    assert [h.item.id for h in search(items, ["irrigation"], Filters(language="DE"))] == ["c"]
    assert search(items, ["irrigation"], Filters(source="City Herald")) == []
    until = Filters.model_validate({"until": "2023-12-31"})
    assert [hit.item.id for hit in search(items, ["canal"], until)] == ["c"]


def test_csv_parquet_and_memory_corpora_with_renamed_columns(tmp_path: Path) -> None:
    renamed = [
        {"headline": r["title"], "body": r["text"], "published_at": r["date"]} for r in CORPUS
    ]
    fields = FieldMap(title="headline", text="body", date="published_at")
    path = tmp_path / "news.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, ["headline", "body", "published_at"])
        writer.writeheader()
        writer.writerows(renamed)
    from_csv = read_corpus(str(path), fields)
    assert from_csv[0].title == "Canal rota splits growers" and from_csv[0].date == "2024-05-02"
    assert from_csv[0].id.startswith("news-")  # derived from the content, the same on a rerun
    assert search(from_csv, ["irrigation canal"])[0].item.title == "Canal rota splits growers"
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    pq.write_table(pa.Table.from_pylist(renamed), tmp_path / "news.parquet")
    assert read_corpus(str(tmp_path / "news.parquet"), fields) == from_csv

    import fsspec

    with fsspec.open("memory://hsii-test/news.jsonl", "w") as handle:
        handle.write("".join(json.dumps(row) + "\n" for row in CORPUS))
    assert [i.id for i in read_corpus("memory://hsii-test/news.jsonl")] == ["a", "b", "c", "d"]


def hit(item_id: str, text: str, rank: int) -> Hit:
    return Hit(item=NewsItem(id=item_id, title="Flood", text=text), rank=rank, score=1.0)


def test_near_duplicates_become_one_and_the_drop_is_recorded() -> None:
    story = (
        "The river breached its defences at dawn and four hundred people left their homes. "
        "Volunteers filled sandbags at the school while the mayor asked for army help. "
        "Farmers downstream moved their cattle to higher fields as the water kept rising."
    )
    hits = [
        hit("first", story, 1),
        hit("copy", story.replace("at dawn", "early on Tuesday"), 2),
        hit("other", "The council approved a new library budget after a long debate.", 3),
    ]
    kept, drops = dedupe(hits)
    assert [h.item.id for h in kept] == ["first", "other"]
    (drop,) = drops
    assert drop.news_id == "copy" and drop.duplicate_of == "first" and drop.stage == "dedupe"
    assert drop.cosine is not None and drop.cosine >= 0.8 and "near-duplicate" in drop.reason


def test_a_toxic_item_is_dropped_with_its_reason(tmp_path: Path) -> None:
    model = scripted(tmp_path, [
        ("(?s)You screen news.*VILE", [{"toxic": True, "category": "1 hate",
                                         "reason": "slurs about a group"}]),
        ("You screen news", [{"toxic": False, "category": "none", "reason": "factual"}]),
    ])  # fmt: skip
    client = ModelClient({"screener": get_model(model)})
    drop = asyncio.run(screen_toxicity(client, hit("bad", "A VILE rant about neighbours.", 1)))
    assert drop is not None and drop.stage == "toxicity"
    assert drop.reason == "toxic (1 hate): slurs about a group"
    assert asyncio.run(screen_toxicity(client, hit("ok", "A calm report.", 2))) is None
    assert [record.operation for record in client.records] == ["toxicity", "toxicity"]


def scene(characters: list[str], word: str) -> str:
    return json.dumps(
        {"scene": f"A {word} scene.", "characters": characters, "relationships": "They work."}
    )


def test_top_k_keeps_the_best_scored_scenario(tmp_path: Path) -> None:
    cast = ["LOCK KEEPER", "BARGE SKIPPER", "HARBOUR OFFICER"]
    score = {"participants": 3, "relationships": 3, "conflicts": 3, "transitions": 3}
    model = scripted(tmp_path, [
        ("(?s)You rate a scenario.*ALPHA", [{**score, "realism": 2}]),
        ("(?s)You rate a scenario.*BRAVO", [{**score, "realism": 5}]),
        ("(?s)You rate a scenario.*CHARLIE", [{**score, "realism": 3}]),
        (f"^{PROMPT_1}", [scene(cast, w) for w in ("ALPHA", "BRAVO", "CHARLIE")]),
    ])  # fmt: skip
    client = ModelClient({"generator": get_model(model), "screener": get_model(model)})
    news = NewsItem(id="n1", title="Lock", text="A barge ran aground.").paragraph(["lock"])
    found = asyncio.run(top_k_scenarios(client, news, k=3))
    assert found.kept == [2]  # the second sample scored best
    (best,) = found.kept_candidates()
    assert best.rank == 1 and best.background and best.background.scene == "A BRAVO scene."
    assert best.scores["realism"] == 5 and best.scores["total"] == 3.4
    assert {c.sample: c.rank for c in found.candidates} == {1: 3, 2: 1, 3: 2}


def test_an_and_name_golden_is_scorable_without_aliases() -> None:
    """Issue 31: one normaliser reads "&" as "and", and a word run only one name holds names
    that character, so the name needs no alias for these; an alias adds only what the name
    does not say, and never one that the name already gives or two share. Since issue 41 the
    names give title + surname too ("Dr Quinn"), so no alias is derived at all."""
    cast = ["HEALTH AND SAFETY INSPECTOR", "SITE MANAGER", "CRANE OPERATOR", "DR. MARA QUINN"]
    aliases = fill_aliases(cast)
    assert aliases == {}
    for said in ("the safety inspector", "Health & Safety Inspector", "inspector"):
        statement = Statement(targets=[said], content="Please check the crane.", rule="json")
        assert target_correct(statement, cast[0], cast, {}), said
    doctor = Statement(targets=["Dr Quinn"], content="…", rule="json")
    assert target_correct(doctor, cast[3], cast, {})  # the title + surname of one name
    assert fill_aliases(cast, {cast[3]: ["Dr Quinn"]}) == {}  # given, it adds nothing
    # A run two characters share ("MANAGER") names neither; given as one's alias, it is kept
    # (someone chose it), given to both, it is dropped (it would name two).
    shared = fill_aliases(["SITE MANAGER", "PROJECT MANAGER"], {"SITE MANAGER": ["manager"]})
    assert shared == {"SITE MANAGER": ["manager"]}
    both = {"SITE MANAGER": ["manager"], "PROJECT MANAGER": ["Manager"]}
    assert fill_aliases(["SITE MANAGER", "PROJECT MANAGER"], both) == {}


def build_script(folder: Path) -> str:
    return scripted(folder, [
        ("^You screen news", [{"toxic": False, "category": "none", "reason": "factual"}]),
        ("^You rate a scenario", [{"participants": 4, "relationships": 4, "conflicts": 3,
                                   "transitions": 4, "realism": 5, "reason": "fits"}]),
        (f"^{PROMPT_2}", [dialogue("BARGE SKIPPER")]),
        (f"^{PROMPT_1}", [SCENE]),
    ])  # fmt: skip


def test_build_on_the_seed_corpus_validates_and_resumes_without_calls(tmp_path: Path) -> None:
    model = build_script(tmp_path)
    out = tmp_path / "build"
    args = ["hsii", "build", "--keywords", "irrigation", "--keywords", "flood", "--top", "6",
            "--limit", "2", "--model", model, "--out", str(out)]  # fmt: skip
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    report = json.loads((out / "build_report.json").read_text())
    assert report["cases"] == 4 and report["dialogues"] == 2
    assert report["calls_this_run"] == 19  # 5 screens, 2 × 3 × (scene + score), 2 dialogues
    assert report["calls_per_case"] == {
        "toxicity": 1.25, "scenarios": 3.0, "dialogues": 0.5, "total": 4.75,
    }  # fmt: skip
    validated = CliRunner().invoke(app, ["hsii", "validate", str(out / "bank")])
    assert validated.exit_code == 0, validated.output
    case = json.loads((out / "bank" / "cases.jsonl").read_text().split("\n")[0])
    assert case["aliases"] == {}  # r2 reads "OFFICER" as a run of one name: no alias needed
    assert case["provenance"]["source"] == "news" and case["provenance"]["k_rank"] == 1
    assert case["provenance"]["keywords"] == ["irrigation", "flood"]
    assert case["provenance"]["screener_scores"]["total"] == 4.0

    second = CliRunner().invoke(app, args)
    assert second.exit_code == 0, second.output
    again = json.loads((out / "build_report.json").read_text())
    assert again["calls_this_run"] == 0 and all(stage["skipped"] for stage in again["stages"])
    assert again["calls_per_case"] == report["calls_per_case"]  # nothing counted twice

    # A run killed in the dialogues stage: one item journaled, a half-written line after it.
    stages = out / "stages"
    journal = (stages / "dialogues.journal.jsonl").read_text().split("\n")
    (stages / "dialogues.journal.jsonl").write_text(journal[0] + "\n" + journal[1][:40])
    for stale in ("dialogues.done.json", "cases.done.json"):
        (stages / stale).unlink()
    resumed = CliRunner().invoke(app, args)
    assert resumed.exit_code == 0, resumed.output
    last = json.loads((out / "build_report.json").read_text())
    assert last["calls_this_run"] == 1 and last["cases"] == 4  # only the lost item again
    assert last["calls_per_case"] == report["calls_per_case"]


def test_a_parse_repair_counts_as_a_call_as_a_lint_repair_does(tmp_path: Path) -> None:
    """Issue 31: the dialogue's first reply is no JSON and its repair is; that is two calls."""
    model = scripted(tmp_path, [
        ("Your previous reply could not be used", [dialogue("BARGE SKIPPER")]),
        ("^You screen news", [{"toxic": False, "category": "none", "reason": "factual"}]),
        ("^You rate a scenario", [{"participants": 4, "relationships": 4, "conflicts": 3,
                                   "transitions": 4, "realism": 5, "reason": "fits"}]),
        (f"^{PROMPT_2}", ["Here is the dialogue you asked for, in prose."]),
        (f"^{PROMPT_1}", [SCENE]),
    ])  # fmt: skip
    out = tmp_path / "build"
    args = ["hsii", "build", "--keywords", "irrigation", "--top", "1", "--limit", "1",
            "--model", model, "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "build_report.json").read_text())
    (dialogues,) = [stage for stage in report["stages"] if stage["stage"] == "dialogues"]
    assert dialogues["usage"]["generator"]["calls"] == 2 and dialogues["calls_this_run"] == 2
    assert report["cases"] == 2 and report["calls_per_case"]["dialogues"] == 1.0


def test_a_bad_corpus_or_option_is_one_line_naming_file_and_field(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "news.jsonl", [{"id": "x", "body": "no text column"}])
    result = CliRunner().invoke(
        app, ["hsii", "news", "search", "--keywords", "flood", "--corpus", str(corpus)]
    )
    assert result.exit_code == 2
    (line,) = [line for line in result.output.splitlines() if line.strip()]
    assert str(corpus) in line and ":1:" in line and "'text'" in line and "--text-field" in line
    bad_date = write_corpus(tmp_path / "dated.jsonl", [{"text": "a", "date": "soon"}])
    result = CliRunner().invoke(
        app, ["hsii", "news", "search", "--keywords", "a", "--corpus", str(bad_date)]
    )
    assert result.exit_code == 2 and "field 'date'" in result.output
    result = CliRunner().invoke(
        app, ["hsii", "build", "--keywords", "flood", "--k", "0", "--out", str(tmp_path / "b")]
    )
    assert result.exit_code == 2 and "--k" in result.output and "at least 1" in result.output
    result = CliRunner().invoke(
        app, ["hsii", "news", "search", "--keywords", "a", "--corpus", str(tmp_path / "x.txt")]
    )
    assert result.exit_code == 2 and "unknown corpus format" in result.output
