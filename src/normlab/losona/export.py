"""Export scenarios in Hugging Face datasets layout, with a dataset card.

Layout (the official release's, so ``datasets.load_dataset("json", data_dir=…)``
and our own loader both read it):

    OUT/
      README.md                     dataset card: YAML header (license, configs) + counts
      data/losona_scenarios.jsonl   one scenario per line
      taxonomy/events.json, taxonomy/norms.json

``normlab.losona.load_scenarios(OUT)`` reads the folder back.
"""

from __future__ import annotations

import json
import shutil
import statistics
from collections import Counter
from importlib.resources import files
from pathlib import Path
from string import Template

from normlab.core.outputs import replace_file
from normlab.losona.schemas import Scenario
from normlab.losona.taxonomy import TAXONOMY_DIR, Taxonomy

LICENSE = "cc-by-4.0"
DATA_FILE = "data/losona_scenarios.jsonl"


def dataset_counts(scenarios: list[Scenario], taxonomy: Taxonomy) -> dict[str, object]:
    turns = [len(s.visible_turns) for s in scenarios]
    demos = [len(s.demonstration_turn_ids) for s in scenarios]
    return {
        "scenarios": len(scenarios),
        "norms_covered": len({s.norm_id for s in scenarios}),
        "norms_in_taxonomy": len(taxonomy.norms),
        "events_covered": len({s.event_id for s in scenarios}),
        "events_in_taxonomy": len(taxonomy.events),
        "valid_cells": len(taxonomy.valid_cells()),
        "workplace": sum(s.is_workplace for s in scenarios),
        "other_venue": sum(not s.is_workplace for s in scenarios),
        "turns_min": min(turns),
        "turns_mean": round(statistics.mean(turns), 1),
        "turns_max": max(turns),
        "demonstrations_mean": round(statistics.mean(demos), 2),
        "per_norm": dict(sorted(Counter(s.norm_id for s in scenarios).items())),
        "per_event": dict(sorted(Counter(s.event_id for s in scenarios).items())),
    }


def _table(title: str, counts: dict[str, int]) -> str:
    rows = "\n".join(f"| `{name}` | {count} |" for name, count in counts.items())
    return f"| {title} | scenarios |\n|---|---|\n{rows}\n"


def dataset_card(scenarios: list[Scenario], taxonomy: Taxonomy) -> str:
    """The dataset card: ``dataset_card.md`` filled with this set's counts."""
    counts = dataset_counts(scenarios, taxonomy)
    per_norm = counts.pop("per_norm")
    per_event = counts.pop("per_event")
    assert isinstance(per_norm, dict) and isinstance(per_event, dict)
    template = Template((files("normlab.losona") / "dataset_card.md").read_text(encoding="utf-8"))
    return template.substitute(
        {name: str(value) for name, value in counts.items()},
        license=LICENSE,
        license_upper=LICENSE.upper(),
        data_file=DATA_FILE,
        per_norm_table=_table("norm", per_norm),
        per_event_table=_table("event", per_event),
    )


def export_dataset(scenarios: list[Scenario], taxonomy: Taxonomy, out_dir: Path) -> Path:
    """Write the Hugging Face layout under ``out_dir``; returns the data file."""
    data_path = out_dir / DATA_FILE
    data_path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(
        data_path,
        "".join(
            json.dumps(s.model_dump(mode="json"), ensure_ascii=False) + "\n" for s in scenarios
        ),
    )
    (out_dir / "taxonomy").mkdir(exist_ok=True)
    for name in ("events.json", "norms.json"):
        shutil.copyfile(TAXONOMY_DIR / name, out_dir / "taxonomy" / name)
    replace_file(out_dir / "README.md", dataset_card(scenarios, taxonomy))
    return data_path
