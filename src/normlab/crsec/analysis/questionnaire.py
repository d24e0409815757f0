"""Appendix D's human evaluation: export the questionnaire, import the ratings (Figure 4).

``export`` writes, for every agent of every run given, the paper's questionnaire
(Figures 21–22, ``prompts/questionnaire.txt``: eight tasks, one per sub-component) with up
to 20 randomly chosen (input, output) pairs of that agent's operations per task, as an
HTML page to read, and one ``ratings.csv`` with a row per pair and question whose ``score``
the rater fills in on the paper's 7-point Likert scale. ``import`` reads filled CSVs and
gives Figure 4's table: the mean score per module with its 95% bootstrap interval over
ratings and its n, and the overall mean.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

from normlab.core.csvio import SpreadsheetWriter, csv_rows
from normlab.core.errors import InputError, quoted
from normlab.core.outputs import replacing, slug
from normlab.crsec.prompts import PROMPTS
from normlab.crsec.sim.events import Event, Finding
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import RunConfig
from normlab.norms.records import AssessedItem
from normlab.report import HtmlReport
from normlab.stats import Estimate

MODULES = {
    1: "Creation",
    2: "Sender",
    3: "Receiver",
    4: "Observation",
    5: "Immediate Evaluation",
    6: "Long-term Synthesis",
    7: "Plan",
    8: "Action",
}
QUESTIONS = {1: ["Q1–Q3"], 2: ["Q1", "Q2"], 3: ["Q1", "Q2"], 4: ["Q1", "Q2"], 5: ["Q1–Q5"]}
"""Tasks 2–4 ask a separate score per question; the others one score for all their questions."""

PAPER_FIGURE_4 = {
    "Creation": 6.44,
    "Sender": 5.86,
    "Receiver": 5.77,
    "Observation": 5.13,
    "Immediate Evaluation": 5.14,
    "Long-term Synthesis": 5.97,
    "Plan": 6.43,
    "Action": 6.40,
    "overall": 5.63,
}

PAIRS_PER_TASK = 20
COLUMNS = [
    "questionnaire",
    "agent",
    "task",
    "module",
    "pair",
    "question",
    "input",
    "output",
    "score",
]

GAPS = {
    "normlab utility scale": " a norm that can be followed or not (e.g. facing the elevator "
    "doors) and 100 a norm that must be followed (e.g. driving on the right).",
    "normlab descriptive": " what most people in the group actually do; not following it draws "
    "no punishment;",
    "normlab injunctive": " what ought to be done, or what the group disapproves of.",
    "normlab entrepreneur": " should start a conversation about a conflict;",
    "normlab citizen": " decides from its description whether to talk.",
    "normlab principles": " 2. related to behaviours and shaping decisions; 3. proscriptive, "
    "prescriptive or descriptive; 4. a socially acceptable way of living. Social norms are not: "
    "instinctual or reactive behaviours, personal tastes or feelings, personal habits.",
}

_PLACEHOLDER = re.compile(r"<([^<>\n]+)>")


def template() -> tuple[str, dict[int, str]]:
    """The questionnaire's introduction and its eight task texts, gaps filled with our lines."""
    text = PROMPTS.load("questionnaire")
    for gap, words in GAPS.items():
        text = text.replace(f"<{gap}>", words)
    introduction, *tasks = re.split(r"^=== TASK \d\n", text, flags=re.MULTILINE)
    return introduction.strip(), {i: task.strip() for i, task in enumerate(tasks, start=1)}


def _fill(text: str, values: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def _lines(items: Iterable[str]) -> str:
    return "; ".join(f"{i}. {item}" for i, item in enumerate(items, start=1)) or "NONE"


def _transcript(rows: list[tuple[str, str]]) -> str:
    return " / ".join(f"{who}: {said}" for who, said in rows)


def pairs(events: Iterable[Event], config: RunConfig) -> dict[str, dict[int, list[dict[str, str]]]]:
    """Agent → task → every (input, output) pair of that sub-component in the run."""
    traits = {agent.name: agent.traits for agent in config.society.agents}
    found: dict[str, dict[int, list[dict[str, str]]]] = {
        agent.name: {task: [] for task in MODULES} for agent in config.society.agents
    }
    last_talk: dict[str, str] = {}
    last_thoughts: dict[str, list[str]] = {}
    for event in events:
        agent = event.agent
        if event.kind == "create_norm":
            for norm in event.data.norms:
                found[agent][1].append(
                    {
                        "Norm related data": f"{norm.content} (type: {norm.type}, "
                        f"utility: {norm.utility})"
                    }
                )
        elif event.kind == "detect":
            detected = event.data
            for finding in detected.findings:
                if not isinstance(finding, Finding):
                    continue
                found[agent][2].append(
                    {
                        "Agent's Personal Norms": _lines(detected.norms),
                        "Agent's Observation": finding.observation,
                        "yes/no": "yes" if finding.conflict else "no",
                        "entrepreneur/citizen": "entrepreneur"
                        if detected.identity == "a norm entrepreneur"
                        else "citizen",
                        "Agent's innate": traits.get(agent, ""),
                        "yes/no talk": "yes" if finding.talk else "no",
                    }
                )
        elif event.kind == "conversation":
            last_talk[event.data.receiver] = _transcript(event.data.transcript)
        elif event.kind == "thought":
            last_thoughts[agent] = event.data.thoughts
        elif event.kind == "identify" and event.data.source == "chat" and agent in last_talk:
            items = event.data.norms
            related = _lines(norm.content for norm in items) if items else "No"
            found[agent][3].append(
                {"Conversation data": last_talk.pop(agent), "Related norm": related}
            )
        elif event.kind == "identify" and event.data.source == "thought":
            for index, thought in enumerate(last_thoughts.pop(agent, []), start=1):
                norms = [n.content for n in event.data.norms if n.source == index]
                found[agent][4].append(
                    {"Thought data": thought, "Related norm": _lines(norms) if norms else "No"}
                )
        elif event.kind == "evaluate" and isinstance(event.data, AssessedItem):
            item = event.data
            verdict = "accepted" if item.qualified else f"rejected ({item.rejection})"
            found[agent][5].append(
                {
                    "conversation / thoughts": item.related,
                    "Agent's Personal Norms": _lines(item.norms),
                    "Norm data": f"{item.content} (type: {item.type}, utility: "
                    f"{item.utility}; the agent's evaluation: {verdict})",
                }
            )
        elif event.kind == "synthesis":
            for abstract in event.data.abstracts:
                found[agent][6].append(
                    {
                        "Abstract norm": abstract.content,
                        "Specific norms": _lines(abstract.member_contents),
                    }
                )
        elif event.kind == "plan":
            found[agent][7].append(
                {
                    "Agent's Personal Norms": _lines(event.data.norms),
                    "Agent's Plan": "; ".join(f"{h}:00 {a}" for h, a in event.data.plan.items()),
                }
            )
        elif event.kind == "actions":
            found[agent][8].append(
                {
                    "Agent's Personal Norms": _lines(event.data.norms),
                    "Agent's action": "; ".join(
                        f"{s.action} at {s.place} ({s.minutes} min)" for s in event.data.subtasks
                    ),
                }
            )
    return found


def _input_output(task: int, values: dict[str, str]) -> tuple[str, str]:
    """The pair as two plain strings for the CSV (the HTML shows it in the paper's template)."""
    outputs = {
        1: ["Norm related data"],
        2: ["yes/no", "yes/no talk"],
        3: ["Related norm"],
        4: ["Related norm"],
        5: ["Norm data"],
        6: ["Abstract norm"],
        7: ["Agent's Plan"],
        8: ["Agent's action"],
    }[task]
    inputs = [f"{key}: {value}" for key, value in values.items() if key not in outputs]
    return " | ".join(inputs), " | ".join(f"{key}: {values[key]}" for key in outputs)


class QuestionnaireRow(BaseModel):
    """One line of ``ratings.csv`` with what a rater reads beside it."""

    row: dict[str, str]
    """The CSV row (``COLUMNS``), ``score`` empty."""
    introduction: str
    """The questionnaire's introduction, filled for this agent."""
    text: str
    """The pair in the paper's task template (Figures 21–22)."""


def questionnaire_rows(
    folders: list[Path], seed: int = 0, per_task: int = PAIRS_PER_TASK
) -> list[QuestionnaireRow]:
    """Every run's agents' questionnaires: up to ``per_task`` random pairs per task, a row per
    question, in questionnaire, task and pair order (the CSV and the web app both use these)."""
    introduction, tasks = template()
    rows: list[QuestionnaireRow] = []
    for folder in folders:
        run = RunDir(folder)
        config = run.config()
        descriptions = {agent.name: agent.description for agent in config.society.agents}
        for agent, by_task in pairs(run.events(), config).items():
            questionnaire = f"{folder.name}/{agent}"
            intro = _fill(
                introduction, {"Agent name": agent, "Agent description": descriptions[agent]}
            )
            for task, found in by_task.items():
                draw = random.Random(f"{seed}|{questionnaire}|{task}")
                chosen = draw.sample(found, min(per_task, len(found)))
                for number, pair in enumerate(chosen, start=1):
                    given, produced = _input_output(task, pair)
                    text = _fill(tasks[task], pair)
                    for question in QUESTIONS.get(task, ["Q"]):
                        row = {
                            "questionnaire": questionnaire,
                            "agent": agent,
                            "task": str(task),
                            "module": MODULES[task],
                            "pair": str(number),
                            "question": question,
                            "input": given,
                            "output": produced,
                            "score": "",
                        }
                        rows.append(QuestionnaireRow(row=row, introduction=intro, text=text))
    return rows


def write_questionnaires(
    folders: list[Path], out: Path, seed: int = 0, per_task: int = PAIRS_PER_TASK
) -> tuple[Path, int]:
    """Write one HTML questionnaire per agent and run, and ``ratings.csv``; (csv, rows)."""
    rows = questionnaire_rows(folders, seed, per_task)
    out.mkdir(parents=True, exist_ok=True)
    pages: dict[str, list[QuestionnaireRow]] = {}
    for line in rows:
        pages.setdefault(line.row["questionnaire"], []).append(line)
    for questionnaire, lines in pages.items():
        run_name, agent = questionnaire.split("/", 1)
        page = HtmlReport(f"Questionnaire: {agent} ({run_name})")
        page.preformatted(lines[0].introduction)
        shown: set[tuple[str, str]] = set()
        for line in lines:
            task, pair = line.row["task"], line.row["pair"]
            if (task, "") not in shown:
                shown.add((task, ""))
                count = len({other.row["pair"] for other in lines if other.row["task"] == task})
                page.heading(f"Task {task}: {line.row['module']} ({count} pairs)")
            if (task, pair) not in shown:
                shown.add((task, pair))
                page.heading(f"Pair {pair}", level=3)
                page.preformatted(line.text)
        page.write(out / slug(run_name) / f"{slug(agent)}.html")
    path = out / "ratings.csv"
    with replacing(path) as handle:
        writer = SpreadsheetWriter(handle, COLUMNS)
        writer.writeheader()
        writer.writerows(line.row for line in rows)
    return path, len(rows)


class Figure4(BaseModel):
    """Mean rating per module and overall, with 95% bootstrap intervals over ratings."""

    modules: dict[str, Estimate]
    overall: Estimate
    unrated: int
    questionnaires: int
    paper: dict[str, float] = PAPER_FIGURE_4


RATINGS = frozenset(str(score) for score in range(1, 8))
"""The answers a rater may write in ``score``: the integers 1 to 7 (Appendix D's scale)."""


def import_ratings(paths: list[Path]) -> Figure4:
    """Figure 4 from filled ``ratings.csv`` files; a score must be an integer from 1 to 7."""
    scores: dict[str, list[float]] = {module: [] for module in MODULES.values()}
    unrated = 0
    questionnaires: set[str] = set()
    for path in paths:
        for line, row in csv_rows(path, ("questionnaire", "module", "score")):
            module = (row.get("module") or "").strip()
            if module not in scores:
                raise InputError(
                    path, f"field 'module': unknown module {quoted(module)}", line=line
                )
            text = (row.get("score") or "").strip()
            if not text:
                unrated += 1
                continue
            # Compared as text: ``isdigit`` also accepts "²", which ``int`` then rejects.
            if text not in RATINGS:
                raise InputError(
                    path, f"field 'score': {quoted(text)} is not a rating from 1 to 7", line=line
                )
            scores[module].append(float(text))
            questionnaires.add(str(row.get("questionnaire")))
    everything = [score for values in scores.values() for score in values]
    if not everything:
        raise InputError(paths[0], "no scores filled in: nothing to import")
    return Figure4(
        modules={module: Estimate.mean_of(values) for module, values in scores.items()},
        overall=Estimate.mean_of(everything),
        unrated=unrated,
        questionnaires=len(questionnaires),
    )


def study_columns() -> list[str]:
    """The columns of a web rating study's items: an id, the paper's template, the ratings."""
    return ["item_id", "introduction", "pair_text", *COLUMNS]


def export_study(run: Path, out: Path, n: int, seed: int) -> int:
    """A web rating study's items: ``n`` questionnaire pairs of one run, each with an
    ``item_id`` and the pair in the paper's template."""
    rows = questionnaire_rows([run], seed, n)
    if not rows:
        raise InputError(run, "no operations to rate in this run")
    with replacing(out) as handle:
        writer = SpreadsheetWriter(handle, study_columns())
        writer.writeheader()
        for index, line in enumerate(rows, start=1):
            row = {"item_id": f"Q{index:04d}", **{c: line.row[c] for c in COLUMNS}}
            writer.writerow({**row, "pair_text": line.text, "introduction": line.introduction})
    return len(rows)
