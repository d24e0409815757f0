"""Which samples start first: the longest, so the short ones fill the connections at the end.

A sample's model calls run one after another (a SCENE episode makes twenty-odd), so a
sample that starts late cannot finish sooner than its call depth × latency, however many
connections are free. Started last, a long sample leaves every other connection idle while
it plays out alone; started first, it runs while the rest of the dataset keeps the
connections busy, and the short samples started last finish inside the time it takes. This
is the longest-processing-time-first rule of scheduling jobs on parallel machines. Inspect
starts a task's samples in dataset order (each epoch in turn), so ordering the dataset is
enough. How many samples run at once is ``normlab.core.evalrun.samples_in_flight``.

Each system supplies the cost of a sample: what it knows before the run about how long the
sample takes (SCENE: the calls its episode can make). Where nothing known before the run
tells a long sample from a short one, the order stays (every LoSoNA sample makes the same
two calls; an HSII case's count turns on the subject's reply). Ids, inputs and what is
scored are untouched; a resumed run matches samples by id, so it keeps its finished samples.
What does follow the order: every ``--shard`` takes every N-th sample of it, and Inspect's
``--limit`` the first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

ItemT = TypeVar("ItemT")


def longest_first(items: Iterable[ItemT], cost: Callable[[ItemT], float]) -> list[ItemT]:
    """``items`` (samples, or what they are built from) ordered by ``cost``, the highest
    first; items of equal cost keep their order, so the order (and every ``--shard``'s share
    of it) is the same on every run."""
    return sorted(items, key=cost, reverse=True)
