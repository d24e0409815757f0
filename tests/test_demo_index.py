"""``normlab demo``'s index page: one link per system's report, relative, escaped."""

from __future__ import annotations

from pathlib import Path

from normlab.demo import write_index
from normlab.specs import specs


def test_the_index_links_every_report_relative_to_itself(tmp_path: Path) -> None:
    done = [
        (spec.title, spec.summary, tmp_path / spec.name / "report.html", 61.0) for spec in specs()
    ]
    page = write_index(tmp_path, done).read_text()
    for spec in specs():
        assert f'href="{spec.name}/report.html"' in page
    assert "1.0 min" in page and "plumbing check" in page
    assert [spec.title for spec in specs()] == ["LoSoNA", "SCENE", "HSII", "CRSEC"]
