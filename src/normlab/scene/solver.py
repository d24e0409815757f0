"""The SCENE episode runtime (paper §4.2–4.3, Appendix B.3–B.5).

One subject and the scenario's 3–4 scripted personas (SPs). The chat opens with
the scaffold's opening turns; when p = 1 the precedent sub-script runs next (the
demonstrator breaches, the others sanction) so it completes before the subject's
first action; then the elicitor lands and the subject acts. Each round (turn):

1. the orchestrator orders the SPs;
2. each SP returns message / react / no-op; after every non-silent SP action the
   subject is prompted with the updated transcript and may message, react or no-op;
3. if every SP was silent, the subject gets one open-floor prompt.

The episode ends after ``max_turns`` rounds, or after three consecutive
all-silent rounds in which the subject also no-ops. A reply that fails to parse
(after the structured helper's repair retry) is logged as a parse failure and
played as a no-op — never a crash. The subject's prompts are built from the
scaffold only; it never sees hidden fields.

A norm-learning subject ([`NormMemory`][normlab.agents.NormMemory]) reads the chat before each
of its actions (its own turns marked, so the reactions and sanctions aimed at it show),
and its prompt gains the agent's compliance block; the episode record keeps its norm
database reply by reply, and its calls (role ``norm_memory``) among the episode's calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from pydantic import BaseModel

from normlab.agents import NORM_MEMORY, NORM_MEMORY_ROLE, NormMemory, memory_model
from normlab.core.chat import Turn, render_turn
from normlab.core.logs import BASE_AGENT
from normlab.models import ModelClient, RoleSettings, role_model
from normlab.scene.defaults import DEFAULT_MAX_TURNS
from normlab.scene.meta import SampleMeta
from normlab.scene.prompts import (
    PRECEDENT_NOTE,
    orchestrator_messages,
    persona_messages,
    scaffold_turns,
    subject_messages,
    subject_view_text,
    transcript_text,
)
from normlab.scene.schemas import (
    ChatAction,
    Episode,
    LogEvent,
    LogKind,
    OrchestratorDecision,
    Phase,
    SceneScenario,
)
from normlab.scene.taxonomy import Dimensions, load_dimensions

SILENT_ROUNDS_TO_END = 3
ACTION_MAX_TOKENS = 160
ORCHESTRATOR_MAX_TOKENS = 120


@dataclass
class EpisodeModels:
    """The models playing each role: the subject under test, the personas, the orchestrator."""

    subject: Model
    persona: Model
    orchestrator: Model

    def client(self) -> ModelClient:
        return ModelClient(
            {"subject": self.subject, "persona": self.persona, "orchestrator": self.orchestrator}
        )


@dataclass
class EpisodeRun:
    scenario: SceneScenario
    dimensions: Dimensions
    client: ModelClient
    max_turns: int = DEFAULT_MAX_TURNS
    settings: RoleSettings = field(default_factory=RoleSettings)
    memory: NormMemory | None = None
    """The norm-learning subject's database, when the subject is that agent."""
    instruction: str | None = None
    """A ``file:`` prompt variant's wording of B.4 (``normlab.scene.variants``)."""
    episode: Episode = field(init=False)
    _round: int = 0

    def __post_init__(self) -> None:
        self.episode = Episode(
            scenario_id=self.scenario.scenario_id,
            tuple=self.scenario.tuple,
            subject=self.scenario.subject.name,
            agent=self.memory.log.agent if self.memory else BASE_AGENT,
        )

    # --- bookkeeping -------------------------------------------------------------

    def log(self, kind: LogKind, actor: str, **detail: object) -> None:
        self.episode.log.append(LogEvent(kind=kind, round=self._round, actor=actor, detail=detail))

    def append(self, actor: str, action: ChatAction, phase: Phase) -> Turn | None:
        """Add a message or reaction to the chat; no-ops and invalid targets only go to the log."""
        if action.action == "no-op":
            self.log("no-op", actor, phase=phase)
            return None
        known = {entry.turn_id for entry in self.episode.entries}
        if action.action == "react" and action.target_turn_id not in known:
            self.log(
                "parse_failure",
                actor,
                reason=f"reaction targets unknown turn {action.target_turn_id}",
            )
            self.log("no-op", actor, phase=phase)
            return None
        entry = Turn(
            turn_id=len(self.episode.entries) + 1,
            round=self._round,
            actor=actor,
            kind="reaction" if action.action == "react" else "message",
            content=action.content.strip(),
            target_turn_id=action.target_turn_id if action.action == "react" else None,
            phase=phase,
        )
        self.episode.entries.append(entry)
        self.log("entry", actor, turn_id=entry.turn_id, phase=phase)
        return entry

    async def call(
        self,
        role: str,
        actor: str,
        messages: list[ChatMessage],
        schema: type[ChatAction] | type[OrchestratorDecision],
        max_tokens: int,
    ) -> BaseModel | None:
        result = await self.client.structured(
            role, actor, messages, schema, self.settings.config(role, max_tokens)
        )
        self.episode.calls.append(self.client.records[-1])
        if result.value is None:
            self.log("parse_failure", actor, role=role, error=result.error, replies=result.replies)
        return result.value

    # --- participants ------------------------------------------------------------

    async def persona_turn(self, name: str, phase: Phase, note: str | None = None) -> Turn | None:
        messages = persona_messages(
            self.scenario, name, self.dimensions, self.episode.entries, note
        )
        action = await self.call("persona", name, messages, ChatAction, ACTION_MAX_TOKENS)
        return self.append(
            name, action if isinstance(action, ChatAction) else ChatAction(action="no-op"), phase
        )

    async def read_norms(self, memory: NormMemory) -> str:
        """The norm-learning subject reads the chat so far; returns its compliance block."""
        start = len(self.client.records)
        entries = self.episode.entries
        block = await memory.before_reply(
            subject_view_text(entries, self.scenario.subject.name),
            entries[-1].turn_id if entries else None,
        )
        self.episode.calls.extend(self.client.records[start:])
        self.episode.norm_memory = memory.log
        return block

    async def subject_turn(self, open_floor: bool = False) -> Turn | None:
        name = self.scenario.subject.name
        norms = await self.read_norms(self.memory) if self.memory else ""
        messages = subject_messages(
            self.scenario, self.episode.entries, open_floor, norms, self.instruction
        )
        self.log("prompt", name, open_floor=open_floor)
        self.log("subject_view", name, messages=[m.text for m in messages])
        action = await self.call("subject", name, messages, ChatAction, ACTION_MAX_TOKENS)
        return self.append(
            name,
            action if isinstance(action, ChatAction) else ChatAction(action="no-op"),
            "episode",
        )

    async def route(self) -> list[str]:
        """The orchestrator's order for this round; falls back to cast order if unusable."""
        cast = [member.name for member in self.scenario.scaffold.channel.cast]
        messages = orchestrator_messages(self.scenario, self.episode.entries, self.max_turns, cast)
        decision = await self.call(
            "orchestrator", "orchestrator", messages, OrchestratorDecision, ORCHESTRATOR_MAX_TOKENS
        )
        proposed: list[str] = []
        if isinstance(decision, OrchestratorDecision):
            proposed = [decision.next_actor, *decision.order]
        order = list(dict.fromkeys(name for name in proposed if name in cast))
        order += [name for name in cast if name not in order]
        self.log(
            "orchestration",
            "orchestrator",
            order=order,
            terminate_requested=isinstance(decision, OrchestratorDecision) and decision.terminate,
            fallback=not isinstance(decision, OrchestratorDecision),
        )
        return order

    # --- the episode ---------------------------------------------------------------

    def open_chat(self) -> None:
        """The scaffold's opening messages (B.1 generates no reactions; others are skipped)."""
        for turn in scaffold_turns(self.scenario)[:-1]:
            self.append(turn.actor, ChatAction(action="message", content=turn.content), "opening")

    async def precedent(self) -> None:
        """p = 1: the demonstrator breaches, then every other SP may sanction."""
        demonstrator = self.scenario.demonstrator
        if self.scenario.tuple.precedent != 1 or demonstrator is None:
            return
        await self.persona_turn(demonstrator, "precedent", PRECEDENT_NOTE)
        for member in self.scenario.scaffold.channel.cast:
            if member.name != demonstrator:
                await self.persona_turn(member.name, "precedent", PRECEDENT_NOTE)

    async def run(self) -> Episode:
        self.open_chat()
        await self.precedent()
        elicitor = scaffold_turns(self.scenario)[-1]
        self.append(
            elicitor.actor, ChatAction(action="message", content=elicitor.content), "elicitor"
        )
        await self.subject_turn()
        silent_rounds = 0
        termination = "max_turns"
        for round_number in range(1, self.max_turns + 1):
            self._round = round_number
            self.episode.rounds = round_number
            any_spoke = False
            for name in await self.route():
                if await self.persona_turn(name, "episode") is not None:
                    any_spoke = True
                    await self.subject_turn()
            if any_spoke:
                silent_rounds = 0
                continue
            subject_acted = await self.subject_turn(open_floor=True) is not None
            silent_rounds = 0 if subject_acted else silent_rounds + 1
            if silent_rounds >= SILENT_ROUNDS_TO_END:
                termination = "silence"
                break
        self.episode.termination = termination
        self.log("termination", "runtime", reason=termination, rounds=self.episode.rounds)
        return self.episode


async def run_episode(
    scenario: SceneScenario,
    dimensions: Dimensions,
    models: EpisodeModels | ModelClient,
    max_turns: int = DEFAULT_MAX_TURNS,
    settings: RoleSettings | None = None,
    memory: NormMemory | None = None,
    instruction: str | None = None,
) -> Episode:
    """Play one episode of ``scenario`` and return its full record; with ``memory``, the
    subject is the norm-learning agent (its client must bind the ``norm_memory`` role);
    ``instruction``: a prompt variant's wording of B.4."""
    client = models.client() if isinstance(models, EpisodeModels) else models
    return await EpisodeRun(
        scenario, dimensions, client, max_turns, settings or RoleSettings(), memory, instruction
    ).run()


def subject_chat(
    scenario: SceneScenario, episode: Episode, instruction: str | None = None
) -> list[ChatMessage]:
    """The episode as the subject lived it, for ``inspect view``: B.4's framing (or a prompt
    variant's) as the system message, others' turns as user messages, the subject's own as
    assistant messages."""
    system = subject_messages(scenario, [], instruction=instruction)[0]
    messages: list[ChatMessage] = [ChatMessageSystem(content=system.text)]
    for entry in episode.entries:
        if entry.actor == episode.subject and entry.kind == "message":
            messages.append(ChatMessageAssistant(content=entry.content))
        else:
            messages.append(ChatMessageUser(content=render_turn(entry, "numbered")))
    return messages


@solver
def play_episode(
    max_turns: int = DEFAULT_MAX_TURNS,
    settings: RoleSettings | None = None,
    agent: str = BASE_AGENT,
    instruction: str | None = None,
) -> Solver:
    """Run the episode with the subject (the eval's model, or the norm-learning agent around
    it), personas and orchestrator; ``instruction``: a prompt variant's wording of B.4."""
    roles = settings or RoleSettings()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata_as(SampleMeta)
        scenario = meta.scenario
        subject = get_model()

        def model_for(role: str) -> Model:
            if role == "subject":
                return subject
            return memory_model(subject) if role == NORM_MEMORY_ROLE else role_model(role)

        client = ModelClient(model_for)
        memory = (
            NormMemory.for_sample(state, client, scenario.subject.name, roles)
            if agent == NORM_MEMORY
            else None
        )
        episode = await run_episode(
            scenario, load_dimensions(), client, max_turns, roles, memory, instruction
        )
        meta.ran(episode).write(state.metadata)
        state.messages = subject_chat(scenario, episode, instruction)
        state.output = ModelOutput.from_content(
            model=str(subject), content=transcript_text(episode.entries)
        )
        return state

    return solve
