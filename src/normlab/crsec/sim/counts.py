"""Figure 2(a)'s counts per simulated hour, from the event log: one definition for all.

The simulation counts its hours by feeding each event it emits to an ``HourCounter``
(its ``metrics.jsonl`` and the per-hour progress line), and the analysis counts a finished
run by feeding it the events read back from ``events.jsonl``: the same code, so what ``run``
prints and what ``analyze`` reports cannot drift apart. It lives below both (the tick loop
must not import the analysis, which reads run folders and calls the judge).
"""

from __future__ import annotations

from collections.abc import Iterable

from normlab.crsec.sim.events import Event, Finding, Unanswered
from normlab.crsec.sim.schemas import HourMetrics
from normlab.norms.records import SkippedItem
from normlab.norms.replies import IdentifiedNorm

EVENT_COUNTS = (
    "conflicts",
    "talk_decisions",
    "chats",
    "norm_chats",
    "thoughts",
    "norm_thoughts",
    "identified",
    "accepted",
    "rejected",
    "duplicates_skipped",
    "syntheses",
    "unanswered",
)
"""The fields of an hour's metrics that ``HourCounter`` reads from the event log."""


def thought_source(item: IdentifiedNorm, thoughts: int) -> int:
    """The thought an identified item came from, as the simulation files it: an index out of
    range falls back to the first thought."""
    return item.source if 1 <= item.source <= thoughts else 1


class HourCounter:
    """Figure 2(a)'s counts, one event at a time (a large run's log is read once, never held).

    Events before an ``hour`` event belong to that hour (the simulation writes the hour's
    snapshot after everything the hour did); events after the last one belong to an hour
    not finished yet and are left out. Per hour:

    - conflicts: the findings of ``detect`` events with ``conflict`` true (one per
      observation); talk decisions: those of them with ``talk`` true; unanswered: the
      observations a ``detect`` event's reply left out (or whose call never parsed), which
      DetectConflict never judged;
    - chats: ``conversation`` events; norm-related chats: ``identify`` events of source
      ``chat`` that name at least one norm (the receiver identified normative information);
    - thoughts: the thoughts of ``thought`` events; norm-related thoughts: per ``identify``
      event of source ``thought``, the distinct thoughts its items came from;
    - identified: ``evaluate`` events; of them duplicates skipped (``skipped``), accepted
      (``qualified`` true) and rejected (the rest);
    - syntheses: ``synthesis`` events.

    Usage is not counted here (``metrics.jsonl`` has it); those fields stay at zero.
    """

    def __init__(self, counts: dict[str, int] | None = None) -> None:
        """``counts``: the unfinished hour's so far (a resumed simulation's checkpoint)."""
        self.counts: dict[str, int] = dict(counts or {})
        self.thoughts: dict[str, int] = {}
        """Agent → how many thoughts its last ``thought`` event of the hour held."""

    def _count(self, key: str, amount: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + amount

    def add(self, event: Event) -> HourMetrics | None:
        """Count ``event``; an ``hour`` event closes the hour and returns its counts."""
        if event.kind == "detect":
            for row in event.data.findings:
                if isinstance(row, Unanswered):
                    self._count("unanswered")
                elif isinstance(row, Finding) and row.conflict:
                    self._count("conflicts")
                    self._count("talk_decisions", row.talk)
        elif event.kind == "conversation":
            self._count("chats")
        elif event.kind == "thought":
            self.thoughts[event.agent] = len(event.data.thoughts)
            self._count("thoughts", self.thoughts[event.agent])
        elif event.kind == "identify" and event.data.norms:
            if event.data.source == "chat":
                self._count("norm_chats")
            else:
                total = self.thoughts.get(event.agent, 0)
                self._count(
                    "norm_thoughts", len({thought_source(item, total) for item in event.data.norms})
                )
        elif event.kind == "evaluate":
            self._count("identified")
            if isinstance(event.data, SkippedItem):
                self._count("duplicates_skipped")
            else:
                self._count("accepted" if event.data.qualified else "rejected")
        elif event.kind == "synthesis":
            self._count("syntheses")
        elif event.kind == "hour":
            closed = HourMetrics.model_validate(
                {"hour": event.data.hour, "label": event.data.label, **self.counts}
            )
            self.counts, self.thoughts = {}, {}
            return closed
        return None


def hour_counts(events: Iterable[Event]) -> list[HourMetrics]:
    """Figure 2(a)'s counts for each finished simulated hour of an event log
    (``HourCounter`` says how each is counted)."""
    counter = HourCounter()
    return [closed for event in events if (closed := counter.add(event)) is not None]
