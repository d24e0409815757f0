"""The study file: systems × subjects × roles, read once and checked before anything runs.

A study is a YAML file, validated here with pydantic, so a typo in a key or a model string
fails on one line naming the file and the key path (``systems.losona.options.epoch``), exit 2,
before a dry run or a paid call. Each system's ``options`` are its task's own arguments,
under the names ``-T`` and ``normlab SYSTEM run`` take (the ``@task`` function's parameters),
so a study says what one command line would, once per system.

Relative paths resolve against the study file's folder, not the working directory, so a
study runs the same from anywhere: ``out``, the path-valued options (``scenarios``,
``cases``) and the script of every ``scripted/PATH`` model.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from normlab.core.errors import InputError
from normlab.core.jsonio import validate_row
from normlab.core.logs import BASE_AGENT

SystemName = Literal["losona", "scene", "hsii", "crsec"]
PATH_OPTIONS = ("scenarios", "cases", "society")
"""Task arguments that name a file or folder (resolved against the study file's folder)."""
SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Price(Strict):
    """US dollars per million tokens."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)


class DryRun(Strict):
    """The scripted model(s) a plan counts calls with, standing in for every model of the
    system (a busy subject: one that answers every prompt in full)."""

    model: str
    roles: dict[str, str] = Field(default_factory=dict)
    """Roles answered by another script (HSII's reference)."""


class SystemSpec(Strict):
    options: dict[str, Any] = Field(default_factory=dict)
    """The task's arguments, by the ``@task`` function's parameter names."""
    roles: dict[str, str] = Field(default_factory=dict)
    """Models for this system's roles (over the study's ``roles``)."""
    dry_run: DryRun | None = None
    """What ``study plan`` counts with; needed unless every model of the system is scripted."""
    shards: int = Field(default=1, ge=1, le=1000)
    """Parts each cell of this system runs as (``--shard I/N``): on Ray, one task each."""
    judges: list[str] = Field(default_factory=list, max_length=4)
    """Extra judge models: each finished cell's logs are judged again by each, without
    re-running the subject (:mod:`normlab.study.judges`), and the report compares them."""


class Subject(Strict):
    """A model in the subject's seat, alone or wrapped by an agent."""

    name: str
    """The cell folder's name (``OUT/SYSTEM/NAME``): letters, digits, ``.``, ``_``, ``-``."""
    model: str
    agent: str = BASE_AGENT
    models: dict[SystemName, str] = Field(default_factory=dict)
    """The model per system where it differs (a scripted subject has one script per system)."""

    @field_validator("name")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not SLUG.match(value):
            raise ValueError("a subject's name is a folder name: letters, digits, '.', '_', '-'")
        return value

    def model_for(self, system: str) -> str:
        return next((m for name, m in self.models.items() if name == system), self.model)


class Study(Strict):
    name: str
    out: str
    """The output folder: every cell's logs go under ``OUT/SYSTEM/SUBJECT``."""
    systems: dict[SystemName, SystemSpec] = Field(min_length=1)
    subjects: list[Subject] = Field(min_length=1)
    roles: dict[str, str] = Field(default_factory=dict)
    """Models for the other roles (judge, persona, …), for every system that has the role."""
    seed: int | None = None
    """Given to every task that takes a ``seed`` and was given none in its options."""
    max_connections: int = Field(default=10, ge=1)
    """Concurrent calls per model: the runs' limit and the plan's wall-time bound."""
    prices: dict[str, Price] = Field(default_factory=dict)
    """$ per 1M input/output tokens by model string, over Inspect's own prices."""

    @model_validator(mode="after")
    def _distinct_subjects(self) -> Study:
        names = [subject.name for subject in self.subjects]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"subject name {name!r} is used twice")
        return self


def _resolved_model(model: str, base: Path) -> str:
    """``scripted/REL`` with REL made absolute against the study's folder."""
    provider, _, rest = model.partition("/")
    if provider == "scripted" and rest and not Path(rest).is_absolute():
        return f"scripted/{(base / rest).resolve()}"
    return model


def _resolve(study: Study, base: Path) -> Study:
    """Every relative path in the study made absolute against ``base`` (its folder)."""

    def model(text: str) -> str:
        return _resolved_model(text, base)

    out = study.out if "://" in study.out else str((base / study.out).resolve())
    systems = {}
    for name, spec in study.systems.items():
        options = dict(spec.options)
        for key in PATH_OPTIONS:
            value = options.get(key)
            if isinstance(value, str) and "://" not in value and not Path(value).is_absolute():
                options[key] = str((base / value).resolve())
        dry = spec.dry_run
        systems[name] = spec.model_copy(
            update={
                "options": options,
                "roles": {role: model(m) for role, m in spec.roles.items()},
                "judges": [model(m) for m in spec.judges],
                "dry_run": dry
                and DryRun(
                    model=model(dry.model), roles={r: model(m) for r, m in dry.roles.items()}
                ),
            }
        )
    subjects = [
        s.model_copy(
            update={"model": model(s.model), "models": {k: model(m) for k, m in s.models.items()}}
        )
        for s in study.subjects
    ]
    roles = {role: model(m) for role, m in study.roles.items()}
    prices = {model(m): price for m, price in study.prices.items()}
    return study.model_copy(
        update={
            "out": out,
            "systems": systems,
            "subjects": subjects,
            "roles": roles,
            "prices": prices,
        }
    )


def check_options(study: Study, path: Path, factories: dict[str, Any]) -> None:
    """Each system's options name parameters of its ``@task`` function (``factories``), and
    an agent is given only to a system whose task takes one: one line naming the key."""
    for name, spec in study.systems.items():
        parameters = inspect.signature(factories[name]).parameters
        for key in spec.options:
            if key not in parameters or key == "agent":
                known = ", ".join(p for p in parameters if p != "agent")
                raise InputError(
                    path,
                    f"unknown option; {name} takes: {known}",
                    field=f"systems.{name}.options.{key}",
                )
        if name == "crsec" and spec.shards > 1:
            raise InputError(
                path, "a CRSEC cell is not split: give options.runs", field="systems.crsec.shards"
            )
        for index, subject in enumerate(study.subjects):
            if subject.agent != BASE_AGENT and "agent" not in parameters:
                raise InputError(path, f"{name} takes no agent", field=f"subjects.{index}.agent")


def load_study(path: Path) -> Study:
    """Read and validate a study file; relative paths resolved against its folder."""
    if not path.is_file():
        raise InputError(path, "no such study file")
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(error, "problem", None) or "not valid YAML"
        raise InputError(path, f"not valid YAML: {problem}", line=line) from error
    if not isinstance(raw, dict):
        raise InputError(path, "a study file is a mapping (name, out, systems, subjects, …)")
    return _resolve(validate_row(Study, raw, path), path.resolve().parent)
