"""Fields of a data row that its model does not know: kept as metadata, unless a near miss.

Real data sets carry columns a benchmark does not read (a release's ``license``, ``source``,
``split``); refusing them would make every such file unloadable, so each system's loader keeps
them beside the row (its model's ``model_extra``: in the sample's metadata, in the log, and
in what ``validate`` prints). A name that is only a near miss of a field the model does know
is refused instead: ``scenaro_id`` or ``Topic`` is a spelling mistake, and keeping it as
metadata would drop that field's value unseen (a misspelt optional field would take its
default).

The rule, one for every loader: compared in Unicode NFC and lower case (``casefold``), with
``-`` and spaces read as ``_``, an unknown name is a near miss of a known field when

- it equals it (``Topic``, ``scenario-id``, ``Norm_ID``);
- ``difflib.SequenceMatcher``'s similarity ratio of the two is at least
  ``NEAR_MISS_RATIO`` (0.85): a letter dropped or added in a name of four letters or more,
  a plural ``s`` (``scenaro_id``, ``transcripts``, ``topics``), two or more slips in a long
  name (``demonstraton_turn_id``); or
- it has the same length, at least ``MIN_SLIP_LENGTH`` letters, and differs by one letter
  changed or two neighbouring letters swapped (``domian``, ``goldne``, ``topik``), which the
  ratio misses in short names.

A different word that shares a prefix is kept: ``source`` beside ``source_id`` (ratio 0.80),
``scenario`` beside ``scenario_id`` (0.84), ``event`` beside ``event_id`` (0.77), and so is a
four-letter name one letter from a field (``case`` beside ``cast``).
"""

from __future__ import annotations

import difflib
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from normlab.core.errors import InputError, shortened
from normlab.core.jsonio import validate_row

ModelT = TypeVar("ModelT", bound=BaseModel)

NEAR_MISS_RATIO = 0.85
"""The least ``difflib.SequenceMatcher`` ratio at which an unknown name is a near miss."""
MIN_SLIP_LENGTH = 5
"""The shortest name in which one changed or swapped letter makes a near miss (shorter names
are too often other words: ``case``, ``cast``)."""


def _shape(name: str) -> str:
    """A field name as compared: NFC, case folded, ``-`` and spaces read as ``_``."""
    return unicodedata.normalize("NFC", name).casefold().replace("-", "_").replace(" ", "_")


def _one_slip(a: str, b: str) -> bool:
    """``a`` and ``b`` (of one length, at least ``MIN_SLIP_LENGTH``) differ by one changed
    letter or by two neighbouring letters swapped."""
    if len(a) != len(b) or len(a) < MIN_SLIP_LENGTH:
        return False
    differ = [index for index, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if len(differ) == 1:
        return True
    if len(differ) == 2 and differ[1] == differ[0] + 1:
        first, second = differ
        return a[first] == b[second] and a[second] == b[first]
    return False


def near_miss(name: str, known: Iterable[str]) -> str | None:
    """The known field ``name`` is a near miss of (see the module's rule), or None."""
    shaped = {_shape(field): field for field in known}
    mine = _shape(name)
    if mine in shaped:
        return shaped[mine]
    close = difflib.get_close_matches(mine, list(shaped), n=1, cutoff=NEAR_MISS_RATIO)
    if close:
        return shaped[close[0]]
    return next((field for form, field in sorted(shaped.items()) if _one_slip(mine, form)), None)


def model_fields(model: type[BaseModel]) -> frozenset[str]:
    """The names a row may use for ``model``'s fields: each field's name and its alias."""
    names = set(model.model_fields)
    names.update(info.alias for info in model.model_fields.values() if info.alias)
    return frozenset(names)


def unknown_fields(
    row: Mapping[str, Any], known: Collection[str], path: str | Path, line: int | None = None
) -> list[str]:
    """The names of ``row`` that are not in ``known`` (kept as metadata), in row order; an
    [`InputError`][normlab.core.InputError] naming file, line and field for the first that is a near
    miss."""
    unknown = [name for name in row if name not in known]
    for name in unknown:
        meant = near_miss(name, known)
        if meant is not None:
            raise InputError(
                path,
                f"unknown field, a near miss of {meant!r}: correct its spelling (a field no "
                "closer to a known one is kept as metadata)",
                line=line,
                field=name,
            )
    return unknown


def validate_known(
    model: type[ModelT], row: Mapping[str, Any], path: str | Path, line: int | None = None
) -> ModelT:
    """``validate_row`` of a data file's row whose names are checked
    first: a near miss of a field of ``model`` is an error, any other unknown name is kept as
    metadata by a model that allows extra fields."""
    unknown_fields(row, model_fields(model), path, line)
    return validate_row(model, row, path, line)


def metadata_of(item: BaseModel) -> dict[str, Any]:
    """The fields a row carried beside its model's (kept by a model with ``extra="allow"``)."""
    return dict(item.model_extra or {})


@dataclass
class MetadataTally:
    """Per file, how many rows were read and how many carried each metadata field: what a
    ``validate`` command prints, so a researcher sees what was kept and not read."""

    rows: Counter[str] = field(default_factory=Counter)
    fields: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, path: str | Path, item: BaseModel) -> None:
        where = str(path)
        self.rows[where] += 1
        self.fields.setdefault(where, Counter()).update(list(metadata_of(item)))

    def lines(self) -> list[str]:
        """One line per file that carries metadata: ``FILE: kept as metadata (not read by the
        benchmark): license (12 of 12 rows), source (3 of 12 rows)``."""
        return [
            f"{where}: kept as metadata (not read by the benchmark): "
            + ", ".join(
                f"{shortened(name)} ({count} of {self.rows[where]} rows)"
                for name, count in sorted(counts.items())
            )
            for where, counts in self.fields.items()
            if counts
        ]


def taken_from(model: type[ModelT], source: object, **given: Any) -> ModelT:
    """``model`` from ``given`` and, for each of its other fields, ``source``'s attribute of the
    same name: what a payload takes over from the simulation's own record of what happened (a
    talk, a synthesized norm, a client's call record), or a study's power from its precision,
    copied field by field in one place."""
    taken = {name: getattr(source, name) for name in model.model_fields if name not in given}
    return model(**taken, **given)
