"""What a sample is told is one typed record per system (issue 42, item 3): each system's
dataset writes its ``SampleMeta``, Inspect's ``metadata_as`` reads the same record back, an
old release's log reads through it, a key it does not know is ignored, and no module of a
system reads a sample's metadata by a string key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from normlab.agents import MEMORY_KEY
from normlab.core.variants import VariantRecord
from normlab.hsii.dataset import build_dataset as hsii_dataset
from normlab.hsii.dataset import read_cases
from normlab.hsii.meta import SampleMeta as HsiiMeta
from normlab.losona.dataset import build_dataset as losona_dataset
from normlab.losona.dataset import load_scenarios as losona_scenarios
from normlab.losona.meta import SampleMeta as LosonaMeta
from normlab.scene.dataset import load_scenarios as scene_scenarios
from normlab.scene.meta import SampleMeta as SceneMeta
from normlab.scene.task import episode_sample

SRC = Path(__file__).parents[1] / "src" / "normlab"
LEGACY = Path(__file__).parent / "fixtures" / "legacy"
RENAMED = VariantRecord(spec="rename:1", kind="rename", description="renamed")


def test_each_dataset_writes_the_record_metadata_as_reads_back() -> None:
    record = RENAMED.model_dump(exclude_none=True)
    (scenario, *_) = losona_scenarios()
    (sample,) = losona_dataset([scenario], ["naive"], variant=record)
    told = sample.metadata_as(LosonaMeta)
    assert (told.scenario, told.condition, told.variant) == (scenario, "naive", RENAMED)
    assert told.norm_memory is None and not told.subject_truncated

    (scene, *_) = scene_scenarios()
    shown = episode_sample(scene, 2, variant=record).metadata_as(SceneMeta)
    assert (shown.scenario, shown.rep, shown.variant, shown.episode) == (scene, 2, RENAMED, None)

    (case, *_) = read_cases().items
    (item,) = hsii_dataset([case]).samples
    meta = item.metadata_as(HsiiMeta)
    assert (meta.case, meta.characters, meta.variant, meta.hsii) == (
        case,
        len(case.characters),
        None,
        None,
    )
    # The paper's prompt writes no variant record: its logs stay as they were.
    assert "variant" not in (item.metadata or {})


def test_a_solver_s_addition_is_written_and_read_back_typed() -> None:
    (scenario, *_) = losona_scenarios()
    (sample,) = losona_dataset([scenario], ["naive"])
    metadata = dict(sample.metadata or {})
    sample.metadata_as(LosonaMeta).replied(True, 1, "0.9").write(metadata)
    again = LosonaMeta.model_validate(metadata)
    assert (again.subject_truncated, again.subject_truncations, again.subject_temperature) == (
        True,
        1,
        "0.9",
    )
    # The norm-learning subject's log is where the agents' face says it is.
    assert MEMORY_KEY in LosonaMeta.model_fields


@pytest.mark.parametrize(
    ("name", "meta"),
    [
        ("losona_v0", LosonaMeta),
        ("losona_v1", LosonaMeta),
        ("scene_v0", SceneMeta),
        ("scene_v1", SceneMeta),
        ("hsii_v1", HsiiMeta),
    ],
)
def test_every_old_log_s_samples_read_through_their_record(
    name: str, meta: type[LosonaMeta | SceneMeta | HsiiMeta]
) -> None:
    log = read_eval_log(LEGACY / f"{name}.eval")
    samples = log.samples or []
    assert samples
    for sample in samples:
        record = meta.of(sample)
        assert record is not None and record.variant is None
        assert sample.metadata_as(meta) == record


def test_a_key_the_record_does_not_know_is_ignored_and_a_foreign_sample_is_none() -> None:
    (scenario, *_) = losona_scenarios()
    (sample,) = losona_dataset([scenario], ["naive"])
    metadata = {**(sample.metadata or {}), "written_by_a_later_release": 1}
    assert LosonaMeta.model_validate(metadata) == sample.metadata_as(LosonaMeta)
    foreign = sample.model_copy(update={"metadata": {"case_id": "x"}})
    assert LosonaMeta.of(foreign) is None


STRING_READS = re.compile(
    r"(state|sample)\.metadata(\[|\.get\()"
    r"|(sample\.metadata|sample_metadata) or \{\}"
    r"|in (state|item\.sample|sample)\.metadata\b"
)
"""A read of a sample's metadata by a string key, in the shapes the systems used to write."""


def test_no_system_reads_a_sample_s_metadata_by_a_string_key() -> None:
    found = [
        f"{path.relative_to(SRC)}:{number}: {line.strip()}"
        for system in ("losona", "scene", "hsii", "crsec")
        for path in sorted((SRC / system).rglob("*.py"))
        if path.name != "meta.py"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if STRING_READS.search(line)
    ]
    assert not found, "\n".join(found)
