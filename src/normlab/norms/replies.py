"""What CRSEC's operations and its metrics' judge ask the model for, parsed leniently.

Kept apart from ``normlab.crsec.sim.schemas`` (the society file, the norm database, the run's
state): these shapes change with the prompts, those with the experiment. Every reply is
lenient about what weak models write: "yes"/"no" for booleans, "prescriptive" for injunctive,
a utility of 120 clipped to 100.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

from normlab.norms.schemas import NormType


def _flag(value: Any) -> Any:
    """ "yes"/"no" (the paper's answers) and the like as booleans."""
    if isinstance(value, str):
        text = value.strip().strip(".").lower()
        if text in ("yes", "y", "true", "correct"):
            return True
        if text in ("no", "n", "false", "incorrect"):
            return False
    return value


def _norm_type(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip().lower()
        if text.startswith("desc"):
            return "descriptive"
        if text.startswith("inj") or text.startswith("pre") or text.startswith("pro"):
            return "injunctive"
    return value


def _utility(value: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return max(1, min(100, round(value)))
    return value


class Reply(BaseModel):
    """Model replies: lenient about yes/no flags, norm types and utility ranges."""

    @model_validator(mode="before")
    @classmethod
    def _lenient(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fixed = dict(data)
        for key, value in data.items():
            annotation = cls.model_fields.get(key)
            if annotation is None:
                continue
            if annotation.annotation is bool:
                fixed[key] = _flag(value)
            elif key == "type":
                fixed[key] = _norm_type(value)
            elif key == "utility":
                fixed[key] = _utility(value)
        return fixed


class CreatedNorm(Reply):
    type: NormType
    content: str = Field(min_length=1)
    utility: int = Field(ge=1, le=100)


class CreatedNorms(Reply):
    norms: list[CreatedNorm] = Field(min_length=1)


class ConflictFinding(Reply):
    observation: int = 1
    conflict: bool
    talk: bool = False
    topic: str = ""


class ConflictFindings(Reply):
    findings: list[ConflictFinding]


class Utterance(Reply):
    utterance: str = Field(min_length=1)
    end: bool = False


class IdentifiedNorm(Reply):
    """One item of normative information IdentifyNormativeInformation found (Figures 9–10): its
    words, its type, and which line or thought it came from."""

    content: str = Field(min_length=1)
    type: NormType = "injunctive"
    source: int = 1


class Identified(Reply):
    normative: bool
    norms: list[IdentifiedNorm] = Field(default_factory=list)


class Thoughts(Reply):
    thoughts: list[str] = Field(default_factory=list)


class Evaluation(Reply):
    """The four checks of the immediate evaluation and the utility, in one reply (merged mode)."""

    consistent: bool
    duplicate: bool
    is_norm: bool
    type_correct: bool = True
    conflict: bool
    utility: int = Field(ge=1, le=100)
    reason: str = ""


class CheckReply(Reply):
    """One check of the faithful immediate evaluation (Figures 11–14)."""

    def outcome(self) -> tuple[bool, str]:
        """Whether the item passed, and what to add to "failed the … check" if not."""
        raise NotImplementedError


class ConsistencyCheck(CheckReply):
    consistent: bool

    def outcome(self) -> tuple[bool, str]:
        return self.consistent, ""


class DuplicationCheck(CheckReply):
    duplicate: bool

    def outcome(self) -> tuple[bool, str]:
        return not self.duplicate, ""


class TypeCheck(CheckReply):
    is_norm: bool
    type_correct: bool = True
    type: NormType | None = None

    def outcome(self) -> tuple[bool, str]:
        passed = self.is_norm and self.type_correct
        return passed, " (not a norm)" if not self.is_norm else " (wrong type)"


class ConflictCheck(CheckReply):
    conflict: bool
    reason: str = ""

    def outcome(self) -> tuple[bool, str]:
        return not self.conflict, f": {self.reason}" if self.reason else ""


class Utility(Reply):
    utility: int = Field(ge=1, le=100)
    reason: str = ""


class Category(Reply):
    theme: str
    members: list[int]


class Categories(Reply):
    categories: list[Category]


class AbstractNorm(Reply):
    theme: str = ""
    abstract: str = Field(min_length=1)
    type: NormType = "injunctive"
    weights: list[float] = Field(default_factory=list)


class PlanItem(Reply):
    hour: int
    activity: str = Field(min_length=1)


class DayPlan(Reply):
    plan: list[PlanItem] = Field(min_length=1)


class SubtaskReply(Reply):
    action: str = Field(min_length=1)
    minutes: int = Field(ge=1)
    place: str = ""


class Subtasks(Reply):
    subtasks: list[SubtaskReply] = Field(min_length=1)


class NormMatches(Reply):
    """The judge's reply to ``judge_match``: the ids of the target norms a text expresses (ids
    it does not know are dropped), and why."""

    matches: list[str] = Field(default_factory=list)
    reason: str = ""
