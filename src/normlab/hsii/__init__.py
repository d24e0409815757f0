"""HSII: a multi-user benchmark: an assistant among several users picks whom to address next
and what to say (r1–r4, the HSII score, COT complexity, dataset clusters)."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.hsii.analysis import HsiiAnalysis, analyze, analyze_records, load_run
    from normlab.hsii.dataset import cut_dialogue, load_cases, load_dialogues, load_news
    from normlab.hsii.parse import parse_statement, resolve_target, target_correct
    from normlab.hsii.rules import hsii_score, win_value
    from normlab.hsii.runner import BENCHMARK, run_demo, run_hsii
    from normlab.hsii.schemas import Case, Dialogue, TrialRecord
    from normlab.hsii.task import hsii, hsii_cot
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "BENCHMARK",
    "Case",
    "Dialogue",
    "HsiiAnalysis",
    "TrialRecord",
    "analyze",
    "analyze_records",
    "cut_dialogue",
    "hsii",
    "hsii_cot",
    "hsii_score",
    "load_cases",
    "load_dialogues",
    "load_news",
    "load_run",
    "parse_statement",
    "resolve_target",
    "run_demo",
    "run_hsii",
    "target_correct",
    "win_value",
]
