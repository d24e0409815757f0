"""A study under prompt variants (issue 35, part 2), end to end on the scripted model: two
subjects on LoSoNA under the paper's prompt, renamed participants and a reworded instruction;
the plan counts the variants' cells, the run runs each once (a rerun runs none), and the
report gives each subject's headline per variant, the spread with its interval, the
differences from the paper's prompt and Kendall's τ. Bad ``variants:`` are one-line errors.

The scripts make the numbers known. Twelve scenarios, the subject Tariq in every other one,
Uma in the rest; the judge passes a reply that names the wiki.

- ``steady`` names the wiki unless its instruction is the reworded one ("Write as …"):
  paper 1, rename 1, file 0; spread 1, on every resample [1, 1].
- ``tariq`` names it as Tariq under the paper's prompt (6 of 12: .5), never once Tariq is
  renamed (0), and under the reworded instruction only as Uma (.5): spread .5. On a resample
  of the scenarios with p* the share of Tariq's, the range is max(p*, 1 − p*) − 0, at least
  .5; 12·p* is Binomial(12, ½) and P(|X − 6| ≥ 4) = 2·79/4096 = .039 > .025 while
  P(|X − 6| ≥ 5) = 2·13/4096 = .006, so the 97.5th percentile is 10/12: [.5, .833].
  Its differences from the paper's prompt: rename −p*, P(X ≤ 2) = 79/4096 = .019 and
  P(X ≤ 3) = 299/4096 = .073, so the interval is [−9/12, −3/12]; file 1 − 2p*: [−.5, .5],
  which holds 0 though the range's interval does not (why the report shows both).
- τ-b, paper against rename: steady 1 > tariq .5 and 1 > 0: τ = 1 [1, 1]; against the
  reworded file: 1 > .5 but 0 < .5: τ = −1 [−1, −1].
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log, read_eval_log_samples
from typer.testing import CliRunner

from normlab.cli import app
from normlab.study import read_report
from normlab.web.compare import page_values
from tests.study.support import named_scenarios

REPO = Path(__file__).resolve().parents[2]
JUDGE = REPO / "tests" / "losona" / "fixtures" / "script.json"
SCENARIOS = 12
REWORDED = """Write as {subject}, one member of this group chat, and send your next message.
Output only the message text.

Your bio: {subject_bio}

Channel: {channel_description}
Venue: {venue}
Cast:
- {name}: {bio}

{condition_prefix}

Recent messages:
{prior_transcript_plus_elicitor}

Your next message:
"""
STEADY = {"rules": [{"match": "Write as", "replies": ["use node 20"]}], "default": "the wiki"}
TARIQ = {
    "rules": [
        {"match": "Write as Uma", "replies": ["the wiki has it"]},
        {"match": "Write as", "replies": ["use node 20"]},
        {"match": "You are Tariq", "replies": ["the wiki has it"]},
    ],
    "default": "use node 20",
}
runner = CliRunner()


def make_study(folder: Path, variants: str = "[rename:1, file:reworded.txt]") -> Path:
    named_scenarios(folder, SCENARIOS, 2)
    (folder / "reworded.txt").write_text(REWORDED)
    (folder / "steady.json").write_text(json.dumps(STEADY))
    (folder / "tariq.json").write_text(json.dumps(TARIQ))
    text = f"""
name: variants
out: out
seed: 0
systems:
  losona:
    options: {{scenarios: scenarios.jsonl, conditions: [norm_informed], epochs: 1}}
    roles: {{judge: scripted/{JUDGE}}}
    variants: {variants}
subjects:
  - {{name: steady, model: scripted/steady.json}}
  - {{name: tariq, model: scripted/tariq.json}}
prices:
  scripted/steady.json: {{input: 2.5, output: 10.0}}
  scripted/tariq.json: {{input: 2.5, output: 10.0}}
  scripted/{JUDGE}: {{input: 1.0, output: 4.0}}
"""
    path = folder / "study.yaml"
    path.write_text(text)
    return path


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = runner.invoke(app, ["study", *map(str, args)], env={"COLUMNS": "400"})
    return result.exit_code, result.stdout, result.stderr


def ok(*args: str | Path) -> Any:
    code, out, err = invoke(*args)
    assert code == 0, err
    return json.loads(out)


def test_a_variant_study_plans_runs_and_reports_the_spread_and_tau(workdir: Path) -> None:
    path = make_study(workdir)
    reworded = f"file:{workdir / 'reworded.txt'}"
    plan = ok("plan", path, "--json")
    cells = {(c["subject"], c["variant"]): c for c in plan["cells"]}
    # Each variant is every subject's cell again: 2 subjects × 3 prompts, each a subject and a
    # judge call per scenario, priced; the total is every cell's.
    assert set(cells) == {(s, v) for s in ("steady", "tariq") for v in (None, "rename:1", reworded)}
    assert {c["calls"] for c in cells.values()} == {2 * SCENARIOS}
    assert plan["cost"] == pytest.approx(sum(c["cost"] for c in cells.values()))
    assert cells["steady", "rename:1"]["cost"] > 0

    ran = ok("run", path, "--json")
    assert {(c["subject"], c["variant"]) for c in ran} == set(cells)
    assert not any(c["skipped"] for c in ran)
    out = workdir / "out"
    paper_cell = json.loads((out / "losona" / "steady" / "cell.json").read_text())
    assert "variant" not in paper_cell["fingerprint"]["options"]  # the paper's cell as before
    log = next((out / "variants" / "losona" / "rename-1" / "tariq").rglob("*.eval"))
    header = read_eval_log(str(log), header_only=True)
    assert header.eval.task_args["variant"] == "rename:1"  # in the log header
    samples = list(read_eval_log_samples(str(log)))
    assert all("Tariq" not in str(s.input) for s in samples)  # renamed where the subject reads
    assert all(s.metadata["variant"]["spec"] == "rename:1" for s in samples)
    assert all(c["skipped"] for c in ok("run", path, "--json"))  # no cell runs twice

    report = ok("report", path, "--json")
    assert report["missing"] == []
    found = report["systems"][0]["variants"]
    assert found["variants"] == ["paper", "rename:1", reworded]
    assert found["unit"] == "scenario"
    by_subject = {row["subject"]: row for row in found["subjects"]}
    values = {s: [h["value"] for h in row["headlines"]] for s, row in by_subject.items()}
    assert values == {"steady": [1.0, 1.0, 0.0], "tariq": [0.5, 0.0, 0.5]}
    assert {h["n"] for row in found["subjects"] for h in row["headlines"]} == {SCENARIOS}
    steady, tariq = by_subject["steady"]["spread"], by_subject["tariq"]["spread"]
    assert (steady["value"], steady["ci"], steady["n"]) == (1.0, [1.0, 1.0], SCENARIOS)
    assert tariq["value"] == 0.5 and tariq["ci"] == pytest.approx([0.5, 10 / 12])
    differences = [h["difference"] for h in by_subject["tariq"]["headlines"]]
    assert differences[0] is None  # the paper's own
    assert differences[1]["value"] == -0.5 and differences[1]["ci"] == pytest.approx([-0.75, -0.25])
    assert differences[2]["value"] == 0.0 and differences[2]["ci"] == pytest.approx([-0.5, 0.5])
    taus = {r["variant"]: (r["tau"]["value"], r["tau"]["ci"]) for r in found["ranking"]}
    assert taus == {"rename:1": (1.0, [1.0, 1.0]), reworded: (-1.0, [-1.0, -1.0])}

    code, text, err = invoke("report", path)  # the terminal says the same, with n and unit
    assert code == 0, err
    assert "paper (the paper's prompt)" in text and "file:reworded.txt" in text, text
    assert "Kendall's τ-b" in text
    assert "0.500 [0.500, 0.833] (12)" in text
    assert "1.000 [1.000, 1.000] (12 scenarios)" in text
    html = (out / "study-report.html").read_text()
    assert "ranking stability across prompt variants" in html
    # The web app's Compare page shows the same tables, from the same JSON.
    (_, blocks), *_ = page_values(read_report(out / "study-report.json"))["systems"]
    captions = [block.table.caption for block in blocks if block.table is not None]
    assert "losona: headline per prompt variant" in captions
    assert "losona: ranking stability across prompt variants" in captions


@pytest.mark.parametrize(
    ("variants", "field", "expected"),
    [
        ("[rename:x]", "variants.0", "whole-number seed"),
        ("[paper, format:json]", "variants.1", "unknown variant 'format:json'; losona takes"),
        ("[rename:1, rename:1]", "variants.1", "listed twice"),
        ("[file:missing.txt]", "variants.0", "missing.txt: no such instruction file"),
        ("[file:reworded.txt, file:other/reworded.txt]", "variants.1", "share the folder"),
        ("rename:1", "variants", "valid list"),
    ],
)
def test_bad_variants_are_one_line_errors(
    workdir: Path, variants: str, field: str, expected: str
) -> None:
    path = make_study(workdir, variants)
    (workdir / "other").mkdir()
    (workdir / "other" / "reworded.txt").write_text(REWORDED)
    code, _, err = invoke("plan", path)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert str(path) in err and f"field 'systems.losona.{field}'" in err and expected in err, err
    assert not (workdir / "out").exists()  # refused before a dry run


def test_a_variant_beside_options_variant_or_a_sequential_run_is_refused(workdir: Path) -> None:
    path = make_study(workdir)
    text = path.read_text()
    path.write_text(text.replace("epochs: 1}", "epochs: 1, variant: 'rename:2'}"))
    code, _, err = invoke("run", path)
    assert code == 2 and "field 'systems.losona.options.variant'" in err, err
    path.write_text(text)
    for command in ("plan", "run"):
        code, _, err = invoke(command, path, "--until-halfwidth", "0.1")
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert "prompt variants runs every cell whole" in err, err
    assert not (workdir / "out").exists()


def test_a_system_without_variants_says_so(workdir: Path) -> None:
    (workdir / "study.yaml").write_text(
        "name: x\nout: out\nsystems:\n  crsec:\n    variants: [rename:1]\n"
        "subjects:\n  - {name: a, model: scripted/a.json}\n"
    )
    code, _, err = invoke("plan", workdir / "study.yaml")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "field 'systems.crsec.variants': CRSEC has no prompt variants" in err, err
