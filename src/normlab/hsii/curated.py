"""Applying curators' decisions to a bank (the rules are :mod:`normlab.hsii.curation`'s
docstring): what they rejected leaves, what they amended is replaced and linted again,
and every kept case carries their decisions in its provenance."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from normlab.core.errors import InputError
from normlab.hsii.bank import Bank
from normlab.hsii.curation import AMENDED_COLUMN, LINE, CuratorRow
from normlab.hsii.schemas import Case, CuratorDecision, Message, Provenance


def _messages(row: CuratorRow) -> list[Message]:
    messages: list[Message] = []
    for number, text in enumerate(row.amended.splitlines(), start=1):
        if not text.strip():
            continue
        found = LINE.match(text)
        if found is None:
            raise InputError(
                row.file,
                f"amended line {number} is not 'SPEAKER -> ADDRESSEE: text'",
                line=row.line,
                field=AMENDED_COLUMN,
            )
        messages.append(
            Message(
                role_from=found["from"].strip(),
                role_to=found["to"].strip(),
                content=found["content"].strip(),
                index=str(len(messages) + 1),
            )
        )
    if not messages:
        raise InputError(
            row.file, "the amended text has no turns", line=row.line, field=AMENDED_COLUMN
        )
    return messages


def _scenario(row: CuratorRow, scene: str, relationships: str) -> tuple[str, str]:
    text = row.amended
    labelled = re.findall(r"^(scene|relationships):\s*(.*)$", text, flags=re.MULTILINE)
    if not labelled:
        return text.strip(), relationships
    values = dict(labelled)
    return values.get("scene", scene).strip(), values.get("relationships", relationships).strip()


def _check(problems: Iterable[tuple[str, str]], row: CuratorRow) -> None:
    for where, problem in problems:
        raise InputError(
            row.file, f"the amendment breaks the item: {where}: {problem}", line=row.line,
            field=AMENDED_COLUMN,
        )  # fmt: skip


def _provenance(current: Provenance | None, source_id: str) -> Provenance:
    if current is not None:
        return current.model_copy(deep=True)
    return Provenance(source="news" if source_id else "native", news_id=source_id or None)


def _decisions(rows: Sequence[CuratorRow]) -> list[CuratorDecision]:
    return [
        CuratorDecision(
            curator=row.curator,
            decision=row.decision,
            criteria=row.criteria,
            note=f"{row.level}: {row.notes}" if row.notes else row.level,
        )
        for row in rows
    ]


class CurationSummary(BaseModel):
    dialogues_kept: int
    dialogues_dropped: int
    cases_kept: int
    cases_rejected: int
    cases_unreviewed: int
    amendments: int


def apply_curation(
    bank: Bank, rows: Sequence[CuratorRow], keep_unreviewed: bool = False
) -> tuple[Bank, CurationSummary]:
    """The bank as the curators left it (the rules are in the module docstring)."""
    from normlab.hsii.dataset import cut_dialogue
    from normlab.hsii.lint import check_case, check_dialogue

    decided: dict[tuple[str, str], list[CuratorRow]] = {}
    for row in rows:
        decided.setdefault((row.level, row.item), []).append(row)

    def about(cluster: str) -> list[CuratorRow]:
        return decided.get(("scenario", cluster), []) + decided.get(("dialogue", cluster), [])

    def rejected(found: list[CuratorRow]) -> bool:
        return any(row.decision == "reject" for row in found)

    out = Bank()
    recut: dict[str, list[Case]] = {}
    applied: set[tuple[str, int]] = set()
    for dialogue in bank.dialogues:
        found = about(dialogue.dialogue_id)
        if rejected(found):
            continue
        background = dialogue.background
        messages = dialogue.messages
        for row in found:
            if row.decision != "amend":
                continue
            applied.add((row.file, row.line))
            if row.level == "scenario":
                scene, relationships = _scenario(row, background.scene, background.relationships)
                background = background.model_copy(
                    update={"scene": scene, "relationships": relationships}
                )
            else:
                messages = _messages(row)
            candidate = dialogue.model_copy(update={"background": background, "messages": messages})
            _check(check_dialogue(candidate, None), row)
        provenance = _provenance(dialogue.provenance, dialogue.source_id)
        provenance.curator_decisions += _decisions(found)
        kept = dialogue.model_copy(
            update={"background": background, "messages": messages, "provenance": provenance}
        )
        if messages is not dialogue.messages:
            recut[dialogue.dialogue_id] = cut_dialogue(kept)
        out.dialogues.append(kept)
    dialogues = {d.dialogue_id: d for d in out.dialogues}
    gone = {d.dialogue_id for d in bank.dialogues} - set(dialogues)

    cases: list[Case] = []
    done: set[str] = set()
    for case in bank.cases:
        if case.cluster in recut:
            if case.cluster not in done:
                done.add(case.cluster)
                cases += recut[case.cluster]
            continue
        cases.append(case)
    for cluster, cut in recut.items():
        if cluster not in done:
            cases += cut

    rejections = unreviewed = 0
    for case in cases:
        if case.cluster in gone:
            rejections += 1
            continue
        found = about(case.cluster) + decided.get(("case", case.case_id), [])
        if rejected(found):
            rejections += 1
            continue
        if not found and not keep_unreviewed:
            unreviewed += 1
            continue
        update: dict[str, object] = {}
        parent = dialogues.get(case.cluster)
        if parent is not None:
            update["background"] = parent.background
        else:
            background = case.background
            for row in found:
                if row.decision == "amend" and row.level == "scenario":
                    applied.add((row.file, row.line))
                    scene, rel = _scenario(row, background.scene, background.relationships)
                    background = background.model_copy(
                        update={"scene": scene, "relationships": rel}
                    )
            update["background"] = background
        for row in decided.get(("case", case.case_id), []):
            if row.decision == "amend":
                applied.add((row.file, row.line))
                golden = _messages(row)[0]
                golden = golden.model_copy(update={"index": case.golden.index})
                amended_case = case.model_copy(update={**update, "golden": golden})
                _check(check_case(amended_case, None), row)
                update["golden"] = golden
        provenance = _provenance(case.provenance, case.source_id)
        # A case cut again from an amended dialogue already carries that dialogue's decisions.
        provenance.curator_decisions += [
            decision
            for decision in _decisions(found)
            if decision not in provenance.curator_decisions
        ]
        update["provenance"] = provenance
        out.cases.append(case.model_copy(update=update))
    if not keep_unreviewed:
        # A dialogue nobody reviewed, whose cases nobody kept, stays out as well.
        kept_clusters = {case.cluster for case in out.cases}
        out.dialogues = [
            d for d in out.dialogues if about(d.dialogue_id) or d.dialogue_id in kept_clusters
        ]
    summary = CurationSummary(
        dialogues_kept=len(out.dialogues),
        dialogues_dropped=len(bank.dialogues) - len(out.dialogues),
        cases_kept=len(out.cases),
        cases_rejected=rejections,
        cases_unreviewed=unreviewed,
        amendments=len(applied),
    )
    return out, summary
