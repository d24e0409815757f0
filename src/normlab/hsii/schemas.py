"""Every HSII data shape: news paragraphs, scenes, dialogues, cases, replies, verdicts, records.

The case shape is the paper's (Tables 3–5, Prompt-2): a background {scene,
characters, relationships}, a one-word topic, a message history
``[{role_from, role_to, content, index}]`` and the golden next assistant message.
The paper prints both ``role_from`` and ``role-from``; both are read, ``_`` is
written. We add ids (case, dialogue, source news), a domain and name aliases
(how else a character may be addressed), which target matching uses.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

ASSISTANT = "Intelligent Assistant"


class NewsParagraph(BaseModel):
    """One seed paragraph (project-written, news-like; no real news is shipped). Other fields
    of a row (a corpus's ``url``, ``date``) are kept as metadata (``normlab.core.fields``)."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(min_length=1)
    domain: str = Field(min_length=1)
    keywords: list[str] = Field(min_length=1, max_length=2)
    title: str = Field(min_length=1)
    text: str = Field(min_length=1)


class Background(BaseModel):
    """Prompt-1's output: the scene, its characters (at most five) and their relationships."""

    model_config = ConfigDict(extra="ignore")

    scene: str
    """Where the scene happens and what is going on."""
    characters: list[str] = Field(min_length=1)
    """The users in the scene, by the names the assistant addresses (the assistant not
    counted)."""
    relationships: str
    """How the characters relate to one another."""


class Message(BaseModel):
    """One turn of a dialogue: who said what to whom, and its index (a string, as printed)."""

    model_config = ConfigDict(extra="ignore")

    role_from: str
    """Who speaks: a character or the assistant (``Intelligent Assistant``)."""
    role_to: str
    """Whom the turn addresses: a character, the assistant, or several."""
    content: str
    """What is said."""
    index: str = Field(default="", pattern=r"^[0-9]*$")
    """The turn's number as printed ("1", "2", …); a case id is cut at it."""

    @model_validator(mode="before")
    @classmethod
    def _read_both_spellings(cls, data: Any) -> Any:
        """Tables 3–5 print ``role-from``/``role-to``; the prompts print ``role_from``."""
        if isinstance(data, dict):
            data = {key.replace("-", "_"): value for key, value in data.items()}
            if "index" in data and not isinstance(data["index"], str):
                data["index"] = str(data["index"])
        return data


class CuratorDecision(BaseModel):
    """One curator's verdict on a scenario, dialogue or case (§4: people "curate and amend")."""

    model_config = ConfigDict(extra="ignore")

    curator: str
    """The curator's name (one file per curator)."""
    decision: Literal["accept", "amend", "reject"]
    """Keep as is, keep with the curator's text, or leave out (with everything cut from it)."""
    criteria: dict[str, bool] = Field(default_factory=dict)
    """Which of the curation criteria the item meets."""
    note: str = ""
    """The curator's note."""


class Provenance(BaseModel):
    """Where a dialogue or case came from: which news, keywords, cluster, k-rank and screener
    scores, and what curators decided. Optional, so banks written before it still load."""

    model_config = ConfigDict(extra="ignore")

    source: Literal["news", "native"]
    """``news``: generated from a news paragraph (§4); ``native``: imported from a corpus of
    real multi-party dialogues (``hsii import-dialogues``)."""
    news_id: str | None = None
    """The news paragraph the scene was written from."""
    keywords: list[str] = Field(default_factory=list)
    """The keywords the news was retrieved by."""
    cluster: int | None = None
    """The news cluster it was drawn from (``hsii build``'s cluster stage)."""
    k_rank: int | None = None
    """The kept scenario's rank among the k sampled (1 = best)."""
    screener_scores: dict[str, float] = Field(default_factory=dict)
    """The ``screener`` role's 1–5 scores of the kept scene on the five criteria, and their
    mean (``total``)."""
    curator_decisions: list[CuratorDecision] = Field(default_factory=list)
    """Every curator's decision on the item, in the order applied."""


class Dialogue(BaseModel):
    """Prompt-2's output for one scene, with our ids and aliases. Other fields of a row (a
    release's ``license``) are kept as metadata and pass to the cases cut from it; the loader
    refuses near misses of a field (``normlab.core.fields``)."""

    model_config = ConfigDict(extra="allow")

    dialogue_id: str = Field(min_length=1)
    """Unique within the bank; each case cut from it names it."""
    source_id: str = ""
    """The news paragraph's id the dialogue was written from; empty for a native one."""
    domain: str = ""
    """The news domain (Table 1 is given per domain)."""
    topic: str
    """Prompt-2's one-word topic."""
    background: Background
    """The scene, its characters and their relationships."""
    aliases: dict[str, list[str]] = Field(default_factory=dict)
    """Character → the other ways it may be addressed that its name does not give
    (``normlab.hsii.aliases``); target matching (r2) reads them."""
    messages: list[Message] = Field(min_length=1)
    """The dialogue's turns in order; each assistant turn with two turns or more before it,
    addressed to one character, becomes a case."""
    provenance: Provenance | None = None
    """Where it came from and what curators decided; absent in banks written before."""


class Case(BaseModel):
    """One test case: the history before an assistant turn, and that turn as the golden.
    Other fields of a row (a release's ``license``) are kept as metadata, so they ride in the
    sample's metadata; the loader refuses near misses of a field (``normlab.core.fields``)."""

    model_config = ConfigDict(extra="allow")

    case_id: str = Field(min_length=1)
    """Unique within the bank: ``DIALOGUE_ID#INDEX``, the golden turn's index, for a cut case."""
    dialogue_id: str = ""
    """The dialogue it was cut from (the unit the intervals resample)."""
    source_id: str = ""
    """The news paragraph's id, as the dialogue's."""
    domain: str = ""
    """The news domain, as the dialogue's."""
    topic: str
    """Prompt-2's one-word topic."""
    background: Background
    """The scene, its characters and their relationships."""
    aliases: dict[str, list[str]] = Field(default_factory=dict)
    """Character → the other ways it may be addressed, as the dialogue's."""
    messages: list[Message] = Field(min_length=1)
    """The history before the golden turn: a case with none has no one to address."""
    golden: Message
    """The assistant's next turn as written: its ``role_to`` is the target r2 checks, its
    ``content`` the statement r3 compares against."""
    provenance: Provenance | None = None
    """Copied from the dialogue the case was cut from."""

    @field_validator("topic", mode="before")
    @classmethod
    def _topic_text(cls, value: Any) -> Any:
        return value.strip().strip('"') if isinstance(value, str) else value

    @property
    def characters(self) -> list[str]:
        return self.background.characters

    @property
    def cluster(self) -> str:
        """The dialogue the case was cut from (``dialogue_of``)."""
        return dialogue_of(self.case_id, self.dialogue_id)


class Statement(BaseModel):
    """What the subject's reply was parsed into: whom it addresses and what it says."""

    targets: list[str]
    content: str
    rule: str
    """Which parsing rule recovered it (json, python-dict, fenced, brace-span, …)."""


Better = Literal["A", "B", "equal"]
Verdict = Literal["win", "loss", "tie"]


def parse_better(text: str) -> Better | None:
    """A pairwise preference as a judge or a person writes it: ``A``, ``B`` or ``equal``, in any
    case, quoted, with a full stop, or spelled ``statement a``, ``tie``, ``same``, ``both``;
    None for anything else. One reading for the judge's replies and human grades alike."""
    lowered = text.strip().strip(".").strip("'\"").lower()
    if lowered in ("a", "statement a"):
        return "A"
    if lowered in ("b", "statement b"):
        return "B"
    if lowered in ("equal", "tie", "same", "both"):
        return "equal"
    return None


class PairwiseJudgement(BaseModel):
    """The judge's reply (ours: the paper's "grading" figure repeats the testing prompt)."""

    reasoning: str
    better: Better

    @field_validator("better", mode="before")
    @classmethod
    def _normalise(cls, value: Any) -> Any:
        if isinstance(value, str):
            return parse_better(value) or value
        return value


class ComparisonRecord(BaseModel):
    """One stage's comparison in both orders, verdicts from the subject's side (None: unusable)."""

    subject_statement: str
    other_statement: str
    other: Literal["golden", "reference"]
    verdicts: list[Verdict | None]
    reasons: list[str] = Field(default_factory=list)


class LongRunTurn(BaseModel):
    speaker: str
    addressee: str
    content: str
    parsed_by: str = ""


class LongRun(BaseModel):
    """r4's conversation: the turns with the target, then both statements at the decision round."""

    turns: list[LongRunTurn]
    history: list[Message]
    """The history the decision round's statements answer."""
    subject_raw: str
    subject: Statement | None
    reference_raw: str
    reference: Statement | None


class CaseResult(BaseModel):
    """What the solvers recorded for one case (the sample's metadata ``hsii``)."""

    parsed: Statement | None
    target_ok: bool | None
    long_run: LongRun | None = None


def dialogue_of(case_id: str, dialogue_id: str = "") -> str:
    """The dialogue a case was cut from: its ``dialogue_id``, else the part of our case id
    before ``#`` (``DIALOGUE#TURN``); a case of the paper's printed shape is its own.
    Cases of one dialogue share its history, so they are drawn and resampled together."""
    return dialogue_id or case_id.split("#", 1)[0]


class TrialRecord(BaseModel):
    """One case answered by one model, as imported records (JSONL) or read from a log. An
    imported row's fields beyond these are kept as metadata (``model_extra``); a near miss of
    one of these is refused (``normlab.core.fields``), never dropped: a misspelt
    ``first_verdicts`` would leave every comparison missing, unseen."""

    model_config = ConfigDict(extra="allow")

    case_id: str
    subject_model: str
    response: str
    golden_target: str
    characters: list[str] = Field(default_factory=list)
    aliases: dict[str, list[str]] = Field(default_factory=dict)
    first_verdicts: list[Verdict | None] | None = Field(default=None, min_length=2, max_length=2)
    """The judge's two verdicts (one per order, the subject's side); null inside: unusable."""
    long_verdicts: list[Verdict | None] | None = Field(default=None, min_length=2, max_length=2)
    domain: str = ""
    judge_model: str = ""
    tie_weight: float | None = Field(default=None, ge=0.0, le=1.0)
    """What a tie was worth when the run scored this case (``None``: not recorded)."""
    dialogue_id: str = ""

    @property
    def cluster(self) -> str:
        """The dialogue the case was cut from (``dialogue_of``)."""
        return dialogue_of(self.case_id, self.dialogue_id)


class CotTrace(BaseModel):
    """The COT task's record of one case (the sample's metadata ``cot_trace``, its score's
    metadata). Per round (0 = no COT): the target chosen, and whether it was the golden one."""

    targets: list[str | None] = Field(default_factory=list)
    correct: list[bool] = Field(default_factory=list)

    @property
    def solved_at(self) -> int | None:
        """λ: the first round ≥ 1 whose answer was right (None: not within the cap)."""
        return next((k for k, ok in enumerate(self.correct) if ok and k >= 1), None)
