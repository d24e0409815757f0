"""The papers' numbers (issue 35, items 0.5 and 0.6): what ``paper_numbers.json`` holds is what
the papers print, its arithmetic (the papers' own contradictions included) recomputed here, and
a paper row is set beside a study's number only for the same quantity of the same model."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from normlab.hsii import hsii_score
from normlab.runs.headline import Headline
from normlab.stats import Estimate
from normlab.study.papers import PaperRow, paper_numbers, paper_rows, setup_note
from normlab.study.report import _model_notes
from normlab.study.schema import Subject
from normlab.study.systems import Cell
from tests.study.test_study import REPO

PAPERS = Path("/work/shared/papers")
"""The papers' texts, where this machine has them (the check of every printed number)."""
FILES = {"LoSoNA": "losona.md", "SCENE": "scene.md", "HSII": "hsii.md", "CRSEC": "crsec.md"}


def printed(system: str, metric: str, model: str) -> PaperRow:
    (row,) = [
        r
        for r in paper_numbers().printed
        if (r.system, r.metric, r.model) == (system, metric, model)
    ]
    return row


def test_the_file_cites_the_papers_by_title_not_a_folder() -> None:
    numbers = paper_numbers()
    assert "/work" not in numbers.about and "papers/" not in numbers.about
    assert numbers.papers["LoSoNA"].startswith("LoSoNA: A Benchmark for Local Social Norm")
    assert numbers.papers["SCENE"].startswith("SCENE: Recognizing Social Norms and Sanctioning")
    assert numbers.papers["HSII"].startswith("How Social Is It?")
    assert numbers.papers["CRSEC"].startswith("Emergence of Social Norms")
    for row in [*numbers.rows, *numbers.printed]:
        assert row.source.paper in numbers.papers, row


def test_losona_recovered_and_regressed_imply_the_deltas_except_where_the_paper_contradicts() -> (
    None
):
    # Δ = (recovered − regressed) / 38 scenarios, each count printed in §6 as k/n.
    metric = "accuracy Δ (norm_informed − naive)"
    implied = {}
    for model in ("Gemini 3.1 Pro", "Claude Fable 5", "Claude Opus 4.8", "Gemma 3-27B",
                  "Llama 3.3-70B", "Mistral Medium 3.1", "Qwen2.5-72B"):  # fmt: skip
        recovered = printed("losona", "recovered (norm_informed vs naive)", model)
        regressed = printed("losona", "regressed (norm_informed vs naive)", model)
        assert (recovered.n or 0) + (regressed.n or 0) == 38, model
        implied[model] = ((recovered.k or 0) - (regressed.k or 0)) / 38
        agrees = implied[model] == pytest.approx(printed("losona", metric, model).value, abs=6e-4)
        assert agrees == (model in ("Gemini 3.1 Pro", "Claude Opus 4.8", "Gemma 3-27B")), model
    # Fable: 18 naive successes + 14 recovered − 0 = 32/38 = .842, not the printed .816.
    fable = (18 + 14 - 0) / 38
    assert round(fable, 3) == 0.842
    assert [r.value for r in paper_numbers().rows if r.model == "Claude Fable 5"] == [0.816, 0.474]
    # Llama (7 − 1)/38 = +.158, Mistral (2 − 5)/38 = −.079, Qwen (2 − 7)/38 = −.132.
    assert round(implied["Llama 3.3-70B"], 3) == 0.158
    assert round(implied["Mistral Medium 3.1"], 3) == -0.079
    assert round(implied["Qwen2.5-72B"], 3) == -0.132
    said = " ".join(c.text for c in paper_numbers().contradictions)
    for model, value in (("Claude Fable 5", "0.842"), ("Llama 3.3-70B", "+15.8"),
                         ("Mistral Medium 3.1", "−7.9"), ("Qwen2.5-72B", "−13.2")):  # fmt: skip
        assert model in said and value in said, model
    # The eight naive-success counts (regressed denominators): 99 of 304 = 32.6%, not 33.2%.
    naive = sum(r.n or 0 for r in paper_numbers().printed if r.metric.startswith("regressed"))
    assert naive == 99 and round(naive / 304, 3) == 0.326
    # The judge audit: 100 items, 85 agreed = 100 − 3 false positives − 12 false negatives;
    # the auditor's 38% compliant − the judge's 29% = 12 − 3.
    audit = printed("losona", "judge agreement with a human auditor", "Gemini 3.1 Pro (judge)")
    assert (audit.k, audit.n) == (85, 100) and 100 - 3 - 12 == 85 and 38 - 29 == 12 - 3


def test_hsii_table_1_follows_its_own_form_not_eq_1() -> None:
    for row in paper_numbers().rows + paper_numbers().printed:
        if row.system != "hsii" or row.metric != "HSII score":
            continue
        stages = [printed("hsii", f"r{i}", row.model).value for i in (1, 2, 3, 4)]
        assert hsii_score(*stages) == pytest.approx(row.value, abs=1.5e-3), row.model
    # Eq. (1) as printed gives GPT4 .701·(1 + .732·(1 + .67 + .69)) = 1.912, not 1.399.
    assert hsii_score(0.701, 0.732, 0.67, 0.69, formula="printed") == pytest.approx(1.912, abs=1e-3)
    # §6.4's mean COT gain: (.042 + .026 + .175 + .054 + .048 + .055) / 6 = .0667.
    gains = [
        printed("hsii", "success rate with COT", m).value
        - printed("hsii", "success rate without COT", m).value
        for m in ("llama2-7b", "baichuan2-7b", "qwen2.5-7b", "llama3-8b", "mistral-7b", "GPT4")
    ]
    assert sum(gains) / 6 == pytest.approx(0.067, abs=5e-4)


def test_scene_cost_adds_up() -> None:
    models = ("Claude Opus 4.7", "Gemini 3.1 Pro", "Llama 3.3-70B", "Qwen2.5-72B",
              "Mistral Medium 3.1", "Gemma 3-27B")  # fmt: skip
    subjects = sum(printed("scene", "cost (USD)", m).value for m in models)
    flash = printed("scene", "cost (USD)", "Gemini 3 Flash (personas, orchestrator, judge)")
    assert subjects == 700 and subjects + flash.value == printed("scene", "cost (USD)", "all").value


def _spellings(row: PaperRow) -> list[str]:
    """How a paper may print ``row.value``: a fraction to its printed digits, a percentage, a
    count (with its thousands), millions, or k/n."""
    value = row.value
    if abs(value) >= 2:
        found = [f"{value:,.0f}", f"{value:.0f}", f"{value:.1f}", f"{value / 1e6:.0f}M"]
    else:
        found = [f"{value:.3f}", f"{100 * abs(value):.1f}", f"{round(100 * value)}%"]
        if round(value, 2) == value:
            found.append(f"{value:.2f}")
    if row.k is not None and row.n is not None:
        found.append(f"{row.k}/{row.n}")
    return found


@pytest.mark.skipif(not PAPERS.is_dir(), reason="the papers' texts are not on this machine")
def test_every_number_is_printed_in_its_paper() -> None:
    texts = {name: (PAPERS / file).read_text(encoding="utf-8") for name, file in FILES.items()}
    missing = []
    for row in [*paper_numbers().rows, *paper_numbers().printed]:
        if "reading notes" in row.source.where:
            continue  # lost in the extraction: the project's notes hold it
        text = texts[row.source.paper]
        if any(re.search(rf"(?<![\d.]){re.escape(s)}(?!\d)", text) for s in _spellings(row)):
            continue
        # A number printed in words ("Qwen2.5-72B is unchanged"): its quoted passage is there.
        quoted = re.findall(r"\('([^']+)'\)", row.source.where)
        if not quoted or any(quote not in text for quote in quoted):
            missing.append((row.model, row.metric, row.value))
    assert not missing


def test_a_paper_row_is_the_same_quantity_of_the_same_model() -> None:
    at_3: dict[str, str | int] = {"K": 3}
    (row,), notes = paper_rows("losona", "accuracy (norm_informed)",
                               "google/gemini-3.1-pro-preview", quantity=at_3)  # fmt: skip
    assert row.value == 0.842 and notes == []
    rows, notes = paper_rows(
        "losona", "accuracy (norm_informed)", "google/gemini-3.1-pro-preview", quantity={"K": 2}
    )
    assert rows == [] and len(notes) == 1
    assert "K = 3" in notes[0] and "K = 2" in notes[0] and "0.842" in notes[0]
    # HSII's Table 1 is at ε = 7: a study at ε = 2 gets a note, not the row.
    rows, notes = paper_rows("hsii", "HSII score", "openai/gpt-4",
                             quantity={"formula": "table", "epsilon": 2})  # fmt: skip
    assert rows == [] and "epsilon = 7" in notes[0]
    for system in ("losona", "scene", "hsii", "crsec"):
        assert "project's own" in (setup_note(system) or "") or system == "crsec", system


def test_a_log_of_another_model_is_said_on_its_row() -> None:
    subject = Subject(name="gpt-4", model="openai/gpt-4")
    cell = Cell("hsii", subject, "openai/gpt-4", {}, {}, Path("out"))
    estimate = Estimate(value=1.0, ci=(None, None), n=3)
    same = Headline("HSII score", estimate, 3, "case", model="openai/gpt-4")
    assert _model_notes(cell, same) == []
    other = Headline("HSII score", estimate, 3, "case", model="openai/gpt-4o")
    (note,) = _model_notes(cell, other)
    assert "measured openai/gpt-4o, not openai/gpt-4" in note


def test_the_paid_example_names_the_papers_roles() -> None:
    text = (REPO / "examples" / "study.yaml").read_text(encoding="utf-8")
    study = yaml.safe_load(text)
    systems = study["systems"]
    assert systems["losona"]["roles"]["judge"] == "google/gemini-3.1-pro-preview"
    flash = "google/gemini-3-flash-preview"
    assert systems["scene"]["roles"] == dict.fromkeys(
        ("persona", "orchestrator", "judge", "auditor"), flash
    )
    assert systems["scene"]["options"]["labeller"] == "lists"  # §5.1: one call per category
    assert systems["hsii"]["roles"]["judge"] == "openai/gpt-4"
    # The shipped LoSoNA bank is the project's 46, not the paper's 38.
    assert "hold the paper's 38" not in text and "project's own" in text
