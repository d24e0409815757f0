"""``docs/architecture.md`` stays true: its layout names every package and top-level module of
``src/normlab`` and nothing else, line by line in the order ``tests/test_layers.py`` enforces;
every system's spec is found and declares what the command line, the web app, studies and the
demo read of it."""

from __future__ import annotations

import re
from pathlib import Path

import normlab
from normlab.runs import SystemSpec
from normlab.specs import parts as system_parts
from normlab.specs import specs
from tests.test_layers import ORDER

SOURCE = Path(normlab.__file__).parent
PAGE = SOURCE.parents[1] / "docs" / "architecture.md"
NAME = re.compile(r"^([A-Za-z_]\w*)(/|\.py)$")


def layout_lines() -> list[tuple[str, ...]]:
    """The names on each line of the page's layout block (``core/ stats/``: core, stats)."""
    text = PAGE.read_text(encoding="utf-8")
    block = text.split("```text\n", 1)[1].split("```", 1)[0]
    lines = []
    for line in block.splitlines()[1:]:  # the first names src/normlab/ itself
        if not line.startswith("  ") or line.startswith("   "):
            continue  # a continuation of the line above
        names = []
        for word in line.split():
            found = NAME.match(word)
            if found is None:
                break  # the description starts
            names.append(found.group(1))
        lines.append(tuple(names))
    return lines


def test_the_layout_names_every_package_and_module_and_nothing_else() -> None:
    named = {name for line in layout_lines() for name in line}
    packages = {path.parent.name for path in SOURCE.glob("*/__init__.py")}
    modules = {path.stem for path in SOURCE.glob("*.py")} - {"__init__"}
    assert named == packages | modules


def test_the_layout_is_in_the_layers_order() -> None:
    assert layout_lines() == list(ORDER)


def test_the_page_is_in_the_docs_site() -> None:
    assert "architecture.md" in (SOURCE.parents[1] / "mkdocs.yml").read_text(encoding="utf-8")


def test_every_system_is_found_by_its_spec() -> None:
    found = specs()
    assert [spec.name for spec in found] == ["losona", "scene", "hsii", "crsec"]
    assert all(isinstance(spec, SystemSpec) for spec in found)
    for spec in found:
        assert (SOURCE / spec.name / "spec.py").is_file()
        assert spec.help and spec.summary and spec.roles
        parts = system_parts(spec)
        assert parts.unit and parts.verdict_items and parts.ratings
        assert (spec.task is None) == (not parts.shardable)  # CRSEC: no task, no shards
