"""The READMEs a newcomer reads: every link leads to a file that exists, and every scripted
example runs as printed (from the repository root, offline, on the tests' own fixtures)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app

ROOT = Path(__file__).resolve().parents[1]
READMES = [ROOT / "README.md", *sorted((ROOT / "src" / "normlab").rglob("README.md"))]
MARK = "<!-- scripted example: each command runs in tests/test_readme.py -->"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def examples(readme: Path) -> list[str]:
    """The commands of the fenced block after each scripted-example mark."""
    commands: list[str] = []
    for part in readme.read_text(encoding="utf-8").split(MARK)[1:]:
        block = part.split("```bash\n", 1)[1].split("```", 1)[0]
        commands.extend(line for line in block.splitlines() if line.startswith("normlab "))
    return commands


EXAMPLES = [(readme, command) for readme in READMES for command in examples(readme)]


def test_every_link_in_a_readme_leads_to_a_file() -> None:
    missing = []
    for readme in READMES:
        for target in LINK.findall(readme.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (readme.parent / target).exists():
                missing.append(f"{readme.relative_to(ROOT)}: {target}")
    assert missing == []


def test_every_system_readme_has_a_scripted_example() -> None:
    systems = {readme.parent.name for readme, _ in EXAMPLES}
    assert systems >= {"losona", "scene", "hsii", "crsec"}
    assert sum("generate" in command for _, command in EXAMPLES) >= 3


@pytest.mark.parametrize("readme", sorted({readme for readme, _ in EXAMPLES}), ids=str)
def test_a_readmes_scripted_example_runs_as_printed(
    readme: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workdir / "tests").symlink_to(ROOT / "tests")  # the fixtures, where the root has them
    for command in examples(readme):
        result = CliRunner().invoke(app, shlex.split(command)[1:])
        assert result.exit_code == 0, f"{command}\n{result.output[-3000:]}"
