"""``normlab demo``'s index page: one link per system's report, relative, escaped."""

from __future__ import annotations

from pathlib import Path

from normlab.demo import DEMOS, write_index


def test_the_index_links_every_report_relative_to_itself(tmp_path: Path) -> None:
    done = [(name, what, tmp_path / name.lower() / "report.html", 61.0) for name, what, _ in DEMOS]
    page = write_index(tmp_path, done).read_text()
    for name, _, _ in DEMOS:
        assert f'href="{name.lower()}/report.html"' in page
    assert "1.0 min" in page and "plumbing check" in page
    assert [name for name, _, _ in DEMOS] == ["LoSoNA", "SCENE", "HSII", "CRSEC"]
