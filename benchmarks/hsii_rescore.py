"""The shipped HSII bank rescored under issue 31's name rules: how many cases' scoring changed.

    python -m benchmarks.hsii_rescore [--out results.json] [--refresh]

A bank holds no replies, so a case's *scoring* is how r1 and r2 read the replies that address
its golden target. For each of the 477 shipped cases this asks both rules about the same
replies: every way the bank or its cast names the golden (the name, each alias the bank lists
before and after, the name with "&" for "and" and back, each word run of the name, with and
without "the", the name with a typographic apostrophe), each written as the prompt asks
(``{"role_to": …, "content": …}``) and as ``To …: …``. The rules before are the scorer at
``BEFORE`` (read from git, with the bank's aliases as they were there); the rules after are
today's, with the shipped bank's aliases. A case changed when any of its replies scores
differently (parsed, right target); each change is put down to the kind of reply it was.

Beside that, the forms every case has in common (prose "To be clear: …", key lines in
capitals or markdown, an NFD reply, a reply cut off in its content) are counted the same way:
they change with the rules, not with the bank. And for common words that open prose as
"To …:" does ("To manage: …"), the cases whose cast still reads one as an address.

``--refresh`` first rewrites the shipped bank's aliases through
:func:`normlab.hsii.aliases.fill_aliases` (what ``hsii generate`` and ``build`` do): an alias the
name already gives under the new rules is dropped; one that adds to them is kept.
"""

from __future__ import annotations

import json
import subprocess
import types
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from normlab.core.outputs import replace_file
from normlab.hsii.aliases import fill_aliases
from normlab.hsii.dataset import CASES_PATH, DIALOGUES_PATH, load_cases
from normlab.hsii.names import word_runs
from normlab.hsii.parse import cast_of, parse_statement, target_correct
from normlab.hsii.schemas import Case

BEFORE = "2afc622335d1e814e0f26af22b1c45953a8bf762"
"""The commit before issue 31's name rules: its scorer and its bank are the "before"."""
REPOSITORY = Path(__file__).resolve().parents[1]
CONTENT = "We will take it from here."

Score = tuple[bool, bool]
Scorer = Callable[[str, Case], Score]


def _git_show(path: str) -> str:
    return subprocess.run(
        ["git", "show", f"{BEFORE}:{path}"],
        cwd=REPOSITORY,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def rules_before() -> types.ModuleType:
    """The scorer's module as it was at ``BEFORE`` (it imports only what is still there)."""
    module = types.ModuleType("hsii_parse_before")
    exec(
        compile(_git_show("src/normlab/hsii/parse.py"), "parse.py@before", "exec"), module.__dict__
    )
    return module


def bank_before() -> dict[str, Case]:
    rows = [
        json.loads(line) for line in _git_show("src/normlab/hsii/data/cases.jsonl").splitlines()
    ]
    return {row["case_id"]: Case.model_validate(row) for row in rows}


def scorer_before(old: types.ModuleType) -> Scorer:
    def score(reply: str, case: Case) -> Score:
        names = [*case.characters, *(a for listed in case.aliases.values() for a in listed)]
        statement = old.parse_statement(reply, names)
        if statement is None:
            return False, False
        right = old.target_correct(statement, case.golden.role_to, case.characters, case.aliases)
        return True, bool(right)

    return score


def score_after(reply: str, case: Case) -> Score:
    statement = parse_statement(reply, cast_of(case))
    if statement is None:
        return False, False
    return True, target_correct(statement, case.golden.role_to, case.characters, case.aliases)


def name_forms(before: Case, after: Case) -> Iterator[tuple[str, str]]:
    """(kind, name) for every way the bank or the cast names the golden target."""
    golden = after.golden.role_to
    yield "the name", golden
    for alias in before.aliases.get(golden, []):
        yield "an alias listed before", alias
    for alias in after.aliases.get(golden, []):
        yield "an alias listed now", alias
    if " AND " in golden.upper().replace("&", " AND "):
        yield "the name with & for and", golden.replace(" AND ", " & ").replace(" and ", " & ")
    if "'" in golden:
        yield "the name with a typographic apostrophe", golden.replace("'", "’")
    for run in sorted(word_runs(golden)):
        yield "a word run of the name", run
        yield "a word run of the name", f"the {run}"


def replies(name: str) -> list[str]:
    return [json.dumps({"role_to": name, "content": CONTENT}), f"To {name}: {CONTENT}"]


FORMS: dict[str, Callable[[str], str]] = {
    'prose "To be clear: …"': lambda golden: f"To be clear: {CONTENT}",
    "key lines in capitals": lambda golden: f"Target: {golden}\nMessage: {CONTENT}",
    "key lines in markdown": lambda golden: f"**role_to**: {golden}\n**content**: {CONTENT}",
    "an NFD reply": lambda golden: unicodedata.normalize(
        "NFD", json.dumps({"role_to": golden, "content": "Zoë, né, café."}, ensure_ascii=False)
    ),
    "a reply cut off in its content": lambda golden: json.dumps(
        {"role_to": golden, "content": CONTENT}
    )[:-8],
}


PROSE_OPENERS = ("be clear", "start", "manage", "reassure", "support", "clarify", "summarize",
                 "note", "sum up", "be honest", "begin", "confirm", "conclude",
                 "answer")  # fmt: skip
"""Words that open prose as "To …:" does ("To manage: …"); the issue 31 review found the
near-miss rule reading "To manage:" as an address in 201 of the shipped casts."""


def prose_read_as_address(cases: Sequence[Case]) -> dict[str, int]:
    """For each prose opener, the cases whose cast reads ``To OPENER: …`` as an address today
    (only an exact word of one name should: "To support:" beside WITNESS SUPPORT COORDINATOR)."""
    counts = {
        opener: sum(
            parse_statement(f"To {opener}: {CONTENT}", cast_of(case)) is not None for case in cases
        )
        for opener in PROSE_OPENERS
    }
    return {opener: count for opener, count in counts.items() if count}


def measure() -> dict[str, Any]:
    old = scorer_before(rules_before())
    before = bank_before()
    after = {case.case_id: case for case in load_cases()}
    assert sorted(before) == sorted(after), "the shipped bank's cases are not the ones before"
    reasons: Counter[str] = Counter()
    directions: Counter[str] = Counter()
    cases_by_direction: Counter[str] = Counter()
    changed: list[str] = []
    examples: dict[str, str] = {}
    for case_id, case in after.items():
        was = before[case_id]
        kinds: set[str] = set()
        moves: set[str] = set()
        for kind, name in name_forms(was, case):
            for reply in replies(name):
                then, now = old(reply, was), score_after(reply, case)
                if then != now:
                    move = f"{_word(then)} → {_word(now)}"
                    kinds.add(kind)
                    moves.add(move)
                    directions[move] += 1
                    examples.setdefault(f"{kind}: {move}", f"{case_id}: {reply}")
        if kinds:
            changed.append(case_id)
            reasons.update(kinds)
            cases_by_direction.update(moves)
    forms = {}
    for label, write in FORMS.items():
        moved = [
            case_id
            for case_id, case in after.items()
            if old(write(case.golden.role_to), before[case_id])
            != score_after(write(case.golden.role_to), case)
        ]
        forms[label] = len(moved)
    return {
        "before": BEFORE,
        "cases": len(after),
        "changed": len(changed),
        "changed_by_kind_of_reply": dict(reasons.most_common()),
        "changed_by_direction": dict(cases_by_direction.most_common()),
        "replies_by_direction": dict(directions.most_common()),
        "examples": examples,
        "dlg-labour-002#16": "dlg-labour-002#16" in changed,
        "aliases": {
            "before": sum(len(v) for c in before.values() for v in c.aliases.values()),
            "now": sum(len(v) for c in after.values() for v in c.aliases.values()),
        },
        "forms_every_case_shares": forms,
        "prose_to_openers_read_as_address": prose_read_as_address(list(after.values())),
    }


def _word(score: Score) -> str:
    parsed, right = score
    return "right" if right else "wrong target" if parsed else "unparsed"


def _refreshed(
    path: Path, aliases_of: Callable[[Mapping[str, Any]], Mapping[str, Sequence[str]]]
) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row["aliases"] = aliases_of(row)
    replace_file(path, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))


def refresh() -> None:
    """The shipped bank's aliases through :func:`fill_aliases`; a case keeps its dialogue's."""
    dialogues: dict[str, dict[str, list[str]]] = {}

    def dialogue(row: Mapping[str, Any]) -> Mapping[str, Sequence[str]]:
        aliases = fill_aliases(row["background"]["characters"], row["aliases"])
        dialogues[row["dialogue_id"]] = aliases
        return aliases

    _refreshed(DIALOGUES_PATH, dialogue)
    _refreshed(CASES_PATH, lambda row: dialogues[row["dialogue_id"]])


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--refresh", action="store_true", help="rewrite the bank's aliases first")
    arguments = parser.parse_args()
    if arguments.refresh:
        refresh()
    emit(measure(), arguments.out)


if __name__ == "__main__":
    main()
