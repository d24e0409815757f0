"""Hugging Face export: layout, dataset card counts, and the loader reading it back."""

from __future__ import annotations

from pathlib import Path

from normlab.losona.dataset import SCENARIOS_PATH, load_scenarios
from tests.losona.conftest import run_cli


def test_export_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "dataset"
    code, output = run_cli("losona", "export", "--out", str(out))
    assert code == 0, output
    shipped = load_scenarios(SCENARIOS_PATH)
    assert shipped
    assert (out / "data" / "losona_scenarios.jsonl").is_file()
    assert load_scenarios(out) == shipped
    card = (out / "README.md").read_text()
    assert card.startswith("---\nlicense: cc-by-4.0\n")
    assert f"- scenarios: {len(shipped)};" in card
    assert "valid (event, norm) cells in the taxonomy: 353" in card
    for norm_id in {s.norm_id for s in shipped}:
        assert f"| `{norm_id}` |" in card
    assert (out / "taxonomy" / "norms.json").is_file()
