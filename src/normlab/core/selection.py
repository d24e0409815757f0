"""Choosing what a run covers: comma-separated id lists and picking rows by id."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from normlab.core.errors import InputError

ItemT = TypeVar("ItemT")


def comma_list(value: str | Sequence[str] | None) -> list[str] | None:
    """A task parameter given as ``"a, b"`` (``-T`` on Inspect's command line) or a list."""
    if value is None:
        return None
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return list(value)


def pick_by_id(
    items: Sequence[ItemT],
    ids: Iterable[str],
    id_of: Callable[[ItemT], str],
    option: str,
    field: str,
) -> list[ItemT]:
    """The items with these ids, in the order given; an unknown id is an
    [`InputError`][normlab.core.InputError] on ``option`` (``--case``) naming ``field``
    (``case_id``)."""
    by_id = {id_of(item): item for item in items}
    wanted = list(ids)
    unknown = [ident for ident in wanted if ident not in by_id]
    if unknown:
        noun = field.removesuffix("_id")
        raise InputError(option, f"unknown {noun} id {unknown[0]!r}", field=field)
    return [by_id[ident] for ident in wanted]


def check_limit(limit: int) -> None:
    """``--limit`` must keep at least one item."""
    if limit < 1:
        raise InputError("--limit", f"must be at least 1, got {limit}", field="limit")
