"""``study report``'s prompt sensitivity: for each system a study runs under prompt variants
(``variants:``), each subject's headline under each variant, how far it moves across them, and
whether the subjects' ranking holds.

Every variant runs on the same units (LoSoNA's scenarios, SCENE's scenarios, HSII's cases in
dialogues; a rename or reorder keeps each unit's id), so the units are paired across variants
and subjects: one bootstrap resample draws units (HSII: whole dialogues) once and recomputes
every subject's headline under every variant on them, with the system's own statistic
(``normlab.stats.sensitivity``). On those resamples:

- **spread**: per subject, the range max − min of its headlines across the variants, with the
  percentile interval of the range over the paired resamples (the range, not the SD: it is in
  the headline's own units, "the wording moves accuracy by 0.12");
- **difference from the paper's prompt**: per subject and variant, θ_variant − θ_paper with
  its paired interval: what the range is read beside, since a range of noisy estimates is
  above 0 even where no wording matters;
- **ranking stability**: per variant, Kendall's τ-b between the subjects' headlines under the
  paper's prompt and under the variant, with its percentile interval over the same resamples.

Each variant's own headline (value, interval, n) is the system's analysis of its cell, as the
ranking's; the spread, differences and τ are computed on the units every cell shares.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from normlab.core.fields import taken_from
from normlab.core.variants import PAPER
from normlab.report import Table
from normlab.runs.headline import Headline, UnitRows, UnitValues
from normlab.stats import (
    DEFAULT_RESAMPLES,
    POOLED_RATE,
    UNIT_MEAN,
    Estimate,
    Interval,
    Statistic,
    finite_or_none,
    headline_range,
    json_interval,
    paper_differences,
    ranking_taus,
    variant_headlines,
)
from normlab.study.compare import units_of
from normlab.study.schema import Study, variant_list
from normlab.study.systems import SYSTEMS, read_cells, variant_cells
from normlab.study.variant_logs import logged_variant

Measured = tuple[Headline | None, UnitValues | None]
"""One cell as the report read it: its headline and its headline per unit."""


class VariantHeadline(BaseModel):
    """A subject's headline under one variant: the system's own analysis of that cell."""

    variant: str
    value: float | None
    ci: Interval
    n: int
    unit: str
    clusters: int | None = None
    cluster_unit: str | None = None
    difference: Estimate | None = None
    """θ_variant − θ_paper on the shared units, paired interval; None for the paper's."""


class SubjectSpread(BaseModel):
    """One subject across the variants."""

    subject: str
    headlines: list[VariantHeadline]
    spread: Estimate | None = None
    """max − min of the headlines on the shared units, with its paired bootstrap interval;
    ``n`` the shared units. None when a variant's cell has not run or measured nothing."""


class RankingStability(BaseModel):
    """The subjects' ranking under one variant against the paper's prompt."""

    variant: str
    tau: Estimate
    """Kendall's τ-b between the subjects' headlines under the paper's prompt and under this
    variant, with its percentile interval over the paired resamples; ``n`` the shared units."""
    subjects: int


class Sensitivity(BaseModel):
    """A system's prompt sensitivity (``normlab.study.variants``)."""

    variants: list[str]
    """The variants, the paper's prompt (``paper``) first."""
    unit: str
    """What the spread's n counts: the units paired across variants."""
    clusters: int | None = None
    """The clusters the bootstrap resamples, where the units are not independent (HSII)."""
    cluster_unit: str | None = None
    resampled: str
    resamples: int = DEFAULT_RESAMPLES
    subjects: list[SubjectSpread]
    ranking: list[RankingStability]
    """One per variant after the paper's; empty with fewer than two subjects measured."""
    note: str
    labels: dict[str, str] = Field(default_factory=dict)
    """Per variant whose cells have logs, how the logs name it (``log_variant``: the spec, an
    instruction file by its name and its text's hash); the tables name a variant by it."""


def _array(values: UnitValues | None, shared: list[str]) -> list[object]:
    """The shared units' values of one cell, in ``shared``'s order."""
    if values is None:
        return []
    if isinstance(values, UnitRows):
        return [values.rows[unit] for unit in shared]
    return [values[unit] for unit in shared]


def _statistic(values: UnitValues) -> Statistic:
    """The headline's statistic over the units' values: a mean of values, a pooled (k, n)
    rate, or the system's own (HSII's score over four stage values)."""
    if isinstance(values, UnitRows):
        return values.statistic
    first = next(iter(values.values()), 0.0)
    return POOLED_RATE if isinstance(first, tuple) else UNIT_MEAN


def _own(variant: str, headline: Headline | None, unit: str) -> VariantHeadline:
    if headline is None:
        return VariantHeadline(variant=variant, value=None, ci=(None, None), n=0, unit=unit)
    # n, its unit and its clusters are the headline's own, copied as they stand.
    return taken_from(
        VariantHeadline,
        headline,
        variant=variant,
        value=headline.estimate.value,
        ci=headline.estimate.ci,
        difference=None,
    )


def sensitivity(
    system: str,
    variants: Sequence[str],
    subjects: Sequence[str],
    measured: Mapping[tuple[str, str], Measured],
) -> Sensitivity:
    """One system's sensitivity from its cells (``measured``: by subject and variant, the
    paper's prompt as ``paper``): see the module docstring. A subject some variant's cell has
    not measured keeps its headlines but no spread; τ ranks the subjects measured under every
    variant."""
    parts = SYSTEMS[system].parts
    unit = parts.paired_unit or parts.unit
    drawn = parts.paired_resampled or f"{unit}s"
    rows = {
        subject: [measured.get((subject, variant), (None, None)) for variant in variants]
        for subject in subjects
    }
    complete = [s for s in subjects if all(found[1] for found in rows[s])]
    shared: list[str] = []
    if complete:
        keys = [set(_keys(found[1])) for s in complete for found in rows[s]]
        shared = sorted(set.intersection(*keys))
    spreads: dict[str, Estimate] = {}
    differences: dict[tuple[str, int], Estimate] = {}
    ranking: list[RankingStability] = []
    clusters: list[str] | None = None
    cluster_unit: str | None = None
    if shared:
        first_headline, first = rows[complete[0]][0]
        assert first is not None  # complete: every cell measured units
        if isinstance(first, UnitRows):
            clusters = [first.clusters[u] for u in shared]
            cluster_unit = first_headline.cluster_unit if first_headline else None
        data = np.array(
            [[_array(found[1], shared) for found in rows[s]] for s in complete],
            dtype=np.float64,
        )  # subjects × variants × units (× width)
        headlines, resampled = variant_headlines(
            np.moveaxis(data, 2, 0), _statistic(first), clusters=clusters
        )
        n = len(shared)
        for index, (value, interval) in enumerate(headline_range(headlines, resampled)):
            spreads[complete[index]] = _estimate(value, interval, n)
        for index, found in enumerate(paper_differences(headlines, resampled)):
            for v, (value, interval) in enumerate(found, start=1):
                differences[complete[index], v] = _estimate(value, interval, n)
        if len(complete) >= 2:
            ranking = [
                RankingStability(
                    variant=variants[v], tau=_estimate(tau, interval, n), subjects=len(complete)
                )
                for v, (tau, interval) in enumerate(ranking_taus(headlines, resampled), start=1)
            ]
    return Sensitivity(
        variants=list(variants),
        unit=unit,
        clusters=len(set(clusters)) if clusters else None,
        cluster_unit=cluster_unit,
        resampled=drawn,
        subjects=[
            SubjectSpread(
                subject=subject,
                headlines=[
                    _own(variant, found[0], parts.unit).model_copy(
                        update={"difference": differences.get((subject, v))}
                    )
                    for v, (variant, found) in enumerate(zip(variants, rows[subject], strict=True))
                ],
                spread=spreads.get(subject),
            )
            for subject in subjects
        ],
        ranking=ranking,
        note=_note(system, len(variants), len(complete), shared, unit, drawn),
    )


def _keys(values: UnitValues | None) -> list[str]:
    if values is None:
        return []
    return list(values.rows) if isinstance(values, UnitRows) else list(values)


def _estimate(value: float, interval: tuple[float, float], n: int) -> Estimate:
    return Estimate(value=finite_or_none(value), ci=json_interval(interval), n=n)


def _note(
    system: str, variants: int, subjects: int, shared: list[str], unit: str, resampled: str
) -> str:
    """How to read the section, in words, with what it was computed on."""
    if not shared:
        return (
            f"{system}: no spread or τ yet: every variant's cell of a subject must have run "
            f"on shared {unit}s."
        )
    tau = (
        " With two subjects τ is +1 or −1 (undefined at a tie): its interval says whether the "
        "order flips on resampled units."
        if subjects == 2
        else ""
    )
    return (
        f"Spread: max − min of a subject's headlines across the {variants} prompt variants "
        f"(the paper's first), on the {len(shared)} {unit}s every cell shares; its 95% "
        f"interval is the percentile bootstrap of the range over {resampled}, resampled "
        f"once for every subject and variant (paired, {DEFAULT_RESAMPLES:,} resamples). A "
        "range of noisy estimates is above 0 even where the wording changes nothing (more so "
        "with more variants), and so is its interval: read it beside each variant's "
        "difference from the paper's prompt, whose interval may hold 0. Ranking: Kendall's "
        "τ-b between the subjects' headlines under the paper's prompt and under each variant "
        f"(1: the same order, −1: reversed), with its percentile interval over the same "
        f"resamples.{tau}"
    )


def sensitivities(
    study: Study, paper: Mapping[tuple[str, str], Measured]
) -> tuple[dict[str, Sensitivity], list[str]]:
    """Per system with ``variants:``, its sensitivity; and the variant cells not run yet.
    ``paper``: the paper's cells as the report read them, by system and subject."""
    measured: dict[tuple[str, str, str], Measured] = {}
    missing: list[str] = []
    labels: dict[tuple[str, str], str] = {}
    for cell, system, run, analysis in read_cells(variant_cells(study), missing):
        logged = logged_variant(cell)  # refuses logs of another variant or text
        if logged is not None:
            labels.setdefault((cell.system, str(cell.variant)), logged.label)
        found = (system.headline(run, analysis), units_of(cell.system, run, analysis))
        measured[cell.system, cell.subject.name, str(cell.variant)] = found
    subjects = [subject.name for subject in study.subjects]
    found_systems: dict[str, Sensitivity] = {}
    for name, spec in study.systems.items():
        variants = variant_list(spec)
        if not variants:
            continue
        cells = {
            (subject, variant): (
                paper.get((name, subject), (None, None))
                if variant == PAPER
                else measured.get((name, subject, variant), (None, None))
            )
            for subject in subjects
            for variant in variants
        }
        read = sensitivity(name, variants, subjects, cells)
        shown = {v: labels[name, v] for v in variants if (name, v) in labels}
        found_systems[name] = read.model_copy(update={"labels": shown})
    return found_systems, missing


def _value(estimate: Estimate | None, digits: int = 3) -> str:
    if estimate is None or estimate.value is None:
        return "—"
    low, high = (("—" if b is None else f"{b:.{digits}f}") for b in estimate.ci)
    return f"{estimate.value:.{digits}f} [{low}, {high}]"


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}{'' if n == 1 else 's'}"


def _headline(found: VariantHeadline) -> str:
    shown = _value(Estimate(value=found.value, ci=found.ci, n=found.n))
    return f"{shown} ({_count(found.n, found.unit)})"


def study_label(variant: str) -> str:
    """A variant as the tables name it before its logs do: the paper's prompt said to be the
    paper's, an instruction file by its name (no two of a study's share one:
    ``check_variants``)."""
    if variant == PAPER:
        return "paper (the paper's prompt)"
    kind, _, argument = variant.partition(":")
    return f"file:{Path(argument).name}" if kind == "file" else variant


def variant_blocks(system: str, found: Sensitivity) -> list[Table | str]:
    """The tables and notes of a system's prompt sensitivity, in order: each subject's
    headline under each variant with its spread, the differences from the paper's prompt,
    and the ranking's stability (the terminal, the HTML report and the Compare page). A
    variant is named as its logs name it, where its cells have run."""

    def variant_label(variant: str) -> str:
        return found.labels.get(variant) or study_label(variant)

    shared = f"shared {found.unit}s"
    if found.cluster_unit and found.clusters:
        shared += f" in {_count(found.clusters, found.cluster_unit)}"
    header = [
        "subject",
        *(f"{variant_label(v)} [95% CI] (n)" for v in found.variants),
        f"spread max − min [95% CI] (n {shared})",
    ]
    rows = [
        [
            row.subject,
            *(_headline(h) for h in row.headlines),
            "—" if row.spread is None else f"{_value(row.spread)} ({row.spread.n:,})",
        ]
        for row in found.subjects
    ]
    blocks: list[Table | str] = [Table(f"{system}: headline per prompt variant", header, rows)]
    differences = [
        [row.subject, variant_label(h.variant), _value(h.difference), f"{h.difference.n:,}"]
        for row in found.subjects
        for h in row.headlines
        if h.difference is not None
    ]
    if differences:
        header = ["subject", "variant", "variant − paper [95% CI, paired]", f"n ({shared})"]
        blocks.append(Table(f"{system}: difference from the paper's prompt", header, differences))
    if found.ranking:
        header = ["variant", "Kendall's τ-b vs the paper's ranking [95% CI]", "subjects", "n"]
        taus = [
            [variant_label(r.variant), _value(r.tau), str(r.subjects), _count(r.tau.n, found.unit)]
            for r in found.ranking
        ]
        blocks.append(Table(f"{system}: ranking stability across prompt variants", header, taus))
    blocks.append(found.note)
    return blocks
