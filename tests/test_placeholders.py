"""No unfilled placeholder in what a reader sees (issue 34, item 1): the README once showed
"(DEMO_TIME on 2 CPU cores, …)". Every ALL_CAPS_NAME in the READMEs and the docs pages must be
something real: a name the code, tests or benchmarks hold (an environment variable, a constant,
a role), or a provider's key variable; anything else is a placeholder nobody filled."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
PROVIDER_KEYS = re.compile(r"^[A-Z0-9]+_(?:API_KEY|BASE_URL|API_BASE|TOKEN)$")
"""``OPENAI_API_KEY``, ``MYLAB_BASE_URL``: what Inspect reads for a provider or a service."""
OBVIOUS = re.compile(r"\b(?:TODO|TBD|FIXME|XXX)\b|<fill")
METAVAR = re.compile(r"(?:^|[\s\[])--?[\w-]+[ =]\[?([A-Z][A-Z0-9_]*)")
"""A value's name in a usage line (``--data FILE_OR_DIR``): a name by design, not a gap."""


def pages() -> list[Path]:
    readmes = [ROOT / "README.md", *sorted((ROOT / "src").rglob("README.md"))]
    return readmes + sorted((ROOT / "docs").glob("*.md"))


def code_text() -> str:
    files = [*(ROOT / "src").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
    files += [*(ROOT / "benchmarks").rglob("*.py"), ROOT / "Makefile", ROOT / ".ci" / "run"]
    this = Path(__file__).resolve()
    return "\n".join(p.read_text(encoding="utf-8") for p in files if p.resolve() != this)


def test_no_page_shows_an_unfilled_name() -> None:
    known = set(NAME.findall(code_text()))
    unfilled = set()
    for page in pages():
        text = page.read_text(encoding="utf-8")
        metavars = set(METAVAR.findall(text))
        unfilled |= {
            f"{page.relative_to(ROOT)}: {name}"
            for name in NAME.findall(text)
            if name not in known | metavars and not PROVIDER_KEYS.match(name)
        }
    assert sorted(unfilled) == []


def test_no_page_holds_an_obvious_placeholder() -> None:
    found = [
        f"{page.relative_to(ROOT)}: {match.group(0)}"
        for page in pages()
        for match in OBVIOUS.finditer(page.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_check_finds_the_placeholder_of_the_last_round(tmp_path: Path) -> None:
    text = "writes runs/demo/index.html (DEMO_TIME on 2 CPU cores)"
    assert NAME.findall(text) == ["DEMO_TIME"] and "DEMO_TIME" not in set(NAME.findall(code_text()))
