"""A sample's metadata as one typed record: what each system's ``SampleMeta`` shares.

Each system (``normlab.losona.meta``, ``normlab.scene.meta``, ``normlab.hsii.meta``) declares
one frozen pydantic model of what its dataset writes into an Inspect sample's metadata and
what its solvers add; its scorer reads it back with Inspect's ``metadata_as``
(``state.metadata_as(SampleMeta)``), its analysis, reader page and report with
[`SampleMetadata.of`][normlab.core.metadata.SampleMetadata.of] on a log's samples, so no
string key is written in one file and parsed in another. Keys a record does not know are
ignored (as ``metadata_as`` ignores them) and fields an older release did not write have
defaults, so every old log keeps loading.
"""

from __future__ import annotations

from typing import Any, Protocol, Self

from pydantic import BaseModel, ConfigDict


class HasMetadata(Protocol):
    """An Inspect sample, a log's sample or a task state: whatever carries sample metadata."""

    @property
    def metadata(self) -> dict[str, Any] | None: ...


class SampleMetadata(BaseModel):
    """The base of each system's ``SampleMeta``: frozen (``metadata_as`` requires it), extra
    keys ignored, written and read back whole."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    @classmethod
    def of(cls, holder: HasMetadata) -> Self | None:
        """The record of a sample, or None for a sample that lacks one of its required fields
        (a sample of another task, or one its solver never reached, read beside the system's)."""
        metadata = holder.metadata or {}
        required = (name for name, field in cls.model_fields.items() if field.is_required())
        if not all(name in metadata for name in required):
            return None
        return cls.model_validate(metadata)

    def dump(self) -> dict[str, Any]:
        """The metadata as written: the fields given (nested records whole), None left out, so
        a sample records only what its dataset and solvers said."""
        given = {name for name in self.model_fields_set if getattr(self, name) is not None}
        return self.model_dump(mode="json", include=given)

    def write(self, metadata: dict[str, Any]) -> None:
        """Into a task state's metadata (``state.metadata``), what this record holds."""
        metadata.update(self.dump())
