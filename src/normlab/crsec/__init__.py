"""CRSEC: a norm-emergence simulation: agents with personal norm databases create, spread,
evaluate, synthesize and obey norms over simulated days (Figure 2's curves, measured).

The face other packages import CRSEC through: the run (society, config, simulation, run
folder, analysis and the files it reads, audit) and its typed events. The agents' norm
architecture (personal norms, their database, the operations and their prompts) is
``normlab.norms``, which the norm-learning subject (``normlab.agents``) shares.
"""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.crsec.analysis.figure2 import (
        ANALYZED_FILES,
        CrsecAnalysis,
        analyze_runs,
        load_run,
        load_runs,
    )
    from normlab.crsec.analysis.replay import moment
    from normlab.crsec.runner import analyze as analyze_folders
    from normlab.crsec.runner import configure, run_demo, simulate
    from normlab.crsec.sim.events import Event, parse_event
    from normlab.crsec.sim.loop import Simulation
    from normlab.crsec.sim.rundir import RunDir
    from normlab.crsec.sim.schemas import RunConfig, Society
    from normlab.crsec.sim.society import HOBBS_CAFE, load_society
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "ANALYZED_FILES",
    "HOBBS_CAFE",
    "CrsecAnalysis",
    "Event",
    "RunConfig",
    "RunDir",
    "Simulation",
    "Society",
    "analyze_folders",
    "analyze_runs",
    "configure",
    "load_run",
    "load_runs",
    "load_society",
    "moment",
    "parse_event",
    "run_demo",
    "simulate",
]
