"""Evaluation (§2.3, Figures 11–16): the immediate evaluation and the long-term synthesis.

Immediate evaluation: consistency → duplication → type → conflict; any failure leaves
the item neither activated nor valid. Three modes:

- ``merged`` (default): the four checks and the utility in one call, with the checks'
  wording taken from Figures 11–14 (one call instead of five);
- ``faithful``: one call per check in the paper's order, stopping at the first failure,
  then a utility call (the authors' code rates utility after the checks);
- ``none`` (the no-evaluation ablation): every identified norm is accepted; only its
  utility is asked for.

A type check that finds the type wrong fails the item, as the paper's
``Y_type ∈ {T, F}`` says (the authors' code overwrites the type instead).

Long-term synthesis: ClassifySpecificNorms groups the qualified norms by theme;
GenerateAbstractNorm writes one abstract norm per group of two or more, with weights;
its utility is the weighted mean of its members' (§2.3). Each abstract norm passes the
same sanity check against the qualified norms as the abstracts before it left them (its
own members left out of the duplicate and conflict checks, another category's abstract
in them); if it passes, it is qualified and its members are kept valid but deactivated.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from normlab.norms.calls import Caller
from normlab.norms.normdb import add_norm, apply_abstract, exact_duplicate, weighted_utility
from normlab.norms.prompts import numbered, render
from normlab.norms.records import AssessedItem, EvaluateData, SkippedItem
from normlab.norms.replies import (
    AbstractNorm,
    Categories,
    CheckReply,
    ConflictCheck,
    ConsistencyCheck,
    DuplicationCheck,
    Evaluation,
    TypeCheck,
    Utility,
)
from normlab.norms.schemas import EvaluationMode, NormDatabase, NormType, Origin, PersonalNorm

CHECKS = ("consistency", "duplication", "type", "conflict")


@dataclass
class Verdict:
    """The immediate evaluation of one item: passed checks, utility, why it was rejected."""

    qualified: bool
    utility: int
    checks: dict[str, bool] = field(default_factory=dict)
    rejection: str | None = None


def _failed_call(operation: str) -> Verdict:
    return Verdict(False, 1, rejection=f"{operation}: the reply never parsed")


async def _utility(caller: Caller, content: str) -> int | None:
    reply = await caller.ask(
        "utility", render("utility_ours", {"normative info": content}), Utility, max_tokens=150
    )
    return None if reply is None else reply.utility


async def evaluate(
    caller: Caller,
    content: str,
    type: NormType,
    related: str,
    qualified: list[PersonalNorm],
    mode: EvaluationMode,
) -> Verdict:
    """Y_consistent, Y_unique, Y_type, Y_conflictfree and the utility of one item."""
    norms = numbered([norm.content for norm in qualified])
    if mode == "none":
        utility = await _utility(caller, content)
        if utility is None:
            return _failed_call("utility")
        return Verdict(True, utility)
    if mode == "merged":
        reply = await caller.ask(
            "evaluate",
            render(
                "evaluate_ours",
                {
                    "normative info": content,
                    "norm type": type,
                    "related chat or thought": related,
                    "qualified personal norms": norms,
                },
            ),
            Evaluation,
            max_tokens=200,
        )
        if reply is None:
            return _failed_call("evaluate")
        checks = {
            "consistency": reply.consistent,
            "duplication": not reply.duplicate,
            "type": reply.is_norm and reply.type_correct,
            "conflict": not reply.conflict,
        }
        failed = [name for name in CHECKS if not checks[name]]
        if failed:
            reason = f"failed the {failed[0]} check" + (f": {reply.reason}" if reply.reason else "")
            return Verdict(False, reply.utility, checks, reason)
        return Verdict(True, reply.utility, checks)
    return await _evaluate_faithfully(caller, content, type, related, norms)


async def assess(
    caller: Caller,
    database: NormDatabase,
    content: str,
    type: NormType,
    origin: Origin,
    related: str,
    mode: EvaluationMode,
    time: str,
) -> EvaluateData:
    """One identified item into ``database``: the exact-duplicate pre-check against the qualified
    norms (no call; words refused before are evaluated afresh, as the paper checks duplication
    against P only), then the immediate evaluation; the item is stored, qualified or with its
    rejection. The returned ``evaluate`` event says which, against the qualified norms it was
    checked against."""
    content = content.strip()
    norms = [norm.content for norm in database.qualified()]
    item: dict[str, Any] = {
        "content": content,
        "type": type,
        "origin": origin,
        "related": related,
        "norms": norms,
    }
    duplicate = exact_duplicate(database, content)
    if duplicate is not None:
        return SkippedItem(**item, skipped=f"same words as #{duplicate.id}")
    verdict = await evaluate(caller, content, type, related, database.qualified(), mode)
    norm = add_norm(
        database,
        content=content,
        type=type,
        utility=verdict.utility,
        origin=origin,
        source_text=related,
        time=time,
        qualified=verdict.qualified,
        rejection=verdict.rejection,
    )
    return AssessedItem(
        **item,
        id=norm.id,
        mode=mode,
        checks=verdict.checks,
        qualified=verdict.qualified,
        utility=verdict.utility,
        rejection=verdict.rejection,
    )


def _checks(
    content: str, type: NormType, related: str, norms: str
) -> list[tuple[str, str, type[CheckReply]]]:
    """(check, prompt, reply schema) of Figures 11–14, in the paper's order."""
    return [
        (
            "consistency",
            render(
                "check_consistency",
                {
                    "normative info": content,
                    "related chat or thought": related,
                    "answer shape": '{"consistent": true}',
                },
                "check_answer_ours",
            ),
            ConsistencyCheck,
        ),
        (
            "duplication",
            render(
                "check_duplication",
                {"normative information": content, "qualified personal norms": norms},
            ),
            DuplicationCheck,
        ),
        (
            "type",
            render(
                "check_type",
                {"the type of normative info": f'"type": "{type}", "content": "{content}"'},
            ),
            TypeCheck,
        ),
        (
            "conflict",
            render(
                "check_conflict",
                {
                    "normative information": content,
                    "qualified personal norms": norms,
                    "answer shape": '{"conflict": false, "reason": "..."}',
                },
                "check_answer_ours",
            ),
            ConflictCheck,
        ),
    ]


async def _evaluate_faithfully(
    caller: Caller, content: str, type: NormType, related: str, norms: str
) -> Verdict:
    checks: dict[str, bool] = {}
    for name, prompt, schema in _checks(content, type, related, norms):
        operation = f"check_{name}"
        reply = await caller.ask(operation, prompt, schema, max_tokens=150)
        if reply is None:
            return _failed_call(operation)
        passed, why = reply.outcome()
        checks[name] = passed
        if not passed:
            return Verdict(False, 1, checks, f"failed the {name} check{why}")
    utility = await _utility(caller, content)
    if utility is None:
        return Verdict(False, 1, checks, "utility: the reply never parsed")
    return Verdict(True, utility, checks)


@dataclass
class Synthesized:
    """One abstract norm proposed for a theme, the sanity check's verdict on it, and the item
    it became in the database (qualified, or kept with its rejection)."""

    theme: str
    content: str
    type: NormType
    members: list[int]
    member_contents: list[str]
    utility: int
    weights_used: bool
    verdict: Verdict
    id: int


@dataclass
class Synthesis:
    categories: list[tuple[str, list[int]]] = field(default_factory=list)
    abstracts: list[Synthesized] = field(default_factory=list)
    failed: str | None = None


async def synthesize(
    caller: Caller,
    database: NormDatabase,
    mode: EvaluationMode,
    time: str,
    hint: str = "",
) -> Synthesis:
    """{(Q, k)} ← ClassifySpecificNorms(P); n' ← GenerateAbstractNorm(Q, k) per group of ≥ 2;
    each n' through the sanity check into ``database``.

    The abstract norms are written at once (one call per category), then checked one after
    another, each against the qualified set as the abstract before left it: the paper's P,
    where an abstract that passed has taken its members' place. So a second category's
    abstract is a duplicate of (or in conflict with) the first's like any other item, and one
    with the same words as a qualified norm (the first category's abstract, an abstract of an
    earlier synthesis) is skipped without a call, as every identified item is; its own members
    are left out of the checks (else every abstract would duplicate them).
    """
    qualified = database.qualified()
    listed = numbered([norm.content for norm in qualified])
    if hint:
        listed = f"{listed}\n{hint}"
    grouped = await caller.ask(
        "classify",
        render("classify", {"qualified personal norms": listed}, "classify_ours"),
        Categories,
        max_tokens=60 + 25 * len(qualified),
    )
    if grouped is None:
        return Synthesis(failed="classify: the reply never parsed")
    result = Synthesis()
    placed: set[int] = set()
    for category in grouped.categories:
        indices = [i for i in dict.fromkeys(category.members) if 1 <= i <= len(qualified)]
        indices = [i for i in indices if i not in placed]
        placed.update(indices)
        if indices:
            result.categories.append((category.theme, [qualified[i - 1].id for i in indices]))

    def subset(category: tuple[str, list[int]]) -> str:
        theme, member_ids = category
        return f"[{theme}] " + " ".join(
            f"{index}. {norm.content}"
            for index, norm in enumerate(qualified, start=1)
            if norm.id in member_ids
        )

    async def abstract(caller: Caller, category: tuple[str, list[int]]) -> AbstractNorm | None:
        return await caller.ask(
            "abstract",
            render("abstract", {"qualified norm subset": subset(category)}, "abstract_format_ours"),
            AbstractNorm,
            max_tokens=200,
        )

    groups = [category for category in result.categories if len(category[1]) >= 2]
    branches = [caller.branch(index) for index in range(len(groups))]
    drafts = await asyncio.gather(
        *(abstract(branch, group) for branch, group in zip(branches, groups, strict=True))
    )
    for branch, group, reply in zip(branches, groups, drafts, strict=True):
        if reply is None:
            result.failed = "abstract: the reply never parsed"
            continue
        members = [norm for norm in qualified if norm.id in group[1]]
        result.abstracts.append(
            await _check_abstract(
                branch, database, reply, group, members, subset(group), mode, time
            )
        )
    caller.merge(branches)
    return result


async def _check_abstract(
    caller: Caller,
    database: NormDatabase,
    reply: AbstractNorm,
    category: tuple[str, list[int]],
    members: list[PersonalNorm],
    subset: str,
    mode: EvaluationMode,
    time: str,
) -> Synthesized:
    """One abstract norm's sanity check against ``database``'s qualified norms as they stand
    (its members left out), and its entry: qualified in its members' place, or rejected."""
    theme, member_ids = category
    content = reply.abstract.strip()
    utility, weights_used = weighted_utility([norm.utility for norm in members], reply.weights)
    duplicate = exact_duplicate(database, content, leave_out=member_ids)
    if duplicate is not None:
        verdict = Verdict(False, utility, rejection=f"same words as #{duplicate.id}")
    elif mode == "none":
        verdict = Verdict(True, utility)
    else:
        others = [norm for norm in database.qualified() if norm.id not in member_ids]
        verdict = await evaluate(caller, content, reply.type, subset, others, mode)
    theme = reply.theme or theme
    if verdict.qualified:
        norm = apply_abstract(
            database,
            content=content,
            type=reply.type,
            utility=utility,
            members=member_ids,
            theme=theme,
            time=time,
        )
    else:
        norm = add_norm(
            database,
            content=content,
            type=reply.type,
            utility=utility,
            origin="synthesis",
            source_text=theme,
            time=time,
            qualified=False,
            rejection=verdict.rejection,
            members=member_ids,
        )
    return Synthesized(
        theme=theme,
        content=content,
        type=reply.type,
        members=member_ids,
        member_contents=[norm.content for norm in members],
        utility=utility,
        weights_used=weights_used,
        verdict=verdict,
        id=norm.id,
    )
