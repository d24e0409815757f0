"""The norms a CRSEC society converged on, with what spread them: what ``crsec export`` turns
into LoSoNA and SCENE scenarios (``normlab.crsec.export.losona``, ``normlab.crsec.export.scene``).

A norm *emerged* when the share of agents that both **hold** it and **adhere** to it was over
``--min-share`` (``DEFAULT_MIN_SHARE``: the one definition, ``normlab.crsec.emergence``) at
the end of some simulated hour. Both, as the paper measures emergence: "whether the standard of
behavior defined by that norm has been widely accepted and adhered to by a significant
majority" (§3.2), "most agents not only adopting these standards of behavior as their
qualified personal norms but also adhering to these standards in their planning and actions".
Holding and adhering are Figure 2(b)'s, per agent, from the same judge verdicts as ``analyze``
(the run's judge cache): a qualified norm the judge deems to express the norm; a plan or
actions explicitly compliant, violating in neither. Adhering alone exported the busy run's
"quiet in public" at 100% while nobody held it: agents who read quietly for their own reasons
are no society that converged on a norm.

The norms at stake are the society file's (an author's words) and the society's own: each
qualified norm, at some hour's end, that the judge matches to none of the file's norms (a
synthesized abstract, a norm from a thought or a chat) is a norm at stake in its own words, as
the paper's "maintain a healthy environment" emerged "without any norm entrepreneurs initially
creating" it. Words that differ only in case, Unicode form, punctuation or "&" for "and"
(``wording_key``) are one norm; an agent holds it when it holds those words or words the
judge deems to express it, and a later norm whose words the judge deems to express an earlier
one is that norm (``same_as``). Only an own norm held by the threshold share at some hour is
judged for adherence (one more call per agent-hour, listing those norms).

The evidence each carries is ``normlab.crsec.export.evidence``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from normlab.core.errors import InputError
from normlab.core.provenance import ScenarioProvenance
from normlab.crsec.analysis.figure2 import (
    LoadedRun,
    Matches,
    Verdicts,
    compliance_verdicts,
    held_contents,
    hour_flags,
    judge_matches,
    load_run,
)
from normlab.crsec.analysis.judge import Judge
from normlab.crsec.emergence import over
from normlab.crsec.export.evidence import Evidence, gather_evidence, mark_demonstrations
from normlab.crsec.export.threshold import check_threshold
from normlab.crsec.sim.events import AgentSnapshot
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import Society, TargetNorm
from normlab.models import DEFAULT_MODEL, ModelClient
from normlab.norms.normdb import normalized
from normlab.norms.schemas import NormType

SOCIETY_FILE = "society file"
"""A norm's origin when an author wrote it (the society file's norms at stake)."""
ORIGINS = {
    "created": "created by an agent",
    "chat": "from a conversation",
    "thought": "from a thought",
    "synthesis": "from a synthesis",
}
"""How the first agent to hold an own norm came by it, in words."""
OWN_PREFIX = "own_"
OWN_ID_WORDS = 6
"""An own norm's id: ``own_`` and the first six words of its key."""


class Shares(BaseModel):
    """One hour's end: the shares of agents holding the norm, adhering to it, and both."""

    hour_label: str
    holding: float
    adhering: float
    both: float


class OwnNorm(BaseModel):
    """A norm in the society's own words: qualified at some hour's end, matched by the judge
    to none of the society file's norms."""

    target: TargetNorm
    """Its id (``own_`` and its first words), its words as the statement, its type."""
    words: str
    """The first holder's words, as held."""
    origin: str
    """How the first agent to hold it came by it: created, chat, thought or synthesis."""
    agent: str
    """The first agent to hold it (at the earliest hour's end, in society order)."""
    same_as: str = ""
    """The id of an earlier own norm whose words the judge deems these words to express: the
    same norm, counted there."""


class EmergedNorm(BaseModel):
    target: TargetNorm
    provenance: ScenarioProvenance
    adherents: list[str]
    """The agents holding and adhering at the end of the hour the norm emerged, in society
    order."""
    evidence: Evidence

    @property
    def own(self) -> bool:
        """The society's own words, not the society file's."""
        return self.provenance.norm_origin != SOCIETY_FILE

    def whose_words(self) -> str:
        """``the society's own words (from a synthesis): “…”``, or empty for an author's norm."""
        if not self.own:
            return ""
        origin = self.provenance.norm_origin
        return f"the society's own words ({ORIGINS.get(origin, origin)}): “{self.target.statement}”"


class Missed(BaseModel):
    """A society file's norm that never reached the threshold: its highest share of agents
    holding and adhering, and the hour and the two shares then."""

    norm_id: str
    share: float
    holding: float
    adhering: float
    hour_label: str


class Selection(BaseModel):
    run: str
    society: Society
    threshold: float
    emerged: list[EmergedNorm]
    missed: list[Missed]
    own: list[OwnNorm] = Field(default_factory=list)
    """The society's own norms, in the order first held."""
    demonstration_calls: int = 0
    """Judge calls made to tie conversation lines to the exported norms (the rest of the
    lines asked came from the run's judge cache)."""
    shares: dict[str, list[Shares]] = Field(default_factory=dict)
    """Per norm judged for adherence (the society file's, and own norms held widely enough),
    the shares at each hour's end."""

    def missed_line(self) -> str:
        """``quiet_in_public 50% (day 1 10:00–11:00: holding 50%, adhering 100%), …``: how
        close the society file's other norms came, then how many own norms none of which did."""
        parts = [
            f"{item.norm_id} {item.share:.0%} ({item.hour_label}: holding "
            f"{item.holding:.0%}, adhering {item.adhering:.0%})"
            for item in self.missed
        ]
        distinct = [norm for norm in self.own if not norm.same_as]
        emerged = sum(norm.own for norm in self.emerged)
        if len(distinct) > emerged:
            parts.append(f"{len(distinct) - emerged} of the society's own norms did not")
        return ", ".join(parts)


def finished_run(folder: Path) -> RunDir:
    """``folder`` as a finished run; a folder that is not one is a one-line error."""
    run = RunDir(folder)
    run.config()  # "not a CRSEC run directory (no config.json)", or the bad field
    state = run.checkpoint()
    if state is None or not state.finished:
        raise InputError(
            folder, f"the run has not finished: resume it first (normlab crsec resume {folder})"
        )
    return run


def judge_model(folder: Path, judge: str | None) -> str:
    """The judge the emergence metrics use: ``--judge``, else the run's, else the default."""
    return judge or RunDir(folder).config().models.get("judge", DEFAULT_MODEL)


def wording_key(text: str) -> str:
    """A norm's words as compared: the duplicate pre-check's words (``normalized``: letter
    case, Unicode form, accents, "&" for "and", apostrophes, quotes, punctuation and spacing
    set aside). "Café tables stay clear." and "“CAFE TABLES STAY CLEAR”" are one norm."""
    return normalized(text)


async def select_emerged(
    folder: Path,
    min_share: float,
    client: ModelClient,
    model: str,
    progress: Callable[[], None] | None = None,
) -> Selection:
    """The norms of the run at ``folder`` (the society file's and its own) whose share of agents
    holding and adhering reached ``min_share``, each with its provenance and evidence; the
    judge's verdicts come from the run's cache where ``analyze`` already made them."""
    check_threshold(min_share)
    finished_run(folder)
    loaded = load_run(folder)
    society = loaded.config.society
    names = [agent.name for agent in society.agents]
    contents = sorted(held_contents(loaded))
    judge = Judge(client, model, folder, society.norms)
    matched = await judge_matches(judge, contents, progress)
    verdicts = await compliance_verdicts(loaded, judge, names, progress)
    own = own_norms(loaded, matched)
    own_matched = await _own_matches(loaded, own, client, model, progress)
    judged = [norm.target for norm in own if not norm.same_as]
    judged = [norm for norm in judged if _held_widely(loaded, names, norm, own_matched, min_share)]
    own_verdicts = (
        await compliance_verdicts(loaded, Judge(client, model, folder, judged), names, progress)
        if judged
        else {}
    )
    every: Matches = {c: [*matched.get(c, []), *own_matched.get(c, [])] for c in contents}
    lines = Judge(client, model, folder, [])
    events = list(RunDir(folder).events())
    origins = {norm.target.id: norm.origin for norm in own}
    stakes = [(norm, matched, verdicts) for norm in society.norms]
    stakes += [(norm, own_matched, own_verdicts) for norm in judged]
    selection = Selection(
        run=folder.resolve().name,
        society=society,
        threshold=min_share,
        emerged=[],
        missed=[],
        own=own,
    )
    for target, found, said in stakes:
        hourly = _hourly(loaded, names, target, found, said)
        selection.shares[target.id] = [shares for shares, _ in hourly]
        reached = next((i for i, (s, _) in enumerate(hourly) if over(s.both, min_share)), None)
        if reached is None:
            if target.id not in origins:
                best = max(hourly, key=lambda pair: pair[0].both)[0]
                selection.missed.append(
                    Missed(norm_id=target.id, share=best.both, holding=best.holding,
                           adhering=best.adhering, hour_label=best.hour_label)
                )  # fmt: skip
            continue
        shares, adherents = hourly[reached]
        provenance = ScenarioProvenance(
            run=folder.resolve().name,
            society=society.name,
            norm_id=target.id,
            statement=target.statement,
            norm_origin=origins.get(target.id, SOCIETY_FILE),
            adherent=len(adherents),
            agents=len(names),
            adherence=shares.both,
            hour=reached + 1,
            hour_label=shares.hour_label,
            threshold=min_share,
            agent_model=loaded.config.models.get("agent", ""),
            judge_model=model,
        )
        evidence = gather_evidence(events, loaded, target, every, said)
        await mark_demonstrations(evidence, target, lines, progress)
        selection.emerged.append(
            EmergedNorm(
                target=target, provenance=provenance, adherents=adherents, evidence=evidence
            )
        )
    selection.demonstration_calls = lines.calls
    return selection


def _hourly(
    loaded: LoadedRun, names: list[str], target: TargetNorm, matched: Matches, verdicts: Verdicts
) -> list[tuple[Shares, list[str]]]:
    """Per hour's end: the shares, and the agents holding and adhering, in society order
    (Figure 2(b)'s flags, as ``analyze`` computes them)."""
    hourly: list[tuple[Shares, list[str]]] = []
    for hour in loaded.hours:
        cells = {(hour.hour, name): verdicts.get((hour.hour, name), {}) for name in names}
        flags = hour_flags(hour, names, [target], matched, cells)
        holding, adhering = flags["holding"][target.id], flags["adhering"][target.id]
        both = [name for name in names if flags["both"][target.id][name]]
        shares = Shares(
            hour_label=hour.label,
            holding=sum(holding.values()) / len(names),
            adhering=sum(adhering.values()) / len(names),
            both=len(both) / len(names),
        )
        hourly.append((shares, both))
    return hourly


def _held_widely(
    loaded: LoadedRun, names: list[str], target: TargetNorm, matched: Matches, min_share: float
) -> bool:
    """Whether ``min_share`` of the agents held ``target`` at some hour's end: else it cannot
    emerge, and its adherence is not asked."""
    hourly = _hourly(loaded, names, target, matched, {})
    return any(over(shares.holding, min_share) for shares, _ in hourly)


def own_norms(loaded: LoadedRun, matched: Matches) -> list[OwnNorm]:
    """The society's own norms: the words of each qualified norm at an hour's end whose key
    (``wording_key``) no words the judge matched to a society file's norm share, first
    held first (hours in order, agents in the society's order). Its type is the agent's entry's
    (from the final checkpoint; injunctive where a hand-written folder lacks it: the type is
    not exported)."""
    society = loaded.config.society
    authored = {wording_key(content) for content, ids in matched.items() if ids}
    taken = {norm.id for norm in society.norms}
    types: dict[tuple[str, int], NormType] = {
        (name, norm.id): norm.type
        for name, state in (loaded.state.agents.items() if loaded.state else [])
        for norm in state.norms.norms
    }
    found: dict[str, OwnNorm] = {}
    for hour in loaded.hours:
        for agent in society.agents:
            for held in hour.agents.get(agent.name, AgentSnapshot()).qualified:
                key = wording_key(held.content)
                if key in authored or key in found:
                    continue
                norm_id = _own_id(key, taken)
                taken.add(norm_id)
                statement = held.content.strip()
                target = TargetNorm(
                    id=norm_id,
                    statement=statement,
                    type=types.get((agent.name, held.id), "injunctive"),
                    compliance=f"doing what “{statement}” asks",
                    violation=f"going against “{statement}”",
                )
                found[key] = OwnNorm(
                    target=target, words=held.content, origin=held.origin, agent=agent.name
                )
    return list(found.values())


def _own_id(key: str, taken: set[str]) -> str:
    base = OWN_PREFIX + ("_".join(key.split()[:OWN_ID_WORDS]) or "norm")
    return next(
        candidate
        for index in range(1, len(taken) + 2)
        if (candidate := base if index == 1 else f"{base}_{index}") not in taken
    )


async def _own_matches(
    loaded: LoadedRun,
    own: list[OwnNorm],
    client: ModelClient,
    model: str,
    progress: Callable[[], None] | None,
) -> Matches:
    """Each qualified norm's words → the own norms it expresses: the judge's matches (one call
    per words, listing every own norm), plus the own norm of the same key without asking.
    Sets ``same_as`` on an own norm whose words express an earlier one, whose id then stands
    for it in every match."""
    if not own:
        return {}
    judge = Judge(client, model, loaded.folder, [norm.target for norm in own])
    contents = sorted(held_contents(loaded))
    found = await judge_matches(judge, contents, progress)
    by_key = {wording_key(norm.target.statement): norm.target.id for norm in own}
    for index, norm in enumerate(own):
        earlier = [o.target.id for o in own[:index] if not o.same_as]
        norm.same_as = next((i for i in found[norm.words] if i in earlier), "")
    alias = {norm.target.id: norm.same_as for norm in own if norm.same_as}
    matched: Matches = {}
    for content in contents:
        ids = [*found[content], *[by_key[k] for k in [wording_key(content)] if k in by_key]]
        matched[content] = list(dict.fromkeys(alias.get(i, i) for i in ids))
    return matched
