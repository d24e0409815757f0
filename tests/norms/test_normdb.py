"""The personal norm database: duplicates, provenance, the synthesis triggers, abstract utility."""

from __future__ import annotations

from normlab.norms.normdb import (
    add_norm,
    apply_abstract,
    exact_duplicate,
    mark_synthesis_attempt,
    synthesis_due,
    weighted_utility,
)
from normlab.norms.schemas import NormDatabase


def database(*utilities: int, origin: str = "created") -> NormDatabase:
    db = NormDatabase()
    for index, utility in enumerate(utilities):
        add_norm(
            db, content=f"Norm number {index}.", type="injunctive", utility=utility,
            origin="created" if origin == "created" else "chat", source_text="", time="",
            qualified=True,
        )  # fmt: skip
    return db


def test_exact_duplicates_ignore_case_punctuation_and_spacing() -> None:
    db = database(50)
    assert exact_duplicate(db, "  norm NUMBER 0 ") is db.norms[0]
    assert exact_duplicate(db, "Norm number 1.") is None


def test_rejected_items_stay_with_their_reason_and_are_not_qualified() -> None:
    db = database(50)
    item = add_norm(
        db, content="Bob smokes.", type="injunctive", utility=1, origin="chat",
        source_text="talk", time="day 1 09:05", qualified=False, rejection="not a norm",
    )  # fmt: skip
    assert (item.id, item.activated, item.valid, item.rejection) == (2, False, False, "not a norm")
    assert [n.id for n in db.qualified()] == [1] and db.qualified_utility() == 50


def test_paper_trigger_fires_past_the_threshold_once_per_qualified_set() -> None:
    db = database(100, 100, 100, 50)
    assert not synthesis_due(db, "paper", 350)  # 350 is not past 350
    add_norm(db, content="Third.", type="descriptive", utility=1, origin="chat",
             source_text="", time="", qualified=True)  # fmt: skip
    assert synthesis_due(db, "paper", 350)
    mark_synthesis_attempt(db)
    assert not synthesis_due(db, "paper", 350)  # nothing changed since the attempt
    add_norm(db, content="Fourth.", type="descriptive", utility=1, origin="thought",
             source_text="", time="", qualified=True)  # fmt: skip
    assert synthesis_due(db, "paper", 350)


def test_counter_trigger_counts_only_norms_accepted_since_the_last_synthesis() -> None:
    db = database(100, 100, 100, 100)  # initial norms do not count
    assert not synthesis_due(db, "counter", 350)
    for index in range(4):
        add_norm(db, content=f"Heard {index}.", type="injunctive", utility=90, origin="chat",
                 source_text="", time="", qualified=True)  # fmt: skip
    assert db.synthesis_counter == 360 and synthesis_due(db, "counter", 350)
    mark_synthesis_attempt(db)
    assert db.synthesis_counter == 0 and not synthesis_due(db, "counter", 350)


def test_abstract_norms_deactivate_their_members() -> None:
    db = database(80, 60, 40)
    abstract = apply_abstract(
        db, content="General.", type="injunctive", utility=70, members=[1, 2],
        theme="T", time="day 1 10:00",
    )  # fmt: skip
    assert [n.id for n in db.qualified()] == [3, abstract.id]
    assert [(n.activated, n.valid) for n in db.norms[:2]] == [(False, True), (False, True)]
    assert abstract.origin == "synthesis" and abstract.members == [1, 2]


def test_abstract_utility_is_the_weighted_mean_of_its_members() -> None:
    assert weighted_utility([100, 60], [0.75, 0.25]) == (90, True)
    assert weighted_utility([100, 60], [3, 1]) == (90, True)  # weights need not sum to 1
    assert weighted_utility([100, 60], [1.0]) == (80, False)  # wrong length: equal weights
    assert weighted_utility([100, 60], [0, 0]) == (80, False)
    assert weighted_utility([100, 60], [-1, 2]) == (80, False)
