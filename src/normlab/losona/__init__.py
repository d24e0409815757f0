"""LoSoNA: the static local-norm benchmark (one reply per scenario, judged on a hidden norm)."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.losona.analysis import (
        LosonaAnalysis,
        analyze,
        analyze_records,
        load_records,
        load_run,
        record_of,
        scenario_outcomes,
    )
    from normlab.losona.audit import analyze_study, export_study, study_columns
    from normlab.losona.dataset import SCENARIOS_PATH, load_scenarios
    from normlab.losona.prompts import CONDITIONS
    from normlab.losona.runner import BENCHMARK, run_demo, run_losona
    from normlab.losona.schemas import Scenario, TrialRecord
    from normlab.losona.task import losona, losona_screen
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "BENCHMARK",
    "CONDITIONS",
    "SCENARIOS_PATH",
    "LosonaAnalysis",
    "Scenario",
    "TrialRecord",
    "analyze",
    "analyze_records",
    "analyze_study",
    "export_study",
    "load_records",
    "load_run",
    "load_scenarios",
    "losona",
    "losona_screen",
    "record_of",
    "run_demo",
    "run_losona",
    "scenario_outcomes",
    "study_columns",
]
