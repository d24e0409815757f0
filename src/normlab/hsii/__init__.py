"""HSII: a multi-user benchmark: an assistant among several users picks whom to address next
and what to say (r1–r4, the HSII score, COT complexity, dataset clusters)."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.hsii.analysis import (
        HsiiAnalysis,
        analyze,
        analyze_records,
        comparisons_of,
        load_run,
        record_of,
        stages_of,
    )
    from normlab.hsii.bank.native import import_dialogues
    from normlab.hsii.curation.apply import apply_curation
    from normlab.hsii.curation.criteria import CRITERIA
    from normlab.hsii.curation.decisions import (
        analyze_curation,
        curation_agreement,
        curation_columns,
        curation_criteria,
        export_curation,
    )
    from normlab.hsii.dataset import CASES_PATH, cut_dialogue, load_cases, load_dialogues, load_news
    from normlab.hsii.parse import parse_statement, resolve_target, target_correct
    from normlab.hsii.rules import hsii_score, win_value
    from normlab.hsii.runner import BENCHMARK, run_demo, run_hsii
    from normlab.hsii.schemas import Case, Dialogue, TrialRecord
    from normlab.hsii.scorer import hsii_stages
    from normlab.hsii.task import hsii, hsii_cot
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "BENCHMARK",
    "CASES_PATH",
    "CRITERIA",
    "Case",
    "Dialogue",
    "HsiiAnalysis",
    "TrialRecord",
    "analyze",
    "analyze_curation",
    "analyze_records",
    "apply_curation",
    "comparisons_of",
    "curation_agreement",
    "curation_columns",
    "curation_criteria",
    "cut_dialogue",
    "export_curation",
    "hsii",
    "hsii_cot",
    "hsii_score",
    "hsii_stages",
    "import_dialogues",
    "load_cases",
    "load_dialogues",
    "load_news",
    "load_run",
    "parse_statement",
    "record_of",
    "resolve_target",
    "run_demo",
    "run_hsii",
    "stages_of",
    "target_correct",
    "win_value",
]
