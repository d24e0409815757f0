"""The listing: each system README's Options table, changelog check and task card, from the code.

A README that repeats a task's ``Args:`` by hand drifts from the task the day an argument
changes. So, as inspect_evals does (its ``tools/generate_readmes.py``), the Options table of
each system README is written from the code, between the markers
``<!-- Options: Automatically Generated -->`` and ``<!-- /Options: Automatically Generated -->``:

- LoSoNA, SCENE, HSII: one row per parameter of the system's ``@task`` function (what
  ``inspect eval normlab/SYSTEM -T name=value`` takes), with the option ``normlab SYSTEM run``
  offers for it, its default, and its line in the function's ``Args:`` docstring (read by
  :func:`normlab.commands.signature.task_parameters`, as ``run --help`` reads it);
- CRSEC, which is no Inspect task: one row per option of ``normlab crsec run``, with its help.

Each Inspect task also has a listing card, ``src/normlab/SYSTEM/eval.yaml``, in the shape of
inspect_evals' ``eval.yaml`` so the tasks can be listed in that register. Its ``title``,
``description``, ``arxiv`` and ``group`` are written by hand; its ``version``, each task's
``dataset_samples`` (the samples the task builds with its defaults) and ``metadata.data`` (the
shipped data the task reads, and the SHA-256 its logs record) are written here from the task
itself. The version is inspect_evals' ``N-X``: ``N`` is the task's ``TASK_VERSION`` (what Inspect
records as the log's task version: a new ``N``, results not comparable with the old), and ``X``
the interface letter (``A`` from each new ``N`` on). The README's ``## Changelog`` says what each
version changed; its newest entry must be the card's version.

CRSEC has no card: the register lists tasks that ``inspect eval`` runs, and a CRSEC run is a
simulation with its own loop and run folder (``normlab crsec run``), not an Inspect task, so it
has no task version, no samples and nothing ``inspect eval`` could start.

    python -m tools.listing          # rewrite every stale table and card
    python -m tools.listing --check  # say what is stale, exit 1 if anything is

``tests/test_listing.py`` runs the check, so a task argument, a help line, the shipped data or a
``TASK_VERSION`` that changes without its README and card fails the tests.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer.main
import yaml
from typer.core import TyperCommand, TyperGroup, TyperOption

import normlab
from normlab.commands.signature import task_parameters
from normlab.core.outputs import replace_file
from normlab.core.sources import DATA_KEY, DataSource

SOURCE = Path(normlab.__file__).resolve().parent
ROOT = SOURCE.parents[1]
OPTIONS_KEY = "Options: Automatically Generated"
CARD = "eval.yaml"
INTERFACE = "A"
"""The interface letter of every card's version (``N-A``): no task has changed its interface
under one ``TASK_VERSION`` yet."""
CARD_HEADER = (
    "# The listing card of normlab's {system} tasks, in the shape of inspect_evals' eval.yaml.\n"
    "# title, description, arxiv and group are written by hand; version, tasks and\n"
    "# metadata.data are written by `python -m tools.listing` from the task and its shipped\n"
    "# data (tests/test_listing.py checks them).\n"
)
CHANGELOG_ENTRY = re.compile(r"^### \[(?P<version>(?P<n>\d+)-(?P<x>[A-Z]))\] - \d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class System:
    """One system's folder in the package: ``src/normlab/NAME``."""

    name: str

    @property
    def folder(self) -> Path:
        return SOURCE / self.name

    @property
    def readme(self) -> Path:
        return self.folder / "README.md"

    @property
    def card(self) -> Path:
        return self.folder / CARD

    @property
    def task(self) -> str | None:
        """``module:function`` of its main ``@task`` (named as the system is), if it has one."""
        if not (self.folder / "task.py").is_file():
            return None
        return f"normlab.{self.name}.task:{self.name}"

    def task_version(self) -> int:
        """``TASK_VERSION`` of its ``task.py``: the version Inspect records in its logs."""
        version = importlib.import_module(f"normlab.{self.name}.task").TASK_VERSION
        assert isinstance(version, int)
        return version

    def run_command(self) -> TyperCommand:
        """``normlab NAME run``, as typer builds it from the system's app for ``--help``."""
        app = importlib.import_module(f"normlab.{self.name}.cli").app
        group = typer.main.get_command(app)
        assert isinstance(group, TyperGroup)
        command = group.commands.get("run")
        assert isinstance(command, TyperCommand), f"normlab {self.name} has no run command"
        return command


def systems() -> list[System]:
    """Every package folder whose README carries the Options markers."""
    return [
        System(readme.parent.name)
        for readme in sorted(SOURCE.glob("*/README.md"))
        if f"<!-- {OPTIONS_KEY} -->" in readme.read_text(encoding="utf-8")
    ]


# --- the Options table ------------------------------------------------------------------------


def cell(text: str) -> str:
    """``text`` in one Markdown table cell: docstring literals (````x````) as code, the
    column separator escaped, whitespace folded."""
    text = re.sub(r"``([^`]+)``", r"`\1`", " ".join(text.split()))
    return text.replace("|", "\\|")


def shown_default(value: Any, readme: Path) -> str:
    """A default as the README shows it: a path inside the package relative to the README."""
    if value is ...:
        return "required"
    if isinstance(value, Path):
        resolved = value.resolve()
        if resolved.is_relative_to(readme.parent):
            return f"`{resolved.relative_to(readme.parent).as_posix()}`"
        return f"`{value}`"
    if isinstance(value, (list, tuple)) and not value:
        return "none"
    return f"`{value!r}`"


def option_names(parameter: TyperOption) -> str:
    """``--faithful`` / ``--no-faithful``, ``--model`` / ``-m``: every spelling of an option."""
    return ", ".join(f"`{name}`" for name in (*parameter.opts, *parameter.secondary_opts))


def options_of(command: TyperCommand) -> list[TyperOption]:
    """The options ``--help`` lists (arguments and hidden options left out)."""
    return [p for p in command.params if isinstance(p, TyperOption) and not p.hidden]


def task_rows(system: System, command: TyperCommand) -> list[list[str]]:
    """One row per parameter of the system's task: ``-T`` name, run option, default, meaning."""
    assert system.task is not None
    offered = {parameter.name: parameter for parameter in options_of(command)}
    rows = []
    for parameter in task_parameters(system.task):
        option = offered.get(parameter.name)
        meaning = parameter.help[:1].upper() + parameter.help[1:]
        rows.append(
            [
                f"`{parameter.name}`",
                option_names(option) if option is not None else "not offered",
                shown_default(parameter.default, system.readme),
                cell(meaning),
            ]
        )
    return rows


def command_rows(system: System, command: TyperCommand) -> list[list[str]]:
    """One row per option of ``normlab SYSTEM run``: names, default, its help."""
    return [
        [
            option_names(option),
            # A default the command shows by name (``show_default="Hobbs Cafe"``) by that name.
            option.show_default
            if isinstance(option.show_default, str)
            else shown_default(option.default, system.readme),
            cell(option.help or ""),
        ]
        for option in options_of(command)
    ]


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def options_table(system: System) -> list[str]:
    """The lines between the README's Options markers."""
    command = system.run_command()
    if system.task is None:
        return table(["option", "default", "meaning"], command_rows(system, command))
    header = ["`-T` argument", f"`normlab {system.name} run`", "default", "meaning"]
    return table(header, task_rows(system, command))


def with_section(text: str, key: str, lines: Sequence[str], where: Path) -> str:
    """``text`` with the lines between ``<!-- key -->`` and ``<!-- /key -->`` replaced."""
    start, end = f"<!-- {key} -->", f"<!-- /{key} -->"
    if text.count(start) != 1 or text.count(end) != 1 or text.index(start) > text.index(end):
        raise ValueError(f"{where}: expected one {start} … {end} pair")
    before, rest = text.split(start + "\n", 1)
    _, after = rest.split(end, 1)
    return before + start + "\n" + "\n".join(lines) + "\n" + end + after


def current_readme(system: System) -> str:
    """The system's README with its Options table as the code says it is."""
    text = system.readme.read_text(encoding="utf-8")
    return with_section(text, OPTIONS_KEY, options_table(system), system.readme)


# --- the changelog ----------------------------------------------------------------------------


def changelog_versions(readme_text: str) -> list[str]:
    """The versions of the README's ``## Changelog`` entries, newest first (``["3-A", …]``)."""
    section = readme_text.split("\n## Changelog\n", 1)
    if len(section) == 1:
        return []
    body = section[1].split("\n## ", 1)[0]
    return [
        found["version"]
        for line in body.splitlines()
        if (found := CHANGELOG_ENTRY.match(line)) is not None
    ]


def changelog_problems(system: System, readme_text: str) -> Iterator[str]:
    """What is wrong with the changelog: its newest entry is not ``TASK_VERSION``, or an ``N``
    is missing between it and 1."""
    versions = changelog_versions(readme_text)
    expected = system.task_version()
    where = system.readme.relative_to(ROOT)
    if not versions:
        yield f"{where}: no '## Changelog' entry ('### [N-X] - YYYY-MM-DD')"
        return
    numbers = [int(version.split("-")[0]) for version in versions]
    if numbers[0] != expected:
        yield f"{where}: newest changelog entry is {versions[0]}, TASK_VERSION is {expected}"
    if sorted(set(numbers), reverse=True) != list(range(max(numbers), 0, -1)):
        yield f"{where}: changelog versions {', '.join(versions)} skip one or are out of order"


# --- the card ---------------------------------------------------------------------------------


def built_task(system: System, name: str) -> Any:
    """The task ``name`` of the system, built with its defaults (as ``inspect eval`` would).
    Inspect prints a banner naming its hooks when it first builds a task's models: kept out of
    this program's output, which is the list of stale files."""
    factory = getattr(importlib.import_module(f"normlab.{system.name}.task"), name)
    with contextlib.redirect_stdout(io.StringIO()):
        return factory()


def card_data(system: System, source: DataSource) -> dict[str, Any]:
    """The shipped data a task reads, as the card lists it: files relative to the system's
    package (where the card lies), and the digest its logs record."""
    package = importlib.import_module(f"normlab.{system.name}")
    assert package.__file__ is not None
    folder = Path(package.__file__).resolve().parent
    return {
        "sha256": source.sha256,
        "files": [
            {
                "path": Path(file.location).resolve().relative_to(folder).as_posix(),
                "sha256": file.sha256,
                "bytes": file.size,
            }
            for file in source.files
        ],
    }


def current_card(system: System) -> dict[str, Any]:
    """The card as the task says it is: the written fields kept, the generated ones redone."""
    card = yaml.safe_load(system.card.read_text(encoding="utf-8"))
    if not isinstance(card, dict) or not isinstance(card.get("tasks"), list):
        raise ValueError(f"{system.card}: expected a mapping with a 'tasks' list")
    tasks = []
    data: dict[str, Any] | None = None
    for entry in card["tasks"]:
        task = built_task(system, entry["name"])
        source = DataSource.model_validate(task.metadata[DATA_KEY])
        this = card_data(system, source)
        if data is not None and this != data:
            raise ValueError(f"{system.card}: task {entry['name']} reads other data")
        data = this
        tasks.append({**entry, "dataset_samples": len(task.dataset)})
    written = {key: card[key] for key in ("title", "description", "arxiv", "group") if key in card}
    return {
        **written,
        "version": f"{system.task_version()}-{INTERFACE}",
        "tasks": tasks,
        "metadata": {**card.get("metadata", {}), "data": data},
    }


class _CardDumper(yaml.SafeDumper):
    """YAML as a person writes a card: a text of several lines as a ``|`` block."""


def _text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_CardDumper.add_representer(str, _text)


def card_text(system: System, card: dict[str, Any]) -> str:
    body = yaml.dump(card, Dumper=_CardDumper, sort_keys=False, allow_unicode=True, width=100)
    return CARD_HEADER.format(system=system.name) + body


# --- checking and writing ---------------------------------------------------------------------


def stale(selected: Sequence[System] | None = None) -> list[str]:
    """One line per README or card that is not what the code makes it, and per changelog
    that does not end at ``TASK_VERSION``; empty when all are current."""
    found = []
    for system in systems() if selected is None else selected:
        readme = current_readme(system)
        if readme != system.readme.read_text(encoding="utf-8"):
            found.append(f"{system.readme.relative_to(ROOT)}: Options table is stale")
        if system.task is None:
            continue
        found.extend(changelog_problems(system, readme))
        if not system.card.is_file():
            found.append(f"{system.card.relative_to(ROOT)}: missing")
        elif card_text(system, current_card(system)) != system.card.read_text(encoding="utf-8"):
            found.append(f"{system.card.relative_to(ROOT)}: stale (version, samples or data)")
    return found


def write(selected: Sequence[System] | None = None) -> list[Path]:
    """Rewrite every stale README table and card; the files written."""
    written = []
    for system in systems() if selected is None else selected:
        readme = current_readme(system)
        if readme != system.readme.read_text(encoding="utf-8"):
            written.append(replace_file(system.readme, readme))
        if system.task is not None and system.card.is_file():
            card = card_text(system, current_card(system))
            if card != system.card.read_text(encoding="utf-8"):
                written.append(replace_file(system.card, card))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.listing", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only say what is stale")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale()
        for line in problems:
            print(line)
        return 1 if problems else 0
    for path in write():
        print(f"wrote {path.relative_to(ROOT)}")
    problems = stale()  # what writing cannot fix: a changelog behind TASK_VERSION, no card
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
