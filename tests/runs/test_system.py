"""Every system's parts (``normlab.runs.system``): a task system's options, run and read side are
its ``TaskRun``'s, stated once; through the ``System`` view a value of another system is refused
by name; and a task records its run the same way in every system (``SystemSpec.task_metadata``).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from normlab.core.sources import DataFile, DataSource
from normlab.hsii.analysis import HsiiAnalysis
from normlab.losona.results import LosonaAnalysis
from normlab.models.usage import RoleUsage, RunUsage
from normlab.runs import SystemParts, TaskRun
from normlab.specs import parts, spec, task_function

TASK_SYSTEMS = ("losona", "scene", "hsii")

# A cell's analysis whose usage holds two runs. By hand, summed (``summed_usage``):
# units 2 + 3 = 5; subject calls 2 + 3 = 5, input tokens 100 + 150 = 250, output 10 + 15 = 25;
# the judge only in the first run: 2 calls, 300 input tokens.
USAGE = {
    "first": RunUsage(
        units=2,
        roles={
            "subject": RoleUsage(calls=2, input_tokens=100, output_tokens=10),
            "judge": RoleUsage(calls=2, input_tokens=300),
        },
    ),
    "second": RunUsage(
        units=3, roles={"subject": RoleUsage(calls=3, input_tokens=150, output_tokens=15)}
    ),
}
SUMMED = RunUsage(
    units=5,
    roles={
        "judge": RoleUsage(calls=2, input_tokens=300),
        "subject": RoleUsage(calls=5, input_tokens=250, output_tokens=25),
    },
)


@pytest.mark.parametrize("name", TASK_SYSTEMS)
def test_a_task_systems_options_run_and_read_side_are_its_task_runs(name: str) -> None:
    found = parts(spec(name))
    run = getattr(importlib.import_module(f"normlab.{name}.runner"), f"run_{name}")
    assert isinstance(found, SystemParts) and isinstance(run, TaskRun)
    assert found.options is run.factory is task_function(spec(name))
    assert found.run == run.with_arguments
    assert found.load is run.bench.load
    assert found.runner.analyze is run.bench.analyze
    analysis = found.runner.analysis_type(models={}, usage=USAGE)
    assert found.usage_of(analysis) == SUMMED


def test_a_value_of_another_system_is_refused_by_name(tmp_path: Path) -> None:
    runs = parts(spec("crsec")).load([tmp_path])  # no run folder there: an empty CrsecRuns
    hsii = parts(spec("hsii"))
    with pytest.raises(TypeError, match="a HsiiRun expected"):
        hsii.verdicts_of(runs)
    with pytest.raises(TypeError, match="a HsiiAnalysis expected"):
        hsii.usage_of(LosonaAnalysis(models={}))
    assert hsii.usage_of(HsiiAnalysis(models={})) is None  # no run, no usage


DATA = DataSource(
    location="cases.jsonl",
    sha256="ab",
    files=[DataFile(location="cases.jsonl", sha256="ab", size=3)],
)


def test_a_task_records_the_system_its_settings_its_data_and_its_variant() -> None:
    """The keys in the order every task wrote them before they were written once."""
    recorded = spec("hsii").task_metadata({"epsilon": 7}, DATA, {"spec": "rename:1"})
    assert list(recorded) == ["benchmark", "epsilon", "data", "variant"]
    assert recorded["benchmark"] == "hsii" and recorded["epsilon"] == 7
    assert recorded["data"] == DATA.model_dump()
    assert recorded["variant"] == {"spec": "rename:1"}
    # The paper's prompt records no variant, so that its logs stay as they were.
    assert list(spec("scene").task_metadata({}, DATA, None)) == ["benchmark", "data"]
