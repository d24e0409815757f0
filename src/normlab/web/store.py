"""Everything people enter in the web app, in one SQLite file.

Why SQLite: one file beside the runs, no server, and transactions: a rating is one
``INSERT`` in its own transaction with ``synchronous=FULL`` in WAL mode, so a process
killed mid-rating leaves either the whole rating or none of it, never half (the brief's
"no half-written rating, no lost one"). Each call opens its own connection, so the
store is safe to use from FastAPI's worker threads and the play threads alike. The file holds
every invite and rater token, so it is made 0600 before SQLite opens it (SQLite gives its
``-wal`` and ``-shm`` files the same mode).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS studies (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    source TEXT NOT NULL,
    invite TEXT NOT NULL UNIQUE,
    created TEXT NOT NULL,
    max_raters INTEGER NOT NULL DEFAULT 50
);
CREATE TABLE IF NOT EXISTS items (
    study_id TEXT NOT NULL REFERENCES studies(id),
    item_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (study_id, item_id)
);
CREATE TABLE IF NOT EXISTS raters (
    token TEXT PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies(id),
    name TEXT NOT NULL,
    created TEXT NOT NULL,
    UNIQUE (study_id, name)
);
CREATE TABLE IF NOT EXISTS ratings (
    rater TEXT NOT NULL REFERENCES raters(token),
    item_id TEXT NOT NULL,
    answer TEXT NOT NULL,
    notes TEXT NOT NULL,
    created TEXT NOT NULL,
    amended TEXT NOT NULL DEFAULT '',
    criteria TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (rater, item_id)
);
"""


DEFAULT_MAX_RATERS = 50
"""Raters one invite admits unless the study says otherwise: an invite link travels, and
each rater it admits is a row, a token and a CSV."""


class StudyFullError(Exception):
    """The invite has admitted all the raters its study takes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"this study takes at most {limit} raters, and all have joined")


class NameTakenError(Exception):
    """Another rater of the study goes by this name (see ``Store.join``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(
            f"a rater of this study is already called {name!r}: if that is you, open the "
            "rating link you got when you joined (it is the only way back to your answers); "
            "otherwise choose another name"
        )


def name_key(name: str) -> str:
    """A rater's name as compared for sameness: Unicode NFKC (full-width and composed letters
    as their plain forms), case folded, runs of white space as one space."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_token() -> str:
    """An unguessable token for invite links, rater links and CSRF."""
    return secrets.token_urlsafe(18)


@dataclass(frozen=True)
class Study:
    id: str
    kind: str
    title: str
    source: str
    invite: str
    created: str
    max_raters: int = DEFAULT_MAX_RATERS


@dataclass(frozen=True)
class Rater:
    token: str
    study_id: str
    name: str

    @property
    def id(self) -> str:
        """A name for the rater in the owner's URLs and file names that is not their secret
        token (it opens their items) and, unlike their name, is unique: "李" and "王" both
        slug to ``model``, "Ann Lee" and "Ann-Lee" to ``Ann-Lee``. A one-way hash of the
        token, so nothing new is stored and the token cannot be read back from it."""
        return hashlib.sha256(f"rater-id:{self.token}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Item:
    item_id: str
    position: int
    payload: str


@dataclass(frozen=True)
class Rating:
    rater: str
    item_id: str
    answer: str
    notes: str
    amended: str = ""
    """A curator's amended text (curation studies; blank elsewhere)."""
    criteria: str = ""
    """The criteria a curator ticked, comma-separated (curation studies; blank elsewhere)."""


class Store:
    """The web app's SQLite file (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        os.chmod(path, 0o600)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)
            columns = {row[1] for row in db.execute("PRAGMA table_info(studies)")}
            if "max_raters" not in columns:  # a file from before invites had a cap
                db.execute(
                    "ALTER TABLE studies ADD COLUMN max_raters INTEGER NOT NULL "
                    f"DEFAULT {DEFAULT_MAX_RATERS}"
                )
            rated = {row[1] for row in db.execute("PRAGMA table_info(ratings)")}
            for column in ("amended", "criteria"):  # a file from before curation studies
                if column not in rated:
                    db.execute(f"ALTER TABLE ratings ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30)
        try:
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            with db:  # one transaction: committed whole or rolled back
                yield db
        finally:
            db.close()

    # studies
    def create_study(
        self,
        kind: str,
        title: str,
        source: str,
        items: list[tuple[str, str]],
        max_raters: int = DEFAULT_MAX_RATERS,
    ) -> Study:
        """A study with its items (``(item_id, payload JSON)``), written in one transaction."""
        study = Study(new_token()[:10], kind, title, source, new_token(), now(), max_raters)
        with self._connect() as db:
            db.execute(
                "INSERT INTO studies VALUES (?, ?, ?, ?, ?, ?, ?)",
                (study.id, kind, title, source, study.invite, study.created, max_raters),
            )
            db.executemany(
                "INSERT INTO items VALUES (?, ?, ?, ?)",
                [(study.id, item_id, n, payload) for n, (item_id, payload) in enumerate(items)],
            )
        return study

    def studies(self) -> list[Study]:
        with self._connect() as db:
            rows = db.execute("SELECT * FROM studies ORDER BY created, id").fetchall()
        return [Study(*row) for row in rows]

    def study(self, study_id: str) -> Study | None:
        with self._connect() as db:
            row = db.execute("SELECT * FROM studies WHERE id = ?", (study_id,)).fetchone()
        return Study(*row) if row else None

    def study_by_invite(self, invite: str) -> Study | None:
        with self._connect() as db:
            row = db.execute("SELECT * FROM studies WHERE invite = ?", (invite,)).fetchone()
        return Study(*row) if row else None

    def items(self, study_id: str) -> list[Item]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT item_id, position, payload FROM items WHERE study_id = ? ORDER BY position",
                (study_id,),
            ).fetchall()
        return [Item(*row) for row in rows]

    def item(self, study_id: str, item_id: str) -> Item | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT item_id, position, payload FROM items WHERE study_id = ? AND item_id = ?",
                (study_id, item_id),
            ).fetchone()
        return Item(*row) if row else None

    # raters
    def join(self, study_id: str, name: str, limit: int = DEFAULT_MAX_RATERS) -> Rater:
        """A new rater called ``name`` in this study, while fewer than ``limit`` have joined
        (``StudyFullError``) and no rater of the study goes by that name
        (``NameTakenError``).

        A name is no password: anyone with the invite link can type it, so a known name is
        refused rather than answered with that rater's link (which would let a stranger read
        and overwrite their answers). A returning rater comes back through their own link.
        Names are compared as ``name_key`` writes them, so "Ann", "ann" and "Ａｎｎ" are
        one name and the owner's page never shows two raters who look alike.
        """
        token = new_token()
        with self._connect() as db:
            db.create_function("name_key", 1, name_key, deterministic=True)
            # Checked and inserted in one statement of one write transaction, so two joins at
            # once can neither both pass the cap nor both take one name.
            db.execute("BEGIN IMMEDIATE")
            added = db.execute(
                "INSERT INTO raters SELECT ?, ?, ?, ? "
                "WHERE NOT EXISTS (SELECT 1 FROM raters WHERE study_id = ? AND name_key(name) = ?) "
                "AND (SELECT COUNT(*) FROM raters WHERE study_id = ?) < ?",
                (token, study_id, name, now(), study_id, name_key(name), study_id, limit),
            ).rowcount
            if not added:
                taken = db.execute(
                    "SELECT 1 FROM raters WHERE study_id = ? AND name_key(name) = ?",
                    (study_id, name_key(name)),
                ).fetchone()
                if taken:
                    raise NameTakenError(name)
                raise StudyFullError(limit)
        return Rater(token, study_id, name)

    def rater(self, token: str) -> Rater | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT token, study_id, name FROM raters WHERE token = ?", (token,)
            ).fetchone()
        return Rater(*row) if row else None

    def raters(self, study_id: str) -> list[Rater]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT token, study_id, name FROM raters WHERE study_id = ? "
                "ORDER BY created, name",
                (study_id,),
            ).fetchall()
        return [Rater(*row) for row in rows]

    def rater_by_id(self, study_id: str, rater_id: str) -> Rater | None:
        """The study's rater whose ``Rater.id`` is ``rater_id``."""
        return next((r for r in self.raters(study_id) if r.id == rater_id), None)

    # ratings
    def rate(
        self,
        rater: Rater,
        item_id: str,
        answer: str,
        notes: str,
        amended: str = "",
        criteria: str = "",
    ) -> None:
        """Record (or change) one answer, atomically."""
        with self._connect() as db:
            db.execute(
                "INSERT INTO ratings (rater, item_id, answer, notes, created, amended, criteria) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (rater, item_id) "
                "DO UPDATE SET answer = excluded.answer, notes = excluded.notes, "
                "created = excluded.created, amended = excluded.amended, "
                "criteria = excluded.criteria",
                (rater.token, item_id, answer, notes, now(), amended, criteria),
            )

    def ratings(self, rater: Rater) -> dict[str, Rating]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT rater, item_id, answer, notes, amended, criteria FROM ratings "
                "WHERE rater = ?",
                (rater.token,),
            ).fetchall()
        return {row[1]: Rating(*row) for row in rows}
