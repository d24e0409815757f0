"""LoSoNA: the static local-norm benchmark (one reply per scenario, judged on a hidden norm)."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.losona.analysis import (
        analyze,
        analyze_records,
        load_records,
        load_run,
        record_of,
        scenario_outcomes,
    )
    from normlab.losona.dataset import SCENARIOS_PATH, load_scenarios
    from normlab.losona.lint import (
        MAX_TURNS,
        MIN_TURNS,
        check_scenario,
        lint_paths,
    )
    from normlab.losona.prompts import CONDITIONS
    from normlab.losona.rescore import RESCORED_FILE
    from normlab.losona.rescore import rescore as rescore_run
    from normlab.losona.results import LosonaAnalysis
    from normlab.losona.runner import BENCHMARK, run_demo, run_losona
    from normlab.losona.schemas import Scenario, TrialRecord
    from normlab.losona.task import losona, losona_screen
    from normlab.losona.taxonomy import NormExample, load_taxonomy
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "BENCHMARK",
    "CONDITIONS",
    "MAX_TURNS",
    "MIN_TURNS",
    "RESCORED_FILE",
    "SCENARIOS_PATH",
    "LosonaAnalysis",
    "NormExample",
    "Scenario",
    "TrialRecord",
    "analyze",
    "analyze_records",
    "check_scenario",
    "lint_paths",
    "load_records",
    "load_run",
    "load_scenarios",
    "load_taxonomy",
    "losona",
    "losona_screen",
    "record_of",
    "rescore_run",
    "run_demo",
    "run_losona",
    "scenario_outcomes",
]
