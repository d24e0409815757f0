"""``normlab hsii build``: HSII's whole data pipeline (§4, Figure 2a), resumable stage by stage.

retrieve (``normlab.hsii.bank.news``) → dedupe → cluster → toxicity (``normlab.hsii.bank.newsprep``)
→ scenarios (k Prompt-1 scenes, screened, ``normlab.hsii.bank.topk``) → dialogues (Prompt-2,
lint, repair, aliases, provenance) → cases (cut). Curation by people is another module's.

The build folder ``DIR``:

- ``build.json``: the options; a rerun with other options is refused (a bank is one build);
- ``stages/STAGE.jsonl``: each stage's output, written at once
  (``replacing``), and ``stages/STAGE.done.json`` after it: a stage
  with its ``done`` file is skipped on a rerun;
- ``stages/STAGE.journal.jsonl`` for the stages that call models: one line per news item as it
  finishes (its rows, drops and call records). A killed run resumes from it: finished items are
  not asked again, and usage is summed from the journal, one entry per item, so nothing is
  counted twice (the calls of an item that was in flight when the run died are paid, not counted);
- ``drops.jsonl``: every item that left, the stage and the reason;
- ``bank/dialogues.jsonl``, ``bank/cases.jsonl``: the bank, which ``hsii validate`` reads;
- ``build_report.json``: per stage, items in and out, drops, and calls, tokens and cost by role
  (``normlab.models.usage.usage_by`` over [`CallRecord`][normlab.models.CallRecord]), what
  this run itself called, and calls per case.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from normlab.core.errors import InputError
from normlab.core.jsonio import append_jsonl, read_jsonl_rows, write_jsonl
from normlab.core.outputs import output_folder, replace_file
from normlab.hsii.bank.news import FieldMap, Filters, Hit, read_corpus, search
from normlab.hsii.bank.newsprep import (
    DUPLICATE_COSINE,
    Drop,
    cluster_labels,
    dedupe,
    screen_toxicity,
)
from normlab.hsii.bank.topk import DEFAULT_K, ScenarioSet, dialogue_for, top_k_scenarios
from normlab.hsii.dataset import cut_dialogues
from normlab.hsii.schemas import Dialogue, NewsParagraph, Provenance
from normlab.models.client import CallRecord, ModelClient
from normlab.models.usage import RoleUsage, usage_by

STAGES = ("retrieve", "dedupe", "cluster", "toxicity", "scenarios", "dialogues", "cases")
MODEL_STAGES = ("toxicity", "scenarios", "dialogues")

RowT = TypeVar("RowT", bound=BaseModel)
ItemT = TypeVar("ItemT")


class BuildOptions(BaseModel):
    """Everything a build depends on (``build.json``)."""

    keywords: list[str] = Field(min_length=1)
    corpus: str
    fields: FieldMap = Field(default_factory=FieldMap)
    filters: Filters = Field(default_factory=Filters)
    top: int = 20
    limit: int | None = None
    """News items taken on to scenarios (the best-ranked that passed the screens)."""
    k: int = DEFAULT_K
    keep: int = 1
    repairs: int = 1
    duplicate_cosine: float = DUPLICATE_COSINE
    encoder: str = "minilm"
    models: dict[str, str]
    """Role (generator, screener) → model."""


class NewsRow(BaseModel):
    """A retrieved item on its way through the news stages."""

    hit: Hit
    cluster: int | None = None


class JournalEntry(BaseModel):
    key: str
    rows: list[dict[str, Any]] = Field(default_factory=list)
    drops: list[Drop] = Field(default_factory=list)
    calls: list[CallRecord] = Field(default_factory=list)


class StageSummary(BaseModel):
    """One stage in ``build_report.json``."""

    stage: str
    items_in: int
    items_out: int
    drops: int = 0
    usage: dict[str, RoleUsage] = Field(default_factory=dict)
    """Calls, tokens and cost by role, over the whole build (every run that built it)."""
    calls_this_run: int = 0
    skipped: bool = False
    """Complete before this run: not run again."""


class BuildReport(BaseModel):
    options: BuildOptions
    stages: list[StageSummary]
    dialogues: int
    cases: int
    drops: int
    calls_this_run: int
    calls_per_case: dict[str, float | None]
    """Per stage (and ``total``): model calls over cases in the bank."""


@dataclass(eq=False)
class Build:
    """One build folder; ``run`` runs or skips each stage in turn."""

    folder: Path
    options: BuildOptions
    models: Callable[[str], Any] | None = None
    concurrency: int = 8
    summaries: dict[str, StageSummary] = field(default_factory=dict, init=False)
    drops: dict[str, list[Drop]] = field(default_factory=dict, init=False)

    # -- files ----------------------------------------------------------------------------

    def output(self, stage: str) -> Path:
        if stage in ("dialogues", "cases"):
            return self.folder / "bank" / f"{stage}.jsonl"
        return self.folder / "stages" / f"{stage}.jsonl"

    def done(self, stage: str) -> Path:
        return self.folder / "stages" / f"{stage}.done.json"

    def journal(self, stage: str) -> Path:
        return self.folder / "stages" / f"{stage}.journal.jsonl"

    def drops_file(self, stage: str) -> Path:
        return self.folder / "stages" / f"{stage}.drops.jsonl"

    def check_options(self) -> None:
        """Record the options, or refuse a folder that holds a build made with others."""
        output_folder(self.folder, "--out")
        path = self.folder / "build.json"
        current = self.options.model_dump(mode="json")
        if path.exists():
            previous = json.loads(path.read_text(encoding="utf-8"))
            changed = sorted(key for key in current if previous.get(key) != current[key])
            if changed:
                raise InputError(
                    path,
                    f"holds a build made with other options ({', '.join(changed)} differ): "
                    "rerun with the same options to resume, or choose another --out",
                    field=changed[0],
                )
            return
        replace_file(path, json.dumps(current, indent=1, ensure_ascii=False) + "\n")

    def _read(self, stage: str, model: type[RowT]) -> list[RowT]:
        path = self.output(stage)
        return (
            [model.model_validate(row) for _, row in read_jsonl_rows(path)] if path.exists() else []
        )

    def _finish(
        self, stage: str, rows: Sequence[BaseModel], drops: Sequence[Drop], summary: StageSummary
    ) -> None:
        """The stage's output, its drops, then its done file: once that exists, it is complete."""
        write_jsonl(self.output(stage), rows)
        write_jsonl(self.drops_file(stage), drops)
        replace_file(self.done(stage), summary.model_dump_json(indent=1) + "\n")

    # -- the model stages' journal ---------------------------------------------------------

    def _journal_entries(self, stage: str) -> dict[str, JournalEntry]:
        """Finished items; a line a killed writer left half-written is ignored (redone)."""
        path = self.journal(stage)
        entries: dict[str, JournalEntry] = {}
        if not path.exists():
            return entries
        for line in path.read_text(encoding="utf-8").split("\n"):
            try:
                entry = JournalEntry.model_validate_json(line)
            except ValueError:
                continue
            entries.setdefault(entry.key, entry)
        return entries

    def _run_items(
        self,
        stage: str,
        items: Sequence[tuple[str, ItemT]],
        work: Callable[[ModelClient, ItemT], Awaitable[tuple[list[BaseModel], list[Drop]]]],
    ) -> tuple[list[dict[str, Any]], list[Drop], StageSummary]:
        entries = self._journal_entries(stage)
        missing = [(key, item) for key, item in items if key not in entries]
        fresh: list[CallRecord] = []
        if missing:
            if self.models is None:
                raise InputError("--model", f"stage {stage} needs a model", field="model")
            resolve = self.models

            async def run_all() -> None:
                semaphore = asyncio.Semaphore(max(1, self.concurrency))

                async def one(key: str, item: ItemT) -> None:
                    async with semaphore:
                        client = ModelClient(resolve)
                        rows, drops = await work(client, item)
                    entry = JournalEntry(
                        key=key,
                        rows=[row.model_dump(mode="json") for row in rows],
                        drops=drops,
                        calls=client.records,
                    )
                    append_jsonl(self.journal(stage), entry)
                    entries[key] = entry
                    fresh.extend(client.records)

                await asyncio.gather(*(one(key, item) for key, item in missing))

            asyncio.run(run_all())
        ordered = [entries[key] for key, _ in items]
        calls = [call for entry in ordered for call in entry.calls]
        rows = [row for entry in ordered for row in entry.rows]
        drops = [drop for entry in ordered for drop in entry.drops]
        summary = StageSummary(
            stage=stage,
            items_in=len(items),
            items_out=len(rows),
            drops=len(drops),
            # A parse repair is a model call as a lint repair is (issue 31): count attempts.
            usage=usage_by(calls, lambda call: call.role, lambda call: call.attempts),
            calls_this_run=sum(call.attempts for call in fresh),
        )
        return rows, drops, summary

    # -- stages -------------------------------------------------------------------------------

    def _news_stage(self, stage: str, rows_in: list[NewsRow]) -> list[NewsRow]:
        options = self.options
        if stage == "retrieve":
            hits = search(
                read_corpus(options.corpus, options.fields),
                options.keywords,
                options.filters,
                options.top,
            )
            rows = [NewsRow(hit=hit) for hit in hits]
            drops: list[Drop] = []
        elif stage == "dedupe":
            kept, drops = dedupe([row.hit for row in rows_in], options.duplicate_cosine)
            rows = [NewsRow(hit=hit) for hit in kept]
        else:  # cluster
            labels = cluster_labels([row.hit for row in rows_in], options.encoder)
            rows = [
                row.model_copy(update={"cluster": label})
                for row, label in zip(rows_in, labels, strict=True)
            ]
            drops = []
        summary = StageSummary(
            stage=stage, items_in=len(rows_in), items_out=len(rows), drops=len(drops)
        )
        self._finish(stage, rows, drops, summary)
        return rows

    def _paragraph(self, row: NewsRow) -> NewsParagraph:
        return row.hit.item.paragraph(self.options.keywords)

    def _toxicity(self, rows_in: list[NewsRow]) -> None:
        async def work(client: ModelClient, row: NewsRow) -> tuple[list[BaseModel], list[Drop]]:
            drop = await screen_toxicity(client, row.hit)
            return ([], [drop]) if drop else ([row], [])

        rows, drops, summary = self._run_items(
            "toxicity", [(row.hit.item.id, row) for row in rows_in], work
        )
        self._finish("toxicity", [NewsRow.model_validate(r) for r in rows], drops, summary)

    def _scenarios(self, rows_in: list[NewsRow]) -> None:
        chosen = rows_in if self.options.limit is None else rows_in[: self.options.limit]
        options = self.options

        async def work(client: ModelClient, row: NewsRow) -> tuple[list[BaseModel], list[Drop]]:
            found = await top_k_scenarios(
                client, self._paragraph(row), options.k, options.keep, options.repairs
            )
            if found.kept:
                return [found], []
            problems = "; ".join(p for c in found.candidates for p in c.problems[:1])
            reason = f"none of {options.k} scenarios was valid and scored: {problems}"
            return [found], [Drop(news_id=row.hit.item.id, stage="scenarios", reason=reason)]

        rows, drops, summary = self._run_items(
            "scenarios", [(row.hit.item.id, row) for row in chosen], work
        )
        sets = [ScenarioSet.model_validate(row) for row in rows]
        self._finish("scenarios", sets, drops, summary)

    def _dialogues(self, news: list[NewsRow], sets: list[ScenarioSet]) -> None:
        by_id = {row.hit.item.id: row for row in news}
        options = self.options

        async def work(
            client: ModelClient, found: ScenarioSet
        ) -> tuple[list[BaseModel], list[Drop]]:
            row = by_id[found.news_id]
            dialogues: list[BaseModel] = []
            drops: list[Drop] = []
            for candidate in found.kept_candidates():
                provenance = Provenance(
                    source="news",
                    news_id=found.news_id,
                    keywords=list(options.keywords),
                    cluster=row.cluster,
                    k_rank=candidate.rank,
                    screener_scores=candidate.scores,
                )
                dialogue, problems = await dialogue_for(
                    client, self._paragraph(row), candidate, provenance, options.repairs
                )
                if dialogue is not None:
                    dialogues.append(dialogue)
                else:
                    reason = f"scenario {candidate.sample}: " + "; ".join(problems[:3])
                    drops.append(Drop(news_id=found.news_id, stage="dialogues", reason=reason))
            return dialogues, drops

        keyed = [(found.news_id, found) for found in sets if found.kept]
        rows, drops, summary = self._run_items("dialogues", keyed, work)
        self._finish("dialogues", [Dialogue.model_validate(r) for r in rows], drops, summary)

    def _cases(self, dialogues: list[Dialogue]) -> None:
        cases = cut_dialogues(dialogues)
        summary = StageSummary(stage="cases", items_in=len(dialogues), items_out=len(cases))
        self._finish("cases", cases, [], summary)

    def _run_stage(self, stage: str) -> None:
        if stage in ("retrieve", "dedupe", "cluster"):
            previous = {"retrieve": None, "dedupe": "retrieve", "cluster": "dedupe"}[stage]
            self._news_stage(stage, self._read(previous, NewsRow) if previous else [])
        elif stage == "toxicity":
            self._toxicity(self._read("cluster", NewsRow))
        elif stage == "scenarios":
            self._scenarios(self._read("toxicity", NewsRow))
        elif stage == "dialogues":
            self._dialogues(self._read("toxicity", NewsRow), self._read("scenarios", ScenarioSet))
        else:
            self._cases(self._read("dialogues", Dialogue))

    def run(self, on_stage: Callable[[StageSummary], None] | None = None) -> BuildReport:
        """Every stage not yet complete, in order; then ``drops.jsonl`` and the report."""
        self.check_options()
        for stage in STAGES:
            skipped = self.done(stage).exists()
            if not skipped:
                self._run_stage(stage)
            summary = StageSummary.model_validate_json(self.done(stage).read_text("utf-8"))
            if skipped:
                summary = summary.model_copy(update={"skipped": True, "calls_this_run": 0})
            self.summaries[stage] = summary
            self.drops[stage] = [
                Drop.model_validate(row) for _, row in read_jsonl_rows(self.drops_file(stage))
            ]
            if on_stage is not None:
                on_stage(summary)
        return self.report()

    def report(self) -> BuildReport:
        drops = [drop for stage in STAGES for drop in self.drops.get(stage, [])]
        write_jsonl(self.folder / "drops.jsonl", drops)
        cases = self.summaries["cases"].items_out
        per_case: dict[str, float | None] = {}
        total = 0
        for stage in MODEL_STAGES:
            calls = sum(usage.calls for usage in self.summaries[stage].usage.values())
            total += calls
            per_case[stage] = round(calls / cases, 3) if cases else None
        per_case["total"] = round(total / cases, 3) if cases else None
        report = BuildReport(
            options=self.options,
            stages=[self.summaries[stage] for stage in STAGES],
            dialogues=self.summaries["dialogues"].items_out,
            cases=cases,
            drops=len(drops),
            calls_this_run=sum(s.calls_this_run for s in self.summaries.values()),
            calls_per_case=per_case,
        )
        replace_file(self.folder / "build_report.json", report.model_dump_json(indent=1) + "\n")
        return report


def stage_rows(report: BuildReport) -> list[list[str]]:
    """The report as table rows: stage, in, out, dropped, calls (this run), tokens, cost."""
    rows = []
    for summary in report.stages:
        usage: RoleUsage = sum(summary.usage.values(), RoleUsage())
        cost = "—" if usage.cost is None else f"${usage.cost:.4f}"
        rows.append(
            [
                summary.stage + (" (done before)" if summary.skipped else ""),
                str(summary.items_in),
                str(summary.items_out),
                str(summary.drops),
                f"{usage.calls} ({summary.calls_this_run})",
                f"{usage.input_tokens}/{usage.output_tokens}",
                cost,
            ]
        )
    return rows


def model_resolver(models: Mapping[str, str]) -> Callable[[str], Any]:
    """Role → Inspect model, built when a stage first needs it."""

    def resolve(role: str) -> Any:
        from inspect_ai.model import get_model

        return get_model(models[role], role=role)

    return resolve
