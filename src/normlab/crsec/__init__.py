"""CRSEC: a norm-emergence simulation: agents with personal norm databases create, spread,
evaluate, synthesize and obey norms over simulated days (Figure 2's curves, measured)."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.crsec.analysis import CrsecAnalysis, analyze_runs, load_run, load_runs
    from normlab.crsec.rundir import RunDir
    from normlab.crsec.runner import run_demo
    from normlab.crsec.schemas import Event, NormDatabase, PersonalNorm, RunConfig, Society
    from normlab.crsec.sim import Simulation
    from normlab.crsec.society import HOBBS_CAFE, load_society
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "HOBBS_CAFE",
    "CrsecAnalysis",
    "Event",
    "NormDatabase",
    "PersonalNorm",
    "RunConfig",
    "RunDir",
    "Simulation",
    "Society",
    "analyze_runs",
    "load_run",
    "load_runs",
    "load_society",
    "run_demo",
]
