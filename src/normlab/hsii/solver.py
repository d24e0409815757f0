"""HSII's solvers: the subject's next statement (r1, r2) and the long run with its target (r4).

1. ``next_statement``: the subject (the eval's model) gets Testing Prompt-1 and
   the case in one call; its reply is parsed leniently (B.5) and its target
   matched against the golden (r2).
2. ``long_run``: only when the target is right (Definition 1). The paper says
   "we prompt testing model to chat for several turns" (ε = 7) and, for "a
   predetermined decision round", compares its statement with one "generated
   using GPT-3" (B.5); who plays the users is never stated. Our design: a
   ``persona`` model plays the target (the other characters stay silent); the
   subject's first statement is turn 1 and it produces turns 2..ε under Testing
   Prompt-1 with the growing history; at turn ε a ``reference`` model answers the
   same history, and the judge compares the two statements (in the scorer).

Everything is recorded in the sample's metadata (``hsii``), and every call of the
long run in ``hsii_calls``, so a run can be re-scored and its prefix reuse read.
"""

from __future__ import annotations

from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from normlab.hsii.defaults import EPSILON
from normlab.hsii.meta import SampleMeta
from normlab.hsii.parse import cast_of, parse_statement, resolve_target, target_correct
from normlab.hsii.prompts import persona_prompt, testing_prompt
from normlab.hsii.schemas import (
    ASSISTANT,
    Case,
    CaseResult,
    LongRun,
    LongRunTurn,
    Message,
    Statement,
)
from normlab.models import DETERMINISTIC_CACHE, ModelClient, RoleSettings, role_model

STATEMENT_MAX_TOKENS = 300
PERSONA_MAX_TOKENS = 160
PERSONA_TEMPERATURE = 0.0


def case_of(state: TaskState) -> Case:
    return state.metadata_as(SampleMeta).case


def result_of(state: TaskState) -> CaseResult:
    return state.metadata_as(SampleMeta).recorded()


class CaseRun:
    """The calls of one case, through one role- and actor-tagged client."""

    def __init__(
        self,
        case: Case,
        client: ModelClient,
        settings: RoleSettings,
        instruction: str | None = None,
    ) -> None:
        self.case = case
        self.client = client
        self.settings = settings
        self.instruction = instruction
        """A prompt variant's wording of Testing Prompt-1, for the subject only: the
        reference, r4's yardstick, answers the paper's."""

    async def statement(
        self, role: str, history: list[Message], temperature: float | None = None
    ) -> tuple[str, Statement | None]:
        """A statement under Testing Prompt-1 for ``history``: the raw reply and its parse."""
        result = await self.client.text(
            role,
            role,
            [
                ChatMessageUser(
                    content=testing_prompt(
                        self.case, history, self.instruction if role == "subject" else None
                    )
                )
            ],
            self.settings.config(role, STATEMENT_MAX_TOKENS, temperature),
            cache=DETERMINISTIC_CACHE if temperature == 0 else False,
        )
        return result.text, parse_statement(result.text, cast_of(self.case))

    async def reply(self, character: str, history: list[Message]) -> str:
        result = await self.client.text(
            "persona",
            character,
            [ChatMessageUser(content=persona_prompt(self.case, character, history))],
            self.settings.config("persona", PERSONA_MAX_TOKENS, PERSONA_TEMPERATURE),
            cache=DETERMINISTIC_CACHE,
        )
        return result.text.strip()

    async def long_run(self, first: Statement, epsilon: int) -> LongRun:
        """Turns 2..ε with the target, then the subject's and the reference's statements at
        the decision round (turn ε) for the same history."""
        target = self.case.golden.role_to
        history = list(self.case.messages)
        turns: list[LongRunTurn] = []
        said: Statement | None = first
        raw = first.content
        for turn in range(1, epsilon + 1):
            if turn > 1:
                raw, said = await self.statement("subject", history)
            if turn == epsilon:
                break
            content = said.content if said else raw
            addressee = (
                resolve_target(said.targets[0], self.case.characters, self.case.aliases)
                if said and len(said.targets) == 1
                else None
            )
            turns.append(
                LongRunTurn(
                    speaker=ASSISTANT,
                    addressee=addressee or target,
                    content=content,
                    parsed_by=said.rule if said else "unparsed",
                )
            )
            history.append(Message(role_from=ASSISTANT, role_to=target, content=content))
            answer = await self.reply(target, history)
            turns.append(LongRunTurn(speaker=target, addressee=ASSISTANT, content=answer))
            history.append(Message(role_from=target, role_to=ASSISTANT, content=answer))
        reference_raw, reference = await self.statement("reference", history, temperature=0.0)
        return LongRun(
            turns=turns,
            history=history,
            subject_raw=raw,
            subject=said,
            reference_raw=reference_raw,
            reference=reference,
        )


@solver
def next_statement(settings: RoleSettings | None = None, instruction: str | None = None) -> Solver:
    """The subject's next statement for the case: parsed (r1) and its target matched (r2);
    ``instruction``: a prompt variant's wording of Testing Prompt-1."""
    chosen = settings or RoleSettings()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        case = case_of(state)
        subject = get_model()
        client = ModelClient(lambda role: subject if role == "subject" else role_model(role))
        run = CaseRun(case, client, chosen, instruction)
        raw, statement = await run.statement("subject", case.messages)
        state.output = ModelOutput.from_content(model=str(subject), content=raw)
        state.messages.append(ChatMessageAssistant(content=raw, model=str(subject)))
        ok = (
            None
            if statement is None
            else target_correct(statement, case.golden.role_to, case.characters, case.aliases)
        )
        result = CaseResult(parsed=statement, target_ok=ok)
        state.metadata_as(SampleMeta).solved(result, client.records).write(state.metadata)
        return state

    return solve


@solver
def long_run(
    epsilon: int = EPSILON, settings: RoleSettings | None = None, instruction: str | None = None
) -> Solver:
    """r4's conversation: ε turns with the target, then the reference's statement;
    ``instruction``: a prompt variant's wording of Testing Prompt-1 (the subject's only)."""
    chosen = settings or RoleSettings()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        result = result_of(state)
        if not result.target_ok or result.parsed is None:
            return state
        case = case_of(state)
        subject = get_model()
        client = ModelClient(lambda role: subject if role == "subject" else role_model(role))
        run = CaseRun(case, client, chosen, instruction)
        conversation = await run.long_run(result.parsed, epsilon)
        result.long_run = conversation
        state.metadata_as(SampleMeta).solved(result, client.records).write(state.metadata)
        # The viewer shows the long run as a chat: the target's replies, then the statements
        # (the first one is already the subject's reply above).
        for turn in conversation.turns[1:]:
            if turn.speaker == ASSISTANT:
                state.messages.append(ChatMessageAssistant(content=turn.content))
            else:
                state.messages.append(ChatMessageUser(content=f"{turn.speaker}: {turn.content}"))
        state.messages.append(ChatMessageAssistant(content=conversation.subject_raw))
        return state

    return solve
