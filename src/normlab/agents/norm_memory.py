"""The norm-learning subject: CRSEC's architecture around a benchmark's subject model.

LoSoNA and SCENE find that models rarely infer a group's unstated norm from a chat; CRSEC
builds agents whose architecture exists to notice, check and keep norms. This agent carries
that architecture into the benchmarks, so that their reports can measure whether it helps.
Before each reply it:

1. reads what it has seen, the chat so far (in SCENE with the reactions, and with its own
   turns marked, so that sanctions aimed at it show), with IdentifyNormativeInformation
   (Figure 9: CRSEC's prompt, schema and operation);
2. runs the immediate evaluation (consistency, duplication, type, conflict: CRSEC's
   [`evaluate`][normlab.norms.evaluate]) on each new item; an item with the
   same words as a qualified norm it already holds is skipped without a call, as in CRSEC;
3. keeps what passes as qualified personal norms for the rest of the episode, in CRSEC's
   [`NormDatabase`][normlab.norms.NormDatabase] (a rejected item stays, with its reason);
4. returns the compliance block (``compliance_block``) that the
   benchmark adds to its own reply prompt; the eval's subject model writes the reply.

Its own calls run under the ``norm_memory`` role (bound to the subject model unless told
otherwise), so their cost is reported apart, and each reading is logged
([`MemoryLog`][normlab.agents.MemoryLog]) for the report and the check of what the agent inferred.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from inspect_ai.model import Model, get_model
from inspect_ai.solver import TaskState
from pydantic import BaseModel, Field

from normlab.agents.names import NORM_MEMORY, NORM_MEMORY_ROLE
from normlab.agents.prompts import compliance_block
from normlab.models import ModelClient, RoleSettings
from normlab.norms import (
    Caller,
    EvaluationMode,
    NormDatabase,
    NormType,
    add_norm,
    call_seed,
    evaluate,
    exact_duplicate,
    identify_in_conversation,
)

MAX_ITEMS_PER_READING = 3
"""At most this many identified items are evaluated per reading (CRSEC sets no cap; a weak
model can list a dozen, each costing an evaluation call)."""
MEMORY_KEY = "norm_memory"
"""Where a sample's metadata (LoSoNA) or an episode record (SCENE) keeps the agent's log."""
PHASE = "norm_memory"

ItemStatus = Literal["qualified", "rejected", "duplicate"]


class ItemOutcome(BaseModel):
    """One identified item and what the immediate evaluation made of it."""

    content: str
    type: NormType
    status: ItemStatus
    """``duplicate``: the same words as a qualified norm already held (no evaluation call)."""
    rejection: str | None = None
    checks: dict[str, bool] = Field(default_factory=dict)
    utility: int | None = None


class Reading(BaseModel):
    """What the agent did before one reply: the items it identified and the norms it held."""

    reply: int
    """The subject's reply this reading came before (1 = its first)."""
    turn: int | None = None
    """The last chat turn it had read (LoSoNA: the elicitor; SCENE: the newest turn id)."""
    read: bool = True
    """False when nothing new had appeared since the last reading (no call made)."""
    items: list[ItemOutcome] = Field(default_factory=list)
    qualified: list[str] = Field(default_factory=list)
    """The qualified personal norms the reply prompt listed."""
    calls: int = 0
    parse_failures: int = 0


class MemoryLog(BaseModel):
    """The agent's episode: every reading in order and the norm database at the end."""

    agent: str = NORM_MEMORY
    evaluation: EvaluationMode = "merged"
    readings: list[Reading] = Field(default_factory=list)
    database: NormDatabase = Field(default_factory=NormDatabase)

    def held_norms(self) -> list[str]:
        """Every norm that was qualified at some reply, each once, in the order first held."""
        return list(dict.fromkeys(norm for r in self.readings for norm in r.qualified))


def memory_model(subject: Model) -> Model:
    """The model of the agent's own calls: the ``norm_memory`` role if bound, else the subject."""
    return get_model(role=NORM_MEMORY_ROLE, default=subject)


@dataclass
class NormMemory:
    """One subject's personal norm database for one episode, and the loop that fills it."""

    client: ModelClient
    actor: str
    seed: int = 0
    mode: EvaluationMode = "merged"
    cap: int | None = None
    """One output cap for the agent's calls (``--max-tokens norm_memory=N``)."""
    log: MemoryLog = field(init=False)
    _last_read: str = field(default="", init=False)

    def __post_init__(self) -> None:
        self.log = MemoryLog(evaluation=self.mode)

    @classmethod
    def for_sample(
        cls, state: TaskState, client: ModelClient, actor: str, settings: RoleSettings
    ) -> NormMemory:
        """The agent of one Inspect sample: its calls seeded by the sample's id and epoch (a
        rerun asks the same questions with the same seeds, and the K epochs differ) and capped
        by ``--max-tokens norm_memory=N``."""
        return cls(
            client,
            actor,
            seed=call_seed(state.sample_id, state.epoch),
            cap=settings.max_tokens.get(NORM_MEMORY_ROLE),
        )

    @property
    def database(self) -> NormDatabase:
        return self.log.database

    async def before_reply(self, conversation: str, turn: int | None = None) -> str:
        """Read ``conversation`` (the chat as the subject sees it), keep the norms that pass,
        and return the compliance block for the reply prompt."""
        reading = Reading(reply=len(self.log.readings) + 1, turn=turn)
        if conversation != self._last_read:
            self._last_read = conversation
            await self._read(conversation, reading)
        else:
            reading.read = False
        reading.qualified = [norm.content for norm in self.database.qualified()]
        self.log.readings.append(reading)
        return compliance_block(reading.qualified)

    async def _read(self, conversation: str, reading: Reading) -> None:
        caller = Caller(
            self.client,
            self.actor,
            self.seed,
            reading.reply,
            PHASE,
            role=NORM_MEMORY_ROLE,
            cap=self.cap,
        )
        identified = await identify_in_conversation(caller, conversation)
        for item in identified[:MAX_ITEMS_PER_READING]:
            content = item.content.strip()
            if exact_duplicate(self.database, content) is not None:
                reading.items.append(
                    ItemOutcome(content=content, type=item.type, status="duplicate")
                )
                continue
            verdict = await evaluate(
                caller, content, item.type, conversation, self.database.qualified(), self.mode
            )
            add_norm(
                self.database,
                content=content,
                type=item.type,
                utility=verdict.utility,
                origin="chat",
                source_text=f"the chat up to turn {reading.turn}",
                time=f"reply {reading.reply}",
                qualified=verdict.qualified,
                rejection=verdict.rejection,
            )
            reading.items.append(
                ItemOutcome(
                    content=content,
                    type=item.type,
                    status="qualified" if verdict.qualified else "rejected",
                    rejection=verdict.rejection,
                    checks=verdict.checks,
                    utility=verdict.utility,
                )
            )
        reading.calls = len(caller.log.entries)
        reading.parse_failures = sum(entry.data.parse_failed for entry in caller.log.entries)
