"""Applying curators' decisions to a bank (the rules are ``normlab.hsii.curation.decisions``'s
docstring): what they rejected leaves, what they amended is replaced and linted again,
and every kept case carries their decisions in its provenance."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from normlab.core.errors import InputError, quoted
from normlab.hsii.bank.files import Bank
from normlab.hsii.curation.decisions import AMENDED_COLUMN, GOLDEN_MARK, LINE, CuratorRow
from normlab.hsii.schemas import ASSISTANT, Case, CuratorDecision, Message, Provenance


def amended_turns(row: CuratorRow, text: str | None = None) -> list[Message]:
    """The turns of an amended text (``row.amended`` unless ``text``): each ``FROM -> TO:
    text`` line starts one, and a line that is not one continues the turn above it, so an
    utterance of several lines (a forum post's paragraphs) reads back as it was written."""
    turns: list[tuple[str, str, list[str]]] = []
    for number, line in enumerate((row.amended if text is None else text).splitlines(), 1):
        found = LINE.match(line)
        if found is not None:
            turns.append((found["from"].strip(), found["to"].strip(), [found["content"]]))
        elif turns:
            turns[-1][2].append(line)
        elif line.strip():
            raise InputError(
                row.file,
                f"amended line {number} is not 'SPEAKER -> ADDRESSEE: text'",
                line=row.line,
                field=AMENDED_COLUMN,
            )
    if not turns:
        raise InputError(
            row.file, "the amended text has no turns", line=row.line, field=AMENDED_COLUMN
        )
    return [
        Message(
            role_from=speaker,
            role_to=addressee,
            content="\n".join(lines).strip(),
            index=str(position),
        )
        for position, (speaker, addressee, lines) in enumerate(turns, start=1)
    ]


def _golden(row: CuratorRow) -> Message:
    """A case's amended golden: the one turn of the text, or the one after the golden line
    when the curator kept the history above it (as the text was shown to them)."""
    text = row.amended
    marked = text.split(f"\n{GOLDEN_MARK}\n", 1)
    if len(marked) == 2:
        text = marked[1]
    elif text.startswith(f"{GOLDEN_MARK}\n"):
        text = text.removeprefix(f"{GOLDEN_MARK}\n")
    turns = amended_turns(row, text)
    if len(turns) != 1:
        raise InputError(
            row.file,
            f"a case's amendment is its golden, one turn ('{ASSISTANT} -> NAME: text'), "
            f"not {len(turns)}",
            line=row.line,
            field=AMENDED_COLUMN,
        )
    return turns[0]


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
    not_in_bank: list[str] = []
    """Decided items the bank does not hold (``case 'x' (FILE:LINE)``), left aside."""


def _not_in_bank(bank: Bank, rows: Sequence[CuratorRow]) -> list[CuratorRow]:
    """The decided rows about items the bank does not hold; an
    [`InputError`][normlab.core.InputError] when that is every one of them (a CSV exported from
    another bank made an empty bank, exit 0)."""
    held: dict[str, set[str]] = {
        "scenario": {d.dialogue_id for d in bank.dialogues} | {c.cluster for c in bank.cases},
        "dialogue": {d.dialogue_id for d in bank.dialogues},
        "case": {c.case_id for c in bank.cases},
    }
    unknown = [row for row in rows if row.item not in held[row.level]]
    if rows and len(unknown) == len(rows):
        first = unknown[0]
        raise InputError(
            first.file,
            f"none of the {len(rows)} decided items is in the bank (this row's {first.level} "
            f"{quoted(first.item)} is not): a CSV exported from another bank?",
            line=first.line,
            field="item",
        )
    return unknown


def apply_curation(
    bank: Bank, rows: Sequence[CuratorRow], keep_unreviewed: bool = False
) -> tuple[Bank, CurationSummary]:
    """The bank as the curators left it (the rules are in the module docstring)."""
    from normlab.hsii.dataset import cut_dialogue
    from normlab.hsii.lint import check_case, check_dialogue

    unknown = _not_in_bank(bank, rows)
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
                messages = amended_turns(row)
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
                golden = _golden(row)
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
        not_in_bank=[f"{row.level} {quoted(row.item)} ({row.file}:{row.line})" for row in unknown],
    )
    return out, summary
