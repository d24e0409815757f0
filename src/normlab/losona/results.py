"""LoSoNA's analysis, as its numbers are kept (what ``losona analyze --json`` prints): per
scenario, per condition, paired against ``naive``, per subject and judge, and each agent against
its base model. ``normlab.losona.analysis`` computes them."""

from __future__ import annotations

from pydantic import BaseModel, Field

from normlab.agents import InferenceSummary
from normlab.models import AnalysisBase
from normlab.stats import Estimate, Rate


class ScenarioOutcome(BaseModel):
    """K trials of one (model, condition, scenario) reduced to the three per-unit numbers."""

    scenario_id: str
    event_type: str
    norm_id: str
    labels: list[bool | None]
    """The K labels, in trial order: the trials read, then None for each absent one."""
    majority: bool | None
    compliance: float | None
    consistency: bool | None
    judge_truncations: int = 0
    subject_truncations: int = 0
    absent_trials: int = 0
    """Planned trials with no record (a run killed before them, a partial log, a lost row)."""

    @property
    def absent(self) -> bool:
        """Planned, and not one trial read: every label is an absent trial's."""
        return self.absent_trials == len(self.labels) > 0


class ConditionResult(BaseModel):
    accuracy: Estimate
    compliance: Estimate
    consistency: Estimate
    n_scenarios: int
    n_trials: int
    """Trials read (judged or not); with the absent ones they make n scenarios × K."""
    parse_failures: int
    """Trials whose judge reply could not be parsed, even re-judged (counted as not a pass)."""
    judge_truncations: int = 0
    """Trials whose judge reply was cut off at its cap (also a missing label, counted apart)."""
    subject_truncations: int = 0
    """Trials whose subject reply was still cut off after the larger-cap retry."""
    scenarios_with_missing_label: int = 0
    """Scenarios where some of the K trials has no label: parse failure, truncation or absent."""
    k: int = 0
    """K, the trials each scenario counts: the run's epochs (a log's), or for imported records
    without them the largest trial count of the condition."""
    absent_trials: int = 0
    """Planned trials with no record, each a missing label (not a pass), counted apart."""
    absent_scenarios: list[str] = Field(default_factory=list, exclude_if=lambda ids: not ids)
    """Scenarios a log's header planned in this condition with not one trial read (their K
    trials are among ``absent_trials``). Left out of ``--json`` when there are none, so a
    complete run's analysis reads as it always did."""


class PairedResult(BaseModel):
    delta: Estimate
    recovered: tuple[int, int]
    regressed: tuple[int, int]
    n_scenarios: int


class ModelResult(BaseModel):
    """One subject as one judge labelled it (a second judge's labels are a second result)."""

    subject: str
    """The model, or ``MODEL + AGENT`` for an agent run."""
    judge: str
    """The judge model."""
    judge_addenda: str
    """The judge prompt: ``default`` (Appendix C with our addenda), ``none``, or ``unknown``."""
    conditions: dict[str, ConditionResult]
    paired: dict[str, PairedResult]
    temperatures: dict[str, list[str]] = Field(default_factory=dict)
    """The temperatures each model ran at: ``{"subject": [...], "judge": [...]}``."""
    by_norm: dict[str, dict[str, Rate]] = Field(default_factory=dict)
    by_event: dict[str, dict[str, Rate]] = Field(default_factory=dict)


class AgentComparison(BaseModel):
    """The norm-learning subject against its own model alone (the base run), per condition."""

    model: str
    """The base subject's key in ``models``: the same model with no agent, the same judge."""
    agent: str
    paired: dict[str, PairedResult] = Field(default_factory=dict)
    """Accuracy-at-K, agent − base, over the scenarios both ran (empty without a base run)."""
    inference: dict[str, InferenceSummary] = Field(default_factory=dict)
    """Whether the agent's kept norms expressed the hidden norm (per trial)."""


class LosonaAnalysis(AnalysisBase):
    """Every LoSoNA number per subject × judge × condition (accuracy-at-K, compliance,
    consistency, with intervals and counts), and each agent's comparison with its base model;
    what ``losona analyze --json`` prints."""

    models: dict[str, ModelResult]
    """Per subject and judge (``result_keys``): the subject (the model, or ``MODEL +
    AGENT`` for an agent run) when one judge labelled it, else ``SUBJECT (judge JUDGE)``."""
    development_conditions: list[str] = Field(default_factory=list)
    agents: dict[str, AgentComparison] = Field(default_factory=dict)
    """Per agent subject (its key in ``models``): its comparison with the base model."""
