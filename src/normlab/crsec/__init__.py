"""CRSEC: a norm-emergence simulation: agents with personal norm databases create, spread,
evaluate, synthesize and obey norms over simulated days (Figure 2's curves, measured).

The face other packages import CRSEC through: the run (society, config, simulation, run
folder, analysis and the files it reads, audit), its typed events, and the pieces the
norm-learning subject (``normlab.agents``) reuses: a seeded caller, the norm database's
operations, the immediate evaluation, identification in a conversation, and the judge's
match prompt.
"""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.crsec.analysis import (
        ANALYZED_FILES,
        CrsecAnalysis,
        analyze_runs,
        load_run,
        load_runs,
    )
    from normlab.crsec.audit import analyze_study, export_study, study_columns
    from normlab.crsec.calls import Caller, call_seed
    from normlab.crsec.events import Event, parse_event
    from normlab.crsec.judge import match_prompt, target_line
    from normlab.crsec.normdb import add_norm, exact_duplicate
    from normlab.crsec.operations.evaluation import evaluate
    from normlab.crsec.operations.spreading import identify_in_conversation
    from normlab.crsec.prompts import ANGLE, PROMPTS, numbered
    from normlab.crsec.replay import moment
    from normlab.crsec.replies import NormMatches
    from normlab.crsec.rundir import RunDir
    from normlab.crsec.runner import analyze as analyze_folders
    from normlab.crsec.runner import configure, run_demo, simulate
    from normlab.crsec.schemas import (
        EvaluationMode,
        NormDatabase,
        NormType,
        PersonalNorm,
        RunConfig,
        Society,
    )
    from normlab.crsec.sim import Simulation
    from normlab.crsec.society import HOBBS_CAFE, load_society
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "ANALYZED_FILES",
    "ANGLE",
    "HOBBS_CAFE",
    "PROMPTS",
    "Caller",
    "CrsecAnalysis",
    "EvaluationMode",
    "Event",
    "NormDatabase",
    "NormMatches",
    "NormType",
    "PersonalNorm",
    "RunConfig",
    "RunDir",
    "Simulation",
    "Society",
    "add_norm",
    "analyze_folders",
    "analyze_runs",
    "analyze_study",
    "call_seed",
    "configure",
    "evaluate",
    "exact_duplicate",
    "export_study",
    "identify_in_conversation",
    "load_run",
    "load_runs",
    "load_society",
    "match_prompt",
    "moment",
    "numbered",
    "parse_event",
    "run_demo",
    "simulate",
    "study_columns",
    "target_line",
]
