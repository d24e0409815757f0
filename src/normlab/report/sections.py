"""Report sections every system shares: the weak-model banner, sources and the data's hash,
usage and cost.

Each is a function of plain data, returning a [`Table`][normlab.report.Table]
or a sentence, so the terminal (rich) and the HTML report print the same thing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from normlab.core.sources import DataSource, data_note
from normlab.core.variants import VariantRecord
from normlab.models import RunUsage, is_embedded
from normlab.report.html import HtmlReport, Table


def embedded_banner(role_models: Mapping[str, Iterable[str]]) -> str | None:
    """A warning naming the roles played by the embedded 0.5B model, or None if none were."""
    weak = sorted(role for role, models in role_models.items() if any(map(is_embedded, models)))
    if not weak:
        return None
    return (
        f"The embedded Qwen2.5-Coder-0.5B model played: {', '.join(weak)}. It is a plumbing "
        "check, not a measurement: its judgements, personas and replies are not evidence about "
        "any model. Rerun those roles with a strong model (--judge, --role NAME=MODEL) before "
        "reading anything into the numbers."
    )


def sources_note(paths: Iterable[Path | str], skipped: Iterable[str] = ()) -> str:
    """Where the numbers came from, and what was left out as already counted."""
    text = f"Sources: {', '.join(str(path) for path in paths)}."
    notes = list(skipped)
    if notes:
        text += " Counted once: " + "; ".join(notes) + "."
    return text


def variant_note(variants: Mapping[str, VariantRecord]) -> str:
    """The report's line on the prompt each subject was given, read back from its logs
    (``normlab.core.logs.log_variant``): a variant's numbers are never read as the paper's."""
    described = {subject: f"{v.label}, {v.description}" for subject, v in variants.items()}
    if not described:
        return "Prompt variant: not recorded (records read from files, not logs)."
    if len(set(described.values())) == 1:
        return f"Prompt variant: {next(iter(described.values()))}."
    return "Prompt variant: " + "; ".join(f"{s}: {d}" for s, d in described.items()) + "."


def _cost(value: float | None) -> str:
    return "cost unknown" if value is None else f"${value:.4f}"


def usage_table(usage: Mapping[str, RunUsage], unit: str) -> Table:
    """Calls, tokens and cost per role, in total and per ``unit`` (episode, sample, case…)."""
    rows = []
    for model, run in usage.items():
        count = max(1, run.units)
        for role, item in run.roles.items():
            cached = item.cached_share
            rows.append(
                [
                    model,
                    role,
                    str(item.calls),
                    f"{item.calls / count:.1f}",
                    str(item.retries),
                    str(item.input_tokens),
                    f"{item.input_tokens / count:.0f}",
                    "–" if cached is None else f"{cached:.0%}",
                    str(item.output_tokens),
                    f"{item.output_tokens / count:.0f}",
                    _cost(item.cost),
                    str(item.cache_hits),
                    f"{item.cache_hit_input_tokens}/{item.cache_hit_output_tokens}",
                ]
            )
    return Table(
        caption=f"Model calls, tokens and cost by role, in total and per {unit} "
        "(retries: attempts made again after a rate limit, server error, timeout, dropped "
        "connection or a response that was no reply; cached: share of input tokens served "
        "from the provider's prompt cache; cost where Inspect knows the model's price; cache "
        "hits: calls answered from Inspect's local cache, not counted in calls, tokens or cost, "
        "with the input/output tokens their answers cost when first made, which a run without "
        "the cache pays again)",
        header=[
            "run",
            "role",
            "calls",
            f"calls/{unit}",
            "retries",
            "input tokens",
            f"input/{unit}",
            "cached",
            "output tokens",
            f"output/{unit}",
            "cost",
            "cache hits",
            "cache-hit tokens in/out",
        ],
        rows=rows,
    )


def add_common_sections(
    report: HtmlReport,
    role_models: Mapping[str, Iterable[str]],
    sources: Iterable[Path | str],
    skipped: Iterable[str] = (),
    data: Mapping[str, Iterable[DataSource]] | None = None,
    variants: Mapping[str, VariantRecord] | None = None,
) -> None:
    """The banner (when the embedded model played a role), the sources line, the data the
    runs measured with its SHA-256 (``data``: the analysis's, per run), so a report read a
    year later says which scenarios its numbers are about, and the prompt variant each
    subject ran (``variants``: ``normlab.core.logs.variants_by_run``)."""
    banner = embedded_banner(role_models)
    if banner:
        report.banner(banner)
    report.paragraph(sources_note(sources, skipped), "note")
    if data is not None:
        report.paragraph(data_note(data), "note")
    if variants is not None:
        report.paragraph(variant_note(variants), "note")


def add_usage_section(report: HtmlReport, usage: Mapping[str, RunUsage], unit: str) -> None:
    """The "Usage and cost" section: calls, tokens and cost per subject and role, per
    ``unit`` (trial, episode, case); nothing when the logs recorded no usage."""
    if usage:
        report.heading("Usage and cost")
        report.table(usage_table(usage, unit))
