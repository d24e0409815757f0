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
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from normlab.core.errors import InputError
from normlab.core.jsonio import validate_row, validation_field
from normlab.core.logs import BASE_AGENT
from normlab.core.variants import OPTION as VARIANT_OPTION
from normlab.core.variants import PAPER, VariantSpec, canonical_variant
from normlab.core.yamlio import read_yaml
from normlab.specs import parts, specs
from normlab.specs import spec as find_system


def _known_system(name: str) -> str:
    """A system a spec declares (``normlab.specs``)."""
    known = [system.name for system in specs()]
    if name not in known:
        raise ValueError(f"no system {name!r}; known: {', '.join(known)}")
    return name


SystemName = Annotated[str, AfterValidator(_known_system)]
"""The name of a system (``losona``, ``scene``, ``hsii``, ``crsec``)."""
PATH_OPTIONS = ("scenarios", "cases", "society")
"""Task arguments that name a file or folder (resolved against the study file's folder)."""
SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


MAX_VARIANTS = 20
"""Prompt variants per system: each is every subject's cells again."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


MAX_PRICE = 100_000.0
"""US dollars per million tokens no model costs (the dearest list prices are hundreds): a
price of ``inf`` or ``1e308`` is a typo, and would make every cost infinite or overflow."""


class Price(Strict):
    """US dollars per million tokens."""

    input: float = Field(ge=0, le=MAX_PRICE, allow_inf_nan=False)
    """Per million input (prompt) tokens."""
    output: float = Field(ge=0, le=MAX_PRICE, allow_inf_nan=False)
    """Per million output tokens, thinking tokens included."""


class DryRun(Strict):
    """The scripted model(s) a plan counts calls with, standing in for every model of the
    system (a busy subject: one that answers every prompt in full)."""

    model: str
    """The script standing in for the subject and every role (``scripted/PATH``)."""
    roles: dict[str, str] = Field(default_factory=dict)
    """Roles answered by another script (HSII's reference)."""


class SystemEntry(Strict):
    """One system of the study (a key of ``systems``): its task's arguments and its models."""

    options: dict[str, object] = Field(default_factory=dict)
    """The task's arguments, by the ``@task`` function's parameter names."""
    roles: dict[str, str] = Field(default_factory=dict)
    """Models for this system's roles (over the study's ``roles``)."""
    dry_run: DryRun | None = None
    """What ``study plan`` counts with; needed unless every model of the system is scripted."""
    shards: int = Field(default=1, ge=1, le=1000)
    """Parts each cell of this system runs as (``--shard I/N``): on Ray, one task each."""
    judges: list[str] = Field(default_factory=list, max_length=4)
    """Extra judge models: each finished cell's logs are judged again by each, without
    re-running the subject (``normlab.study.judges``), and the report compares them."""
    variants: list[str] = Field(default_factory=list, max_length=MAX_VARIANTS)
    """Prompt variants besides the paper's prompt, which always runs (``rename:1``,
    ``file:PATH``…, as the task's ``variant`` takes them): each subject's cells run again
    under each, and the report gives the spread and the ranking's stability across them
    (``normlab.study.variants``)."""


class Subject(Strict):
    """A model in the subject's seat, alone or wrapped by an agent."""

    name: str
    """The cell folder's name (``OUT/SYSTEM/NAME``): letters, digits, ``.``, ``_``, ``-``."""
    model: str
    """The subject model (any Inspect model string)."""
    agent: str = BASE_AGENT
    """``base`` (the model alone) or ``norm-memory`` (the norm-learning subject around it)."""
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
    """A study file: which systems to run, on which subjects, with which models in the other
    roles; every cell is one system × one subject, run by the system's own run."""

    name: str
    """What the plan and the report call the study."""
    out: str
    """The output folder: every cell's logs go under ``OUT/SYSTEM/SUBJECT``."""
    systems: dict[SystemName, SystemEntry] = Field(min_length=1)
    """The systems to run (``losona``, ``scene``, ``hsii``, ``crsec``), each with its own
    options and models."""
    subjects: list[Subject] = Field(min_length=1)
    """The subjects, each run on every system; their names are distinct."""
    roles: dict[str, str] = Field(default_factory=dict)
    """Models for the other roles (judge, persona, …), for every system that has the role."""
    seed: int | None = None
    """Given to every task that takes a ``seed`` and was given none in its options."""
    max_connections: int = Field(default=10, ge=1)
    """Concurrent calls per model: the runs' limit and the plan's wall-time bound."""
    prices: dict[str, Price] = Field(default_factory=dict)
    """$ per 1M input/output tokens by model string, over Inspect's own prices."""

    @field_validator("out")
    @classmethod
    def _folder(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("name the output folder (an empty out would be the study's own)")
        return value

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


def _local_path(value: str, base: Path, source: Path, field: str, keep_absolute: bool) -> str:
    """A path of the study made absolute: ``~`` and ``~user`` expanded as a shell would (a
    folder literally named ``~`` under the study's folder is never what was meant), then a
    relative path taken against ``base``, the study file's folder (an absolute one resolved
    too unless ``keep_absolute``)."""
    expanded = os.path.expanduser(value)
    if expanded.startswith("~"):
        raise InputError(source, f"{value!r}: no such user's home folder", field=field)
    if keep_absolute and Path(expanded).is_absolute():
        return expanded
    return str((base / expanded).resolve())


def _variant_path(text: str, base: Path, source: Path, field: str) -> str:
    """A ``file:PATH`` variant with PATH made absolute against the study's folder, as every
    path of the study is; any other variant as given."""
    kind, colon, argument = text.strip().partition(":")
    if kind != "file" or not colon or not argument.strip():
        return text
    return f"file:{_local_path(argument, base, source, field, True)}"


def _resolve(study: Study, base: Path, source: Path) -> Study:
    """Every relative path in the study made absolute against ``base`` (its folder)."""

    def model(text: str) -> str:
        return _resolved_model(text, base)

    out = study.out if "://" in study.out else _local_path(study.out, base, source, "out", False)
    systems = {}
    for name, spec in study.systems.items():
        options = dict(spec.options)
        for key in PATH_OPTIONS:
            value = options.get(key)
            if isinstance(value, str) and "://" not in value:
                field = f"systems.{name}.options.{key}"
                options[key] = _local_path(value, base, source, field, True)
        dry = spec.dry_run
        variants = [
            _variant_path(text, base, source, f"systems.{name}.variants.{index}")
            for index, text in enumerate(spec.variants)
        ]
        systems[name] = spec.model_copy(
            update={
                "options": options,
                "variants": variants,
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


def check_roles(study: Study, path: Path, roles: Mapping[str, Sequence[str]]) -> None:
    """Every role the study names is one a system has (``roles``: each system's, besides the
    subject): ``roles: {juge: …}`` would otherwise be dropped and the judge left on the
    embedded model, where ``--role juge=…`` on the command line is refused."""
    every = sorted({role for name in study.systems for role in roles[name]})
    for role in study.roles:
        if role not in every:
            raise InputError(
                path,
                f"unknown role {role!r}; the study's systems have: {', '.join(every)}",
                field=f"roles.{role}",
            )
    for name, spec in study.systems.items():
        known = list(roles[name])
        named = [("roles", spec.roles)]
        if spec.dry_run is not None:
            named.append(("dry_run.roles", spec.dry_run.roles))
        for where, given in named:
            for role in given:
                if role not in known:
                    raise InputError(
                        path,
                        f"unknown role {role!r}; {name} has: {', '.join(known)}",
                        field=f"systems.{name}.{where}.{role}",
                    )


def check_options(study: Study, path: Path, factories: Mapping[str, Callable[..., object]]) -> None:
    """Each system's options name parameters of its ``@task`` function (``factories``) and
    hold values of the parameter's type (``epochs: three`` is refused here, on one line,
    rather than deep in the task), and an agent is given only to a system whose task takes
    one: one line naming the key."""
    for name, spec in study.systems.items():
        parameters = inspect.signature(factories[name], eval_str=True).parameters
        for key in spec.options:
            if key not in parameters or key == "agent":
                known = ", ".join(p for p in parameters if p != "agent")
                raise InputError(
                    path,
                    f"unknown option; {name} takes: {known}",
                    field=f"systems.{name}.options.{key}",
                )
            _check_type(parameters[key], spec.options[key], path, f"systems.{name}.options.{key}")
        if spec.shards > 1 and not parts(find_system(name)).shardable:
            raise InputError(
                path,
                f"a {find_system(name).title} cell is not split into shards",
                field=f"systems.{name}.shards",
            )
        for index, subject in enumerate(study.subjects):
            if subject.agent != BASE_AGENT and "agent" not in parameters:
                raise InputError(path, f"{name} takes no agent", field=f"subjects.{index}.agent")


def variant_list(spec: SystemEntry) -> list[str]:
    """A system's prompt variants as its cells run them: the paper's prompt first (always
    run, whether listed or not), then each other variant once, in the file's order, each in
    its canonical form (``rename:01`` is ``rename:1``: one variant, one folder)."""
    given = [canonical_variant(text) for text in spec.variants]
    return [PAPER, *dict.fromkeys(text for text in given if text != PAPER)] if given else []


def check_variants(study: Study, path: Path) -> None:
    """Each system's ``variants`` checked by the system itself (its parts' ``variants``, as
    its task will check them: the kind, the seed, an instruction file's placeholders), none
    twice and no two in one folder (``file:a/x.txt`` and ``file:b/x.txt``), and not beside
    an ``options.variant``: a bad one is one line naming the study file and the entry."""
    for name, spec in study.systems.items():
        if not spec.variants:
            continue
        system = find_system(name)
        check = parts(system).variants
        if check is None:
            raise InputError(
                path, f"{system.title} has no prompt variants", field=f"systems.{name}.variants"
            )
        if "variant" in spec.options:
            raise InputError(
                path,
                "give prompt variants under variants: (the paper's prompt runs beside them)",
                field=f"systems.{name}.options.variant",
            )
        folders: dict[str, str] = {}
        for index, text in enumerate(spec.variants):
            field = f"systems.{name}.variants.{index}"
            try:
                checked = check(text)
            except InputError as error:
                where = "" if error.path == VARIANT_OPTION else f"{error.path}: "
                raise InputError(path, where + error.problem, field=field) from None
            kind, _, argument = checked.partition(":")
            folder = VariantSpec(kind, argument).slug
            if folder in folders:
                other = folders[folder]
                problem = (
                    f"{checked!r} is listed twice"
                    + ("" if text.strip() == checked else f" (as {text.strip()!r})")
                    if other == checked
                    else f"{checked!r} and {other!r} would share the folder {folder!r}"
                )
                raise InputError(path, problem, field=field)
            folders[folder] = checked


def _check_type(parameter: inspect.Parameter, value: object, path: Path, field: str) -> None:
    """``value`` fits the task parameter's annotation, strictly (the task is given the value
    as it stands: ``"3"`` for a whole number would reach it as text)."""
    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty or isinstance(annotation, str):
        return
    try:
        TypeAdapter(annotation).validate_python(value, strict=True)
    except ValidationError as error:
        _, message = validation_field(error)
        raise InputError(path, f"{message}, got {value!r}"[:200], field=field) from None


MAX_STUDY_BYTES = 1_000_000
"""A study file is a page of YAML; a larger one is refused unread."""


def load_study(path: Path, out: str | None = None) -> Study:
    """Read and validate a study file; relative paths resolved against its folder. Read as
    every YAML file is (``normlab.core.yamlio.read_yaml``): a regular file of UTF-8 text,
    no key twice in one mapping, aliases within a small budget. ``out`` (the command line's
    ``--out``) replaces the file's own, a relative path taken from the working folder as any
    path typed on a command line is."""
    raw = read_yaml(path, MAX_STUDY_BYTES)
    if not isinstance(raw, dict):
        raise InputError(path, "a study file is a mapping (name, out, systems, subjects, …)")
    study = _resolve(validate_row(Study, raw, path), path.resolve().parent, path)
    if out is None:
        return study
    if not out.strip():
        raise InputError("--out", "name the study's folder")
    here = Path.cwd()
    folder = out if "://" in out else _local_path(out, here, Path("--out"), "--out", False)
    return study.model_copy(update={"out": folder})
