"""LoSoNA: the static local-norm benchmark (one reply per scenario, judged on a hidden norm)."""

from normlab.losona.analysis import LosonaAnalysis, analyze, analyze_records, load_records, load_run
from normlab.losona.cli import losona_app, run_demo, run_losona
from normlab.losona.dataset import load_scenarios
from normlab.losona.prompts import CONDITIONS
from normlab.losona.schemas import Scenario, TrialRecord
from normlab.losona.screening import losona_screen
from normlab.losona.task import losona

__all__ = [
    "CONDITIONS",
    "LosonaAnalysis",
    "Scenario",
    "TrialRecord",
    "analyze",
    "analyze_records",
    "load_records",
    "load_run",
    "load_scenarios",
    "losona",
    "losona_app",
    "losona_screen",
    "run_demo",
    "run_losona",
]
