"""LoSoNA: the static local-norm benchmark (one reply per scenario, judged on a hidden norm)."""

from normlab.losona.dataset import Scenario, load_scenarios
from normlab.losona.prompts import CONDITIONS
from normlab.losona.task import losona

__all__ = ["CONDITIONS", "Scenario", "load_scenarios", "losona"]
