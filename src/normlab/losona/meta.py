"""What a LoSoNA sample is told and what its solver adds: one typed record (``SampleMeta``).

The dataset writes it into each Inspect sample's metadata (``SampleMeta.dump``; the shared
part is ``normlab.core.metadata``); the solver, the scorer, the metric, the analysis, the
reader page and the report read it back through Inspect's ``metadata_as``
(``state.metadata_as(SampleMeta)``) or ``SampleMeta.of`` on a log's samples, never by string
keys. Fields a log of an older release lacks have defaults (a log of normlab 0.1 has no
truncation record); keys it does not know are ignored, so a log keeps loading when a field
is added.
"""

from __future__ import annotations

from normlab.agents import MemoryLog
from normlab.core.metadata import SampleMetadata
from normlab.core.variants import VariantRecord
from normlab.losona.schemas import Scenario

UNKNOWN = "unknown"


class SampleMeta(SampleMetadata):
    """One LoSoNA sample's metadata: the scenario and condition it shows (from the dataset),
    the prompt variant it ran, and the subject's reply record (from the solver)."""

    scenario_id: str
    event_id: str
    norm_id: str
    condition: str
    """The prompt condition (``naive``, ``norm_informed``, …)."""
    scenario: Scenario
    """The whole scenario, so the judge and any later analysis need nothing but the log."""
    variant: VariantRecord | None = None
    """The prompt variant's record; absent for the paper's prompt (its logs stay as they were)."""
    subject_truncated: bool = False
    """The subject's reply was cut off at its output cap even after the larger-cap retry."""
    subject_truncations: int = 0
    subject_temperature: str = UNKNOWN
    """The temperature the subject ran at (``provider default``: none sent)."""
    norm_memory: MemoryLog | None = None
    """The norm-learning subject's database, reply by reply (``normlab.agents.MEMORY_KEY``)."""

    def replied(self, truncated: bool, truncations: int, temperature: str) -> SampleMeta:
        """This record with the subject's reply record (the solver's)."""
        return self.model_copy(
            update={
                "subject_truncated": truncated,
                "subject_truncations": truncations,
                "subject_temperature": temperature,
            }
        )

    def remembered(self, log: MemoryLog) -> SampleMeta:
        """This record with the norm-learning subject's database."""
        return self.model_copy(update={"norm_memory": log})
