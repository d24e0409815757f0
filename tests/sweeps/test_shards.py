"""Scale-out (issue 12): two shards analyze as the unsharded run; a role spreads over endpoints."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.endpoint import model_name, serving
from tests.losona.conftest import SCENARIOS, SCRIPT, run_cli

MODEL = f"scripted/{SCRIPT}"


def _analysis(*paths: Path) -> dict[str, Any]:
    code, output = run_cli("losona", "analyze", *map(str, paths), "--json")
    assert code == 0, output
    start = output.index("{")
    value: dict[str, Any] = json.loads(output[start:])
    return value


def test_two_shards_analyze_as_the_unsharded_run(workdir: Path) -> None:
    base = ["losona", "run", "--model", MODEL, "--judge", MODEL, "--data", str(SCENARIOS),
            "-c", "naive", "-c", "norm_informed"]  # fmt: skip
    assert run_cli(*base, "--log-dir", str(workdir / "whole"))[0] == 0
    sharded = workdir / "sharded"
    for part in ("1/2", "2/2"):
        code, output = run_cli(*base, "--log-dir", str(sharded), "--shard", part)
        assert code == 0, output
    shards = sorted(path.name for path in sharded.iterdir())
    assert shards == ["shard-1-of-2", "shard-2-of-2"]
    one = _analysis(sharded / "shard-1-of-2")["models"][MODEL]["conditions"]
    assert sum(c["n_trials"] for c in one.values()) == 6  # half of 4 samples × K=3
    whole, merged = _analysis(workdir / "whole"), _analysis(sharded)
    # The judge's verdicts are cached (temperature 0), so the shards, run after the whole
    # sweep, got every one from the cache: no judge call made, the same calls answered.
    usage, merged_usage = whole.pop("usage"), merged.pop("usage")
    assert merged == whole

    def calls(value: dict[str, Any]) -> dict[str, tuple[int, int]]:
        return {
            role: (item["calls"], item["cache_hits"])
            for role, item in value[MODEL]["roles"].items()
        }

    assert calls(usage) == {"judge": (12, 0), "subject": (12, 0)}
    assert calls(merged_usage) == {"judge": (0, 12), "subject": (12, 0)}
    assert {c["n_trials"] for c in merged["models"][MODEL]["conditions"].values()} == {6}


def test_a_malformed_shard_is_one_line(workdir: Path) -> None:
    for bad in ("3/2", "0/2", "a/b", "1"):
        code, output = run_cli("losona", "run", "--model", MODEL, "--shard", bad)
        assert code == 2, output
        assert output.strip().splitlines()[-1].startswith("normlab: error: --shard")


def test_a_role_spread_over_two_endpoints_uses_both(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ExitStack() as stack:
        first, second = (
            stack.enter_context(serving(workdir / name, SCRIPT, monkeypatch, latency=0.05))
            for name in ("first", "second")
        )
        spread = f"spread/{model_name(first)}+{model_name(second)}"
        code, output = run_cli(
            "losona", "run", "--model", spread, "--judge", spread, "--data", str(SCENARIOS),
            "-c", "naive", "--log-dir", str(workdir / "logs"), "--max-connections", "4",
        )  # fmt: skip
        assert code == 0, output
        served = [first.stats()["replies"], second.stats()["replies"]]
    assert min(served) > 0
    analysis = _analysis(workdir / "logs")
    assert analysis["models"][spread]["conditions"]["naive"]["n_trials"] == 6
    calls = sum(role["calls"] for role in analysis["usage"][spread]["roles"].values())
    assert sum(served) == calls  # the judge's verdicts are cached, so some calls repeat none
