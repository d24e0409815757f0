"""The generated listing (``tools/listing.py``): each system README's Options table is what the
code says, its changelog ends at the task's ``TASK_VERSION``, and each task's card counts the
samples and hashes the data the task itself builds and reads."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
import yaml
from inspect_ai._util.registry import registry_lookup
from tools import listing

import normlab._registry  # noqa: F401 (registers the tasks, as Inspect loads it)

TASK_SYSTEMS = ["losona", "scene", "hsii"]


def test_the_shipped_readmes_and_cards_are_current() -> None:
    assert listing.stale() == [], "run: python -m tools.listing"


def test_every_system_readme_has_a_generated_options_table() -> None:
    assert [system.name for system in listing.systems()] == ["crsec", "hsii", "losona", "scene"]


@pytest.fixture
def copied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """LoSoNA's README and card copied to a package folder of their own, which the listing
    then reads and writes instead of the shipped ones."""
    folder = tmp_path / "normlab" / "losona"
    folder.mkdir(parents=True)
    for name in ("README.md", "eval.yaml"):
        shutil.copy(listing.SOURCE / "losona" / name, folder / name)
    monkeypatch.setattr(listing, "SOURCE", tmp_path / "normlab")
    monkeypatch.setattr(listing, "ROOT", tmp_path)
    # The copy has no task.py; it stands for the real one.
    monkeypatch.setattr(listing.System, "task", property(lambda self: "normlab.losona.task:losona"))
    return folder


def test_a_hand_edited_options_row_is_stale_and_rewritten(copied: Path) -> None:
    readme = copied / "README.md"
    text = readme.read_text(encoding="utf-8")
    row = "| `epochs` | `--epochs`, `-k` | `3` |"
    assert row in text
    readme.write_text(text.replace(row, "| `epochs` | `-k` | `5` |"), encoding="utf-8")
    assert listing.stale() == ["normlab/losona/README.md: Options table is stale"]
    assert listing.write() == [readme]
    assert readme.read_text(encoding="utf-8") == text
    assert listing.stale() == []


def test_an_argument_missing_from_the_table_is_stale(copied: Path) -> None:
    readme = copied / "README.md"
    text = readme.read_text(encoding="utf-8")
    kept = [line for line in text.splitlines(keepends=True) if not line.startswith("| `agent`")]
    readme.write_text("".join(kept), encoding="utf-8")
    assert listing.stale() == ["normlab/losona/README.md: Options table is stale"]


def test_a_readme_without_both_markers_is_refused(copied: Path) -> None:
    readme = copied / "README.md"
    text = readme.read_text(encoding="utf-8")
    readme.write_text(text.replace("<!-- /Options: Automatically Generated -->", ""), "utf-8")
    with pytest.raises(ValueError, match="expected one <!-- Options"):
        listing.stale([listing.System("losona")])


def test_a_changelog_behind_the_task_version_is_named(copied: Path) -> None:
    from normlab.losona.task import TASK_VERSION

    readme = copied / "README.md"
    text = readme.read_text(encoding="utf-8")
    newest = f"### [{TASK_VERSION}-A] - "
    assert newest in text
    # The entry for the current version left out: the newest one is the version before.
    start = text.index(newest)
    end = text.index(f"### [{TASK_VERSION - 1}-A] - ")
    readme.write_text(text[:start] + text[end:], encoding="utf-8")
    assert listing.stale() == [
        f"normlab/losona/README.md: newest changelog entry is {TASK_VERSION - 1}-A, "
        f"TASK_VERSION is {TASK_VERSION}"
    ]


def test_a_changelog_that_skips_a_version_is_named(copied: Path) -> None:
    readme = copied / "README.md"
    text = readme.read_text(encoding="utf-8")
    start = text.index("### [2-A] - ")
    end = text.index("### [1-A] - ")
    readme.write_text(text[:start] + text[end:], encoding="utf-8")
    assert listing.stale() == [
        "normlab/losona/README.md: changelog versions 3-A, 1-A skip one or are out of order"
    ]


def test_a_readme_without_a_changelog_is_named(copied: Path) -> None:
    readme = copied / "README.md"
    text = readme.read_text(encoding="utf-8")
    readme.write_text(text.split("\n## Changelog\n")[0] + "\n", encoding="utf-8")
    assert listing.stale() == [
        "normlab/losona/README.md: no '## Changelog' entry ('### [N-X] - YYYY-MM-DD')"
    ]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("version", "2-A"),
        ("dataset_samples", 46),
        ("sha256", "0" * 64),
    ],
)
def test_a_card_that_disagrees_with_the_task_is_stale(
    copied: Path, field: str, value: object
) -> None:
    card_path = copied / "eval.yaml"
    card = yaml.safe_load(card_path.read_text(encoding="utf-8"))
    if field == "version":
        card["version"] = value
    elif field == "dataset_samples":
        card["tasks"][0]["dataset_samples"] = value
    else:
        card["metadata"]["data"]["sha256"] = value
    card_path.write_text(listing.card_text(listing.System("losona"), card), encoding="utf-8")
    assert listing.stale() == ["normlab/losona/eval.yaml: stale (version, samples or data)"]
    listing.write()
    assert listing.stale() == []
    assert yaml.safe_load(card_path.read_text(encoding="utf-8"))["title"] == card["title"]


@pytest.mark.parametrize("system", TASK_SYSTEMS)
def test_a_cards_digest_is_the_shipped_files_bytes(system: str) -> None:
    """Independent of the task's reader: the files' own SHA-256, and of all of them in order."""
    folder = listing.SOURCE / system
    data = yaml.safe_load((folder / "eval.yaml").read_text(encoding="utf-8"))["metadata"]["data"]
    total = hashlib.sha256()
    for file in data["files"]:
        content = (folder / file["path"]).read_bytes()
        assert hashlib.sha256(content).hexdigest() == file["sha256"]
        assert len(content) == file["bytes"]
        total.update(content)
    assert total.hexdigest() == data["sha256"]


@pytest.mark.parametrize("system", TASK_SYSTEMS)
def test_a_cards_tasks_are_what_inspect_eval_runs(system: str) -> None:
    card = yaml.safe_load((listing.SOURCE / system / "eval.yaml").read_text(encoding="utf-8"))
    names = [task["name"] for task in card["tasks"]]
    # What Inspect's registry holds once it loaded normlab's entry point: ``inspect eval``'s names.
    assert names and all(registry_lookup("task", f"normlab/{name}") for name in names)
    assert card["version"] == f"{listing.System(system).task_version()}-A"
