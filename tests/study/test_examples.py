"""The paid example study (issue 23): ``examples/study.yaml`` is a valid study, and the plan
table its README prints is what ``study plan`` gives for it now (so the printed cost cannot go
stale)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.study.test_study import REPO, invoke

PAID = REPO / "examples" / "study.yaml"
README = REPO / "src" / "normlab" / "study" / "README.md"


def paid_study(folder: Path) -> Path:
    """The paid study with its paths absolute and its output under ``folder``."""
    text = PAID.read_text(encoding="utf-8").replace("../runs/study-papers", str(folder / "out"))
    text = text.replace("scripted/busy/", f"scripted/{REPO}/examples/busy/")
    path = folder / "study.yaml"
    path.write_text(text.replace("../", f"{REPO}/"), encoding="utf-8")
    return path


def readme_rows() -> dict[tuple[str, str], tuple[int, float, float]]:
    """(system, subject) → (calls, the cost's floor, the corrected cost) from the README's plan
    table."""
    section = README.read_text(encoding="utf-8").split("## A paid study", 1)[1].split("\n## ")[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 9 and cells[0] in ("losona", "scene", "hsii"):
            floor, corrected = (float(re.sub(r"[$,]", "", cells[i])) for i in (4, 5))
            rows[cells[0], cells[1]] = (int(cells[2].replace(",", "")), floor, corrected)
    return rows


@pytest.mark.slow
def test_the_readme_prints_the_paid_studys_plan(workdir: Path) -> None:
    code, out, err = invoke("plan", paid_study(workdir), "--json")
    assert code == 0, err
    plan = json.loads(out)
    printed = readme_rows()
    assert len(printed) == len(plan["cells"]) == 9
    for cell in plan["cells"]:
        calls, floor, corrected = printed[cell["system"], cell["subject"]]
        assert calls == cell["calls"], cell
        assert floor == pytest.approx(cell["cost"], abs=0.005), cell
        assert corrected == pytest.approx(cell["cost_corrected"], abs=0.005), cell
    text = README.read_text(encoding="utf-8")
    assert f"at least ${plan['cost']:,.2f}, about ${plan['cost_corrected']:,.2f}" in text
