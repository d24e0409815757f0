"""Spreading (§2.2, Figures 8–10): senders detect conflicts and talk; receivers and observers
identify normative information in what they heard and thought."""

from __future__ import annotations

from normlab.norms.calls import Caller
from normlab.norms.prompts import numbered, render
from normlab.norms.replies import (
    ConflictFinding,
    ConflictFindings,
    Identified,
    IdentifiedNorm,
    Thoughts,
    Utterance,
)
from normlab.norms.schemas import Actor, PersonalNorm


async def detect_conflicts(
    caller: Caller,
    agent: Actor,
    identity: str,
    norms: list[PersonalNorm],
    observations: list[str],
    batched: bool = True,
) -> list[ConflictFinding]:
    """Y_conflict ← DetectConflict(O_S, P_S) and Y_talk ← DecideToTalk(G_S), one call (Fig. 8).

    ``batched``: all of a tick's new observations in one call (our default); otherwise one call
    per observation, as the paper describes (``--faithful``).
    """
    groups = [observations] if batched else [[observation] for observation in observations]
    listed = numbered([n.content for n in norms])

    async def detect(caller: Caller, group: list[str]) -> ConflictFindings | None:
        prompt = render(
            "detect_conflict",
            {
                "observation": numbered(group),
                "qualified personal norms": listed,
                "agent description": agent.description,
                "agent name": agent.name,
                "identity": identity,
            },
        )
        return await caller.ask(
            "detect_conflict", prompt, ConflictFindings, max_tokens=60 + 45 * len(group)
        )

    # One observation per call (faithful): the calls are independent, so they run at once.
    replies = [await detect(caller, observations)] if batched else await caller.each(groups, detect)
    findings: list[ConflictFinding] = []
    offset = 0
    for group, reply in zip(groups, replies, strict=True):
        for finding in reply.findings if reply else []:
            if 1 <= finding.observation <= len(group):
                findings.append(
                    finding.model_copy(update={"observation": finding.observation + offset})
                )
        offset += len(group)
    return findings


async def utterance(
    caller: Caller,
    partner: str,
    place: str,
    context: str,
    transcript: list[tuple[str, str]],
) -> Utterance | None:
    """One conversation turn (the paper prints no prompt for it: ours)."""
    prompt = render(
        "utterance",
        {
            "place": place,
            "partner": partner,
            "context": context,
            "conversation": "\n".join(f"{who}: {said}" for who, said in transcript)
            or "(nothing yet: you speak first)",
        },
    )
    return await caller.ask("utterance", prompt, Utterance, max_tokens=150)


async def identify_from_chat(
    caller: Caller, transcript: list[tuple[str, str]]
) -> list[IdentifiedNorm]:
    """n̄_R ← IdentifyNormativeInformation(T_S→R) (Figure 9)."""
    return await identify_in_conversation(
        caller, "\n".join(f"{who}: {said}" for who, said in transcript)
    )


async def identify_in_conversation(caller: Caller, conversation: str) -> list[IdentifiedNorm]:
    """Figure 9 on a conversation already rendered (a group chat with reactions, say)."""
    prompt = render("identify_chat", {"conversation": conversation}, "identify_ours")
    reply = await caller.ask("identify_chat", prompt, Identified)
    return reply.norms if reply and reply.normative else []


async def generate_thoughts(caller: Caller, place: str, observations: list[str]) -> list[str]:
    """GenerateThought(O_A): the paper names it without a prompt; ours."""
    prompt = render("generate_thought", {"place": place, "observations": numbered(observations)})
    reply = await caller.ask("generate_thought", prompt, Thoughts, max_tokens=200)
    return [t.strip() for t in (reply.thoughts if reply else []) if t.strip()][:3]


async def identify_from_thoughts(caller: Caller, thoughts: list[str]) -> list[IdentifiedNorm]:
    """n̄_A ← IdentifyNormativeInformation(M_A) (Figure 10, as printed)."""
    prompt = render("identify_thought", {"thought": numbered(thoughts)}, "identify_ours")
    reply = await caller.ask("identify_thought", prompt, Identified)
    return reply.norms if reply and reply.normative else []
