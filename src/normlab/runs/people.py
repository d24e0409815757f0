"""What a system offers people in the web app (``normlab serve``), as its
[`SystemParts`][normlab.runs.SystemParts] declare it: the human rating studies of its judgements
([`Rating`][normlab.runs.Rating]), how a person plays its subject
([`Play`][normlab.runs.Play]), and, for a system whose runs are folders of its own rather than
Inspect logs, how the runs page lists them (``FolderRuns``). Apart from ``runs.system``, which
holds what every caller reads of a system, because only the web app reads these."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage
    from pydantic import BaseModel


@dataclass(frozen=True)
class Rating:
    """A human rating study of the system's judgements (the web app's study kinds): what raters
    are asked, and the system's own blind export and analysis behind it."""

    name: str
    """The kind's name (``losona-audit``)."""
    title: str
    question: str
    """What the rater is asked, above every item."""
    answer_column: str
    choices: tuple[tuple[str, str], ...]
    """(value written to the CSV, button label)."""
    notes_column: str | None
    columns: Callable[[], list[str]]
    """The export's columns."""
    export: Callable[[Path, Path, int, int], int]
    """(run folder or bank, CSV to write, how many, seed) → rows written (key beside it)."""
    analyze: Callable[[Path, Path], BaseModel]
    """(filled CSV, key) → the system's analysis of the ratings."""
    source: Literal["run", "bank"] = "run"
    """What its items come from: a run (a log or CRSEC folder) or a bank of data files."""
    bank_row: Callable[[dict[str, object]], bool] | None = None
    """For a kind made from banks: whether a JSONL file whose first row is this is one of its
    banks, so the new-study form offers it (HSII's: a dialogue's or a case's row)."""
    agreement: Callable[[list[Path]], BaseModel] | None = None
    """Agreement between raters over their filled CSVs, where the system offers it."""
    criteria: Callable[[], list[tuple[str, str]]] | None = None
    """(value, label) of the criteria boxes on the rating form, where raters tick some."""
    amended_column: str | None = None
    """Where an amended text goes (only kinds whose raters may edit the item)."""
    amended_from: str | None = None
    """The item's column an amendment starts from (the form's text is prefilled with it)."""
    criteria_column: str | None = None
    """Where the criteria a rater ticked go."""
    rater_column: str | None = None
    """Where the rater's name goes in their filled CSV (agreement needs to tell them apart)."""

    def __post_init__(self) -> None:
        if (self.source == "bank") != (self.bank_row is not None):
            raise ValueError(f"{self.name}: a kind made from banks says what its banks hold")


@dataclass(frozen=True)
class PlayLength:
    """How long a played episode is, and what that number counts, in words (``rounds per
    episode``): ``normlab serve --help`` says it beside the default, so a person knows what
    ``--play-length`` changes."""

    default: int
    means: str


@dataclass(frozen=True)
class Play:
    """A person in the subject's seat (the web app's play page): what they can pick and the
    task arguments that play one pick once."""

    title: str
    options: Callable[[Path | None], list[tuple[str, str]]]
    """(the bank to draw from, or the system's own) → (option id, label) of each pick."""
    bank: str
    """The task argument that takes the bank of samples."""
    sample: Callable[[str, int | None], dict[str, object]]
    """(option id, length) → the task's other arguments, to play that one sample once."""
    length: PlayLength | None = None
    """An episode's length when played (SCENE's rounds, HSII's long-run turns), where the task
    has one; ``normlab serve --play-length SYSTEM=N`` may change it."""
    characters: Callable[[list[ChatMessage]], list[str] | None] | None = None
    """Whom the person may address, read from what the subject is shown (HSII's cast), or None
    where the reply names no addressee."""
    answer: Callable[[Mapping[str, str]], str] | None = None
    """The person's form (``content``, and ``target``, ``action``, ``turn`` where the page
    offers them) as the reply the subject gives; a ``ValueError`` whose text the page shows
    for a form that is no reply. None: the message as written."""
    moves: bool = False
    """Whether the page offers moves besides a message: reacting to a turn, staying silent
    (SCENE's live subject)."""

    def reply(self, form: Mapping[str, str]) -> str:
        """The subject's reply for a filled form (``answer``, or the message as written)."""
        return self.answer(form) if self.answer is not None else form.get("content", "")


@dataclass
class RunSummary:
    """A run's line on the web app's runs page (``normlab serve``): built by the web app for
    an Inspect log, by the system's ``folder_runs`` for a run folder of its own."""

    system: str
    path: str
    """Relative to the runs folder: the log file, or the run folder."""
    models: list[tuple[str, str]]
    n: str
    headline: list[tuple[str, str]]
    cost: str
    status: str
    """How far the run got, or why it could not be read (the line's one-line error)."""
    report: str | None = None
    created: str = ""
    notes: list[str] = field(default_factory=list)
    units: int = 0
    """Finished samples (CRSEC: simulated hours): a run with none has nothing to study."""


def report_in(root: Path, folder: Path) -> str | None:
    """``folder``'s ``report.html`` relative to the runs folder ``root``, if it was written."""
    report = folder / "report.html"
    return str(report.relative_to(root)) if report.exists() else None


@dataclass(frozen=True)
class FolderPage:
    """The page of one of a system's run folders: a template of the system's own
    (``FolderRuns.templates``) and the values it is rendered with."""

    template: str
    values: Mapping[str, object]


@dataclass(frozen=True)
class FolderRuns:
    """A system whose runs are folders of its own rather than Inspect logs (CRSEC's
    ``config.json`` and ``events.jsonl``): how the web app finds them, lists them and tells
    whose a folder is, without knowing the system's files."""

    summaries: Callable[[Path], list[RunSummary]]
    """(the runs folder) → a line for each of the system's run folders under it, in path
    order; a folder that cannot be read is a line whose status says why, never an error."""
    holds: Callable[[Path], bool]
    """Whether a folder is one of the system's runs (a study made from it reads it)."""
    page: Callable[[Path, Mapping[str, str]], FolderPage]
    """(one of its run folders, the page's query) → that run's page (CRSEC's replay at the
    query's ``tick``); a query value it cannot read is an ``InputError`` naming it."""
    templates: Path
    """The folder of its pages' templates; each may extend the web app's ``base.html``."""
