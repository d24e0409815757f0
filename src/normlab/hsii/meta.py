"""What an HSII sample is told and what its solvers add: one typed record (``SampleMeta``).

The dataset (and the COT task's samples) write the case, its prompt variant's record and, for
Table 2, the COT into each Inspect sample's metadata; the solvers add what they recorded (the
statement, r4's conversation, every call, the COT rounds). The scorers read it back with
Inspect's ``metadata_as`` (``state.metadata_as(SampleMeta)``), the analysis, audit, reader page,
report and the study's units with ``SampleMeta.of`` (``normlab.core.metadata``), never by
string keys. Keys it does not know are ignored and fields older logs lack have defaults, so
every old log keeps loading.
"""

from __future__ import annotations

from pydantic import Field

from normlab.core.metadata import SampleMetadata
from normlab.core.variants import VariantRecord
from normlab.hsii.prompts import Cot
from normlab.hsii.schemas import Case, CaseResult, CotTrace
from normlab.models import CallRecord


class SampleMeta(SampleMetadata):
    """One HSII sample's metadata: its case (from the dataset), the prompt variant it ran, and
    what the solvers recorded (absent before they ran)."""

    case_id: str
    case: Case
    """The whole case: the judge and any later analysis need nothing but the log."""
    domain: str = ""
    characters: int | None = None
    """How many characters the case has (Table 1's breakdown; not on COT samples)."""
    variant: VariantRecord | None = None
    """The prompt variant's record; absent for the paper's prompt (its logs stay as they were)."""
    cot_id: str | None = None
    cot: Cot | None = None
    """The COT a Table 2 sample walks the subject through."""
    hsii: CaseResult | None = None
    """What the statement and long-run solvers recorded (r1, r2, r4's conversation)."""
    hsii_calls: list[CallRecord] = Field(default_factory=list)
    """Every model call the solvers made, in order."""
    cot_trace: CotTrace | None = None
    """The COT solver's rounds."""

    def recorded(self) -> CaseResult:
        """What the statement solver recorded: the long run and the scorer come after it, so
        a sample without it is an error."""
        if self.hsii is None:
            raise ValueError(f"case {self.case_id} has no statement record: its solver did not run")
        return self.hsii

    def solved(self, result: CaseResult, calls: list[CallRecord]) -> SampleMeta:
        """This record with a solver's result and its calls after those before it."""
        return self.model_copy(update={"hsii": result, "hsii_calls": [*self.hsii_calls, *calls]})

    def traced(self, trace: CotTrace) -> SampleMeta:
        """This record with the COT solver's rounds."""
        return self.model_copy(update={"cot_trace": trace})
