"""What a SCENE sample is told and what its solver adds: one typed record (``SampleMeta``).

The dataset writes the scenario, the repetition and the prompt variant's record into each
Inspect sample's metadata; the solver adds the episode it ran. The scorer reads it back with
Inspect's ``metadata_as`` (``state.metadata_as(SampleMeta)``), the analysis, the reader page,
the report and the study's units with ``SampleMeta.of`` (``normlab.core.metadata``), never by
string keys. Keys it does not know are ignored and fields older logs lack have defaults, so
every old log keeps loading.
"""

from __future__ import annotations

from normlab.core.metadata import SampleMetadata
from normlab.core.variants import VariantRecord
from normlab.scene.schemas import Episode, SceneScenario


class SampleMeta(SampleMetadata):
    """One SCENE sample's metadata: its scenario and repetition (from the dataset), the prompt
    variant it ran, and the episode (from the solver; absent before it ran)."""

    scenario: SceneScenario
    """The whole scenario, hidden layer included: the judge and any later analysis need
    nothing but the log."""
    rep: int = 1
    """Which repetition of the scenario the sample is (``SCENARIO::repN``)."""
    variant: VariantRecord | None = None
    """The prompt variant's record; absent for the paper's prompt (its logs stay as they were)."""
    episode: Episode | None = None
    """The episode the solver ran."""

    def ran(self, episode: Episode) -> SampleMeta:
        """This record with the episode the solver ran."""
        return self.model_copy(update={"episode": episode})
