"""Seeded fuzzing of every input normlab reads: whatever bytes are on disk, a loader either
loads them or raises a :class:`~normlab.core.errors.NormlabError` (one line, exit 2 at the
command line), never a traceback.

Each kind of input starts from a small valid example and is mutated 1,000 times (one to three
mutations each, picked by ``random.Random(seed)``): byte flips, bytes that are not UTF-8, a
byte-order mark, truncation, deep nesting, integers past Python's digit limit, lone surrogate
escapes, repeated keys, ids and lines, empty files, huge fields, JSON values of the wrong type,
deleted keys, removed or swapped lines, stray quotes, CRLF, NUL bytes and line separators. A
failure names the kind, the seed and the mutations, so ``mutant(kind, seed)`` replays it.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import logging
import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
import yaml

from normlab.core.errors import NormlabError
from normlab.crsec.analysis.questionnaire import COLUMNS as RATING_COLUMNS
from normlab.crsec.analysis.questionnaire import MODULES, import_ratings
from normlab.crsec.sim.society import HOBBS_CAFE, load_society
from normlab.hsii.analysis import load_run as load_hsii_run
from normlab.hsii.audit import GRADING_COLUMNS, import_grading
from normlab.hsii.dataset import CASES_PATH, load_cases, load_dialogues
from normlab.losona.analysis import load_run as load_losona_run
from normlab.losona.audit import AUDIT_COLUMNS as LOSONA_AUDIT_COLUMNS
from normlab.losona.audit import import_audit as import_losona_audit
from normlab.losona.dataset import load_scenarios as load_losona_scenarios
from normlab.losona.lint import lint_paths as lint_losona
from normlab.losona.taxonomy import load_taxonomy
from normlab.models.scripted import load_script
from normlab.scene.audit import AUDIT_COLUMNS as SCENE_AUDIT_COLUMNS
from normlab.scene.audit import import_audit as import_scene_audit
from normlab.scene.dataset import SCENARIOS_PATH as SCENE_SCENARIOS_PATH
from normlab.scene.dataset import load_scenarios as load_scene_scenarios
from normlab.scene.taxonomy import load_dimensions
from tests.helpers.inputs import losona_trial

MUTANTS_PER_KIND = 1000
TESTS = Path(__file__).parent
HSII_DIALOGUES = Path(str(files("normlab.hsii") / "data" / "dialogues.jsonl"))

# --- valid examples, small so that a thousand loads take a second or two -----------------


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()


def _csv(columns: list[str], rows: list[dict[str, str]]) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=columns)
    writer.writeheader()
    for row in rows:
        writer.writerow({column: row.get(column, "") for column in columns})
    return buffer.getvalue().encode()


def _first_rows(path: Path, count: int) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()[:count]
    return [json.loads(line) for line in lines]


def _losona_record(scenario: str, trial: int, complies: bool | None) -> dict[str, Any]:
    return losona_trial(
        "openai/gpt-x",
        scenario,
        trial,
        complies,
        judge_model="[bold]judge[/bold]",
        judge_truncated=False,
    )


def _official_losona_row() -> dict[str, Any]:
    """The release's shape: only the required fields (the loader fills the rest)."""
    row = _first_rows(TESTS / "losona" / "fixtures" / "scenarios.jsonl", 1)[0]
    keep = ("event_id", "norm_id", "norm_statement", "transcript", "elicitor_turn_id")
    return {"scenario_id": "official_shape", **{key: row[key] for key in keep}}


def _society() -> dict[str, Any]:
    society: dict[str, Any] = json.loads(HOBBS_CAFE.read_text(encoding="utf-8"))
    return society


def _small_society() -> dict[str, Any]:
    """Two agents, one place and short texts: YAML is parsed in pure Python (the C parser
    recurses without a limit and crashes on deep nesting), which is slow on the whole cafe."""
    society = _society()
    society["agents"] = [
        {**agent, "description": agent["description"][:60], "relationships": []}
        for agent in society["agents"][:2]
    ]
    society["places"] = [place for place in society["places"] if place["name"] == society["home"]]
    society["norms"] = [
        {**norm, "statement": norm["statement"][:40], "keywords": norm.get("keywords", [])[:1]}
        for norm in society["norms"]
    ]
    return society


@dataclass(frozen=True)
class Kind:
    """One input normlab reads: a valid example, the file's name, and how normlab loads it."""

    example: Callable[[], bytes]
    name: str
    load: Callable[[Path], object]
    shape: str
    """``jsonl``, ``json``, ``csv`` or ``yaml``: which structured mutations apply."""
    beside: Callable[[], dict[str, bytes]] = dict
    """Files the loader reads next to the mutated one (a blind CSV's key), left valid."""


def _losona_key() -> dict[str, bytes]:
    rows = [
        {"item_id": f"A000{i}", "record": _losona_record("s1", i, i % 2 == 0)} for i in (1, 2, 3)
    ]
    return {"audit.key.jsonl": _jsonl(rows)}


def _losona_audit_csv() -> bytes:
    rows = [
        {
            "item_id": f"A000{i}",
            "norm_statement": "Questions get a pointer, not an answer.",
            "transcript_before_elicitor": 'Marcus: build is red\nChloe: looking, "again"',
            "elicitor": "Marcus: which node version?",
            "subject": "Tariq",
            "response": "see the wiki",
            "human_complies": answer,
        }
        for i, answer in ((1, "yes"), (2, "no"), (3, ""))
    ]
    return _csv(LOSONA_AUDIT_COLUMNS, rows)


def _answer_key(
    name: str, prefix: str, sample: dict[str, str], rows: list[dict[str, Any]]
) -> dict[str, bytes]:
    """A blind CSV's answer key ``name``: the Nth row is item ``PREFIX000N``, with the
    ``sample``'s ids and the subject and judge models ahead of its own fields."""
    models = {"subject_model": "openai/gpt-x", "judge_model": "judge"}
    keyed = [
        {"item_id": f"{prefix}000{i}", **sample, **models, **row} for i, row in enumerate(rows, 1)
    ]
    return {name: _jsonl(keyed)}


def _scene_key() -> dict[str, bytes]:
    rows = [
        {
            "labeller": "turns",
            "kind": kind,
            "turn_id": turn,
            "judge_label": label,
            "judge_verdict": "VALID" if kind == "fidelity" else None,
        }
        for kind, turn, label in (("breach", 6, True), ("fidelity", None, True))
    ]
    return _answer_key("audit.key.jsonl", "S", {"episode_id": "e1", "scenario_id": "s1"}, rows)


def _scene_audit_csv() -> bytes:
    rows = [
        {
            "item_id": item,
            "norm": "Answers are kept to one line.",
            "transcript": "[1] Priya: which service throws?\n[2] Julian: staging will not",
            "question": "Is turn 6 (Julian) a breach?",
            "human_answer": answer,
        }
        for item, answer in (("S0001", "yes"), ("S0002", "No"))
    ]
    return _csv(SCENE_AUDIT_COLUMNS, rows)


def _hsii_key() -> dict[str, bytes]:
    rows = [
        {"stage": "first", "other": "golden", "subject_side": side, "judge_verdict": "win"}
        for side in ("A", "B")
    ]
    return _answer_key("grading.key.jsonl", "G", {"pair_id": "p1", "case_id": "c1"}, rows)


def _hsii_grading_csv() -> bytes:
    rows = [
        {"item_id": "G0001", "topic": "farming", "statement_a": "a", "human_verdict": "A"},
        {"item_id": "G0002", "topic": "farming", "statement_b": "b", "human_verdict": "equal"},
    ]
    return _csv(GRADING_COLUMNS, rows)


def _ratings_csv() -> bytes:
    rows = [
        {"questionnaire": "q1", "agent": "Isabella", "module": module, "score": score}
        for module, score in ((MODULES[1], "6"), (MODULES[5], "7"), (MODULES[8], ""))
    ]
    return _csv(RATING_COLUMNS, rows)


def _hsii_records() -> bytes:
    base = {
        "subject_model": "openai/gpt-x",
        "response": "{'role_to': 'Ana', 'content': 'hello'}",
        "golden_target": "Ana",
        "characters": ["Ana", "Ben"],
        "aliases": {"Ana": ["Annie"]},
        "first_verdicts": ["win", None],
        "domain": "farming",
    }
    return _jsonl([{**base, "case_id": "c1"}, {**base, "case_id": "c2", "long_verdicts": None}])


def _ignore_lint(path: Path) -> object:
    return lint_losona([path], TAXONOMY)


TAXONOMY = load_taxonomy()
DIMENSIONS = load_dimensions()

KINDS: dict[str, Kind] = {
    "losona_scenarios": Kind(
        lambda: _jsonl(
            [
                *_first_rows(TESTS / "losona" / "fixtures" / "scenarios.jsonl", 1),
                _official_losona_row(),
            ]
        ),
        "scenarios.jsonl",
        load_losona_scenarios,
        "jsonl",
    ),
    "losona_validate": Kind(
        lambda: (TESTS / "losona" / "fixtures" / "scenarios.jsonl").read_bytes(),
        "scenarios.jsonl",
        _ignore_lint,
        "jsonl",
    ),
    "scene_scenarios": Kind(
        lambda: _jsonl(_first_rows(SCENE_SCENARIOS_PATH, 2)),
        "scenarios.jsonl",
        lambda path: load_scene_scenarios(path, DIMENSIONS),
        "jsonl",
    ),
    "hsii_cases": Kind(
        lambda: _jsonl(
            [
                *_first_rows(CASES_PATH, 1),
                *_first_rows(TESTS / "hsii" / "fixtures" / "paper_tables.jsonl", 1),
            ]
        ),
        "cases.jsonl",
        load_cases,
        "jsonl",
    ),
    "hsii_dialogues": Kind(
        lambda: _jsonl(_first_rows(HSII_DIALOGUES, 1)), "dialogues.jsonl", load_dialogues, "jsonl"
    ),
    "losona_trial_records": Kind(
        lambda: _jsonl([_losona_record("s1", 1, True), _losona_record("s1", 2, None)]),
        "trials.jsonl",
        lambda path: load_losona_run([path]),
        "jsonl",
    ),
    "hsii_trial_records": Kind(
        _hsii_records, "trials.jsonl", lambda path: load_hsii_run([path]), "jsonl"
    ),
    "losona_audit_csv": Kind(
        _losona_audit_csv, "audit.csv", import_losona_audit, "csv", _losona_key
    ),
    "losona_audit_key": Kind(
        lambda: _losona_key()["audit.key.jsonl"],
        "audit.key.jsonl",
        lambda path: import_losona_audit(path.with_name("audit.csv")),
        "jsonl",
        lambda: {"audit.csv": _losona_audit_csv()},
    ),
    "scene_audit_csv": Kind(_scene_audit_csv, "audit.csv", import_scene_audit, "csv", _scene_key),
    "hsii_grading_csv": Kind(_hsii_grading_csv, "grading.csv", import_grading, "csv", _hsii_key),
    "crsec_ratings_csv": Kind(
        _ratings_csv, "ratings.csv", lambda path: import_ratings([path]), "csv"
    ),
    "crsec_society_json": Kind(
        lambda: json.dumps(_society(), indent=1).encode(), "society.json", load_society, "json"
    ),
    "crsec_society_yaml": Kind(
        lambda: yaml.safe_dump(_small_society(), allow_unicode=True).encode(),
        "society.yaml",
        load_society,
        "yaml",
    ),
    "scripted_model_script": Kind(
        lambda: (TESTS / "losona" / "fixtures" / "script.json").read_bytes(),
        "script.json",
        load_script,
        "json",
    ),
}


@functools.cache
def example_of(kind: str) -> bytes:
    return KINDS[kind].example()


@functools.cache
def beside_of(kind: str) -> dict[str, bytes]:
    return KINDS[kind].beside()


# --- mutations ---------------------------------------------------------------------------

Mutation = Callable[[random.Random, bytes], bytes]
Edit = Callable[[random.Random, bytes, str], bytes]

NOT_UTF8 = (
    b"\xff",
    b"\xfe\xfe",
    b"\xc3\x28",
    b"\xed\xa0\x80",
    b"\xe2\x82",
    b"\xf0\x9f\x98",
    b"\x80",
)
ODD_VALUES: tuple[Any, ...] = (
    None, True, False, 0, 1, -1, 1.5, -0.0, 1e308, "", " ", "x", "yes", "1", [], {}, [1],
    {"a": 1}, "9" * 60, "[/bold]", "\u2028", "line\nbreak",
)  # fmt: skip
PLACEHOLDER = "__normlab_fuzz__"


def _at(rng: random.Random, data: bytes) -> int:
    return rng.randrange(len(data) + 1)


def _insert(rng: random.Random, data: bytes, chunk: bytes) -> bytes:
    at = _at(rng, data)
    return data[:at] + chunk + data[at:]


def flip_byte(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    at = rng.randrange(len(data))
    return data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]


def not_utf8(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, rng.choice(NOT_UTF8))


def byte_order_mark(rng: random.Random, data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: _at(rng, data)]


def empty(rng: random.Random, data: bytes) -> bytes:
    return rng.choice([b"", b"\n", b"  \n\n", b"\xef\xbb\xbf", b"\r\n"])


def stray_quote(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, rng.choice([b'"', b"'", b'""', b'"\n']))


def crlf(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def nul_byte(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, b"\x00")


def huge_field(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, b"a" * rng.choice([131_073, 300_000]))


def long_digits(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, b"9" * rng.choice([4300, 4301, 6000]))


def escape_text(rng: random.Random, data: bytes) -> bytes:
    """A JSON escape where a string may be: lone surrogates, pairs, separators."""
    chunk = rng.choice([b"\\ud800", b"\\udfff", b"\\ud83d\\ude00", b"\\u2028", b"\\u0000", b"\\"])
    quotes = [index + 1 for index, byte in enumerate(data) if byte == ord('"')]
    at = rng.choice(quotes) if quotes else _at(rng, data)
    return data[:at] + chunk + data[at:]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def duplicate_line(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    at = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[at])
    return b"\n".join(lines)


def remove_line(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def swap_lines(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    first, second = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[first], lines[second] = lines[second], lines[first]
    return b"\n".join(lines)


BYTE_MUTATIONS: tuple[Mutation, ...] = (
    flip_byte, flip_byte, not_utf8, byte_order_mark, truncate, empty, stray_quote, crlf,
    nul_byte, huge_field, long_digits, escape_text, duplicate_line, remove_line, swap_lines,
)  # fmt: skip


# JSON-aware mutations rewrite one document (a JSONL line, or a whole JSON file) and fall
# back to a byte mutation when an earlier one already broke it.


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(copy[head], rest, new)
    return copy


def _on_document(edit: Callable[[random.Random, Any], bytes | None]) -> Edit:
    def mutation(rng: random.Random, data: bytes, shape: str) -> bytes:
        lines = _lines(data) if shape == "jsonl" else [data]
        candidates = [index for index, line in enumerate(lines) if line.strip()]
        if not candidates:
            return flip_byte(rng, data)
        at = rng.choice(candidates)
        try:  # an earlier mutation may have left text this harness cannot parse or re-dump
            edited = edit(rng, json.loads(lines[at]))
        except (ValueError, RecursionError):
            edited = None
        if edited is None:
            return flip_byte(rng, data)
        lines[at] = edited
        return b"\n".join(lines)

    mutation.__name__ = edit.__name__
    return mutation


def _dump_with(document: Any, path: tuple[Any, ...], raw: bytes) -> bytes:
    """``document`` with the value at ``path`` spelled as the raw JSON text ``raw``."""
    text = json.dumps(_replace(document, path, PLACEHOLDER)).encode()
    return text.replace(json.dumps(PLACEHOLDER).encode(), raw, 1)


def swap_type(rng: random.Random, document: Any) -> bytes | None:
    path = rng.choice(_paths(document))
    return json.dumps(_replace(document, path, rng.choice(ODD_VALUES))).encode()


def deep_value(rng: random.Random, document: Any) -> bytes | None:
    depth = rng.choice([50, 99, 100, 101, 500, 5000, 200_000])
    opener, closer = rng.choice([(b"[", b"]"), (b'{"a": ', b"}")])
    return _dump_with(
        document, rng.choice(_paths(document)), opener * depth + b"1" + closer * depth
    )


def huge_number(rng: random.Random, document: Any) -> bytes | None:
    raw = rng.choice([b"9" * 5000, b"-" + b"1" * 4301, b"1e999", b"-1e999", b"1" + b"0" * 400])
    return _dump_with(document, rng.choice(_paths(document)), raw)


def lone_surrogate(rng: random.Random, document: Any) -> bytes | None:
    path = rng.choice(_paths(document))
    raw = rng.choice([b'"id\\ud800"', b'"\\udc80"', b'"\\ud83d"', b'"ok \\ud83d\\ude00"'])
    if rng.random() < 0.3 and isinstance(document, dict):
        text = json.dumps(document).encode()
        return text[:1] + raw + b": 1, " + text[1:] if len(text) > 2 else None
    return _dump_with(document, path, raw)


def _pick_key(
    rng: random.Random, document: Any
) -> tuple[tuple[Any, ...], dict[str, Any], str] | None:
    """A dictionary in ``document`` (its path, itself) and one of its keys; ``None`` where the
    one picked is empty or the document holds none."""
    dicts = [path for path in _paths(document) if isinstance(_get(document, path), dict)]
    path = rng.choice(dicts) if dicts else ()
    target = _get(document, path)
    if not isinstance(target, dict) or not target:
        return None
    return path, target, rng.choice(list(target))


def repeat_key(rng: random.Random, document: Any) -> bytes | None:
    picked = _pick_key(rng, document)
    if picked is None:
        return None
    path, target, key = picked
    raw = json.dumps(target).encode()
    again = json.dumps({key: rng.choice(ODD_VALUES)}).encode()[1:-1]
    return _dump_with(document, path, raw[:-1] + b", " + again + b"}")


def drop_key(rng: random.Random, document: Any) -> bytes | None:
    picked = _pick_key(rng, document)
    if picked is None:
        return None
    path, target, key = picked
    kept = {name: value for name, value in target.items() if name != key}
    return json.dumps(_replace(document, path, kept)).encode()


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


JSON_MUTATIONS = tuple(
    _on_document(edit)
    for edit in (
        swap_type,
        swap_type,
        deep_value,
        huge_number,
        lone_surrogate,
        repeat_key,
        drop_key,
    )
)


def csv_cell(rng: random.Random, data: bytes, shape: str) -> bytes:
    """Rewrite one cell (or the header) the way a spreadsheet or a careless hand might."""
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8", "replace"), newline="")))
    except csv.Error:  # an earlier mutation made a cell too long to parse
        return flip_byte(rng, data)
    if not rows:
        return flip_byte(rng, data)
    row = rows[rng.randrange(len(rows))]
    choice = rng.randrange(5)
    if choice == 0 and row:
        row[rng.randrange(len(row))] = rng.choice(
            ["", "yes", "Y", "maybe", "²", "٣", "7", "8", "0", "9" * 5000, "A", "tie", "[/b]"]
        )
    elif choice == 1 and row:
        row.append(rng.choice(["extra", ""]))
    elif choice == 2 and row:
        row.pop(rng.randrange(len(row)))
    elif choice == 3:
        rows.insert(rng.randrange(len(rows) + 1), list(row))
    else:
        rows[0] = [*rows[0], rng.choice(rows[0] or ["item_id"])]
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue().encode()


def yaml_text(rng: random.Random, data: bytes, shape: str) -> bytes:
    """What YAML allows and JSON does not: tags, anchors, odd scalars, tabs."""
    chunk = rng.choice(
        [
            b"name: !!python/object/apply:os.system [echo]\n",
            b"days: !!binary '@@@'\n",
            b"start: 2023-13-45\n",
            b"? [a, b]\n: c\n",
            b"home: &x [*x]\n",
            b"home: *nowhere\n",
            b"\tname: tab\n",
            b"days: 0x" + b"f" * 4000 + b"\n",
            b"days: " + b"9" * 5000 + b"\n",
            b'name: "\\ud800"\n',
            b"places: " + b"[" * 150 + b"]" * 150 + b"\n",
            b"%YAML 9.9\n---\n",
            b"--- \n...\n",
        ]
    )
    return _insert(rng, data, chunk) if rng.random() < 0.5 else data + b"\n" + chunk


def _bytewise(mutation: Mutation) -> Edit:
    def edit(rng: random.Random, data: bytes, shape: str) -> bytes:
        return mutation(rng, data)

    edit.__name__ = mutation.__name__
    return edit


EXTRA: dict[str, list[Edit]] = {
    "jsonl": list(JSON_MUTATIONS) * 2,
    "json": list(JSON_MUTATIONS) * 2,
    "csv": [csv_cell] * 8,
    "yaml": [yaml_text] * 6,
}


def mutant(kind: str, seed: int) -> tuple[bytes, list[str]]:
    """The ``seed``-th mutant of ``kind``'s example and the names of its mutations."""
    rng = random.Random(zlib.crc32(kind.encode()) * 100_000 + seed)
    spec = KINDS[kind]
    # Pure-Python YAML takes a second to scan a 300 kB field: long fields are left to JSON.
    slow = (huge_field,) if spec.shape == "yaml" else ()
    pool = [_bytewise(m) for m in BYTE_MUTATIONS if m not in slow] + EXTRA[spec.shape]
    data = example_of(kind)
    applied = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        edit = rng.choice(pool)
        data = edit(rng, data, spec.shape)
        applied.append(edit.__name__)
    return data, applied


# --- the tests ---------------------------------------------------------------------------


def _write(folder: Path, kind: str, data: bytes) -> Path:
    for name, content in beside_of(kind).items():
        (folder / name).write_bytes(content)
    path = folder / KINDS[kind].name
    path.write_bytes(data)
    return path


MAX_MESSAGE = 600
"""Longer than any error normlab writes about a file; a user's value is quoted, never pasted."""


def where(kind: str, seed: int, applied: list[str]) -> str:
    return f"mutant({kind!r}, {seed}) [{', '.join(applied)}]"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_valid_example_loads(kind: str, tmp_path: Path) -> None:
    """The fuzzing starts from inputs that load, so what fails is the mutation's doing."""
    KINDS[kind].load(_write(tmp_path, kind, example_of(kind)))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_any_bytes_load_or_raise_a_normlab_error(
    kind: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)  # not a warning per defaulted field per mutant
    spec = KINDS[kind]
    surprises: list[str] = []
    outcomes = {"loaded": 0, "rejected": 0}
    for seed in range(MUTANTS_PER_KIND):
        data, applied = mutant(kind, seed)
        path = _write(tmp_path, kind, data)
        try:
            spec.load(path)
            outcomes["loaded"] += 1
        except NormlabError as error:
            outcomes["rejected"] += 1
            message = str(error)
            if "\n" in message or len(message) > MAX_MESSAGE:
                surprises.append(
                    f"{where(kind, seed, applied)}: not one short line: {message!r:.300}"
                )
        except Exception as error:  # the point of the test: nothing else may escape
            surprises.append(
                f"{where(kind, seed, applied)}: {type(error).__name__}: {str(error)[:200]}"
            )
    assert not surprises, f"{len(surprises)} mutants escaped:\n" + "\n".join(surprises[:20])
    # Both outcomes occur: the mutations neither all miss nor all break the file.
    assert outcomes["loaded"] and outcomes["rejected"], outcomes
