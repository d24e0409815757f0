"""Shards in object storage (issue 12): each shard's eval-set writes to an ``s3://`` folder, and
one analysis of the bucket's folder gives the unsharded run's n and numbers.

The S3 server is moto's, on loopback (no network); it is reached the way any S3-compatible
store is, through ``AWS_ENDPOINT_URL``, by Inspect's writer and normlab's reader alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3

from normlab.core.storage import MANIFEST, mirror_folder
from tests.losona.conftest import SCENARIOS, SCRIPT, run_cli

MODEL = f"scripted/{SCRIPT}"
BASE = ["losona", "run", "--model", MODEL, "--judge", MODEL, "--data", str(SCENARIOS),
        "-c", "naive", "-c", "norm_informed"]  # fmt: skip


def analysis(*paths: str) -> dict[str, Any]:
    code, output = run_cli("losona", "analyze", *paths, "--json")
    assert code == 0, output
    value: dict[str, Any] = json.loads(output[output.index("{") :])
    return value


def keys(bucket: str) -> list[str]:
    listing = boto3.client("s3").list_objects_v2(Bucket=bucket.removeprefix("s3://"))
    return sorted(item["Key"] for item in listing.get("Contents", []))


def test_shards_written_to_a_bucket_analyze_as_the_unsharded_run(
    workdir: Path, bucket: str
) -> None:
    assert run_cli(*BASE, "--log-dir", str(workdir / "whole"))[0] == 0
    sweep = f"{bucket}/sweep"
    for part in ("1/2", "2/2"):
        code, output = run_cli(*BASE, "--log-dir", sweep, "--shard", part)
        assert code == 0, output
    logs = [key for key in keys(bucket) if key.endswith(".eval")]
    assert not [key for key in keys(bucket) if "normlab-write-check" in key]  # probes removed
    assert [key.split("/")[1] for key in logs] == ["shard-1-of-2", "shard-2-of-2"]
    # each shard's report goes beside the local mirror of its logs
    mirror = mirror_folder(sweep)
    assert mirror == Path("runs/remote/s3/sweeps/sweep")
    assert (mirror / "shard-1-of-2" / "report.html").exists()
    whole, merged = analysis(str(workdir / "whole")), analysis(sweep)
    usage, merged_usage = whole.pop("usage"), merged.pop("usage")
    assert merged == whole  # the same n and numbers, shard by shard summed

    def calls(value: dict[str, Any]) -> dict[str, int]:
        """Calls answered, made or from the cache (the shards repeat the whole run's judge
        verdicts at temperature 0, so theirs come from Inspect's cache)."""
        return {
            role: item["calls"] + item["cache_hits"] for role, item in value[MODEL]["roles"].items()
        }

    assert calls(merged_usage) == calls(usage)
    # reading again copies nothing that did not change; a shard run again resumes (nothing
    # left to do) and the analysis still counts every trial once
    copied = {path: path.stat().st_mtime_ns for path in mirror.rglob("*.eval")}
    assert analysis(sweep) == {**whole, "usage": merged_usage}
    assert {path: path.stat().st_mtime_ns for path in mirror.rglob("*.eval")} == copied
    assert run_cli(*BASE, "--log-dir", sweep, "--shard", "1/2")[0] == 0
    assert analysis(sweep)["models"] == whole["models"]
    manifest = json.loads((mirror / MANIFEST).read_text())
    assert sorted(name for name in manifest if name.endswith(".eval")) == sorted(
        key.removeprefix("sweep/") for key in keys(bucket) if key.endswith(".eval")
    )
    one = next(key for key in keys(bucket) if key.endswith(".eval"))
    assert analysis(f"{bucket}/{one}")["models"][MODEL]  # one log, named by its URL
    (mirror / MANIFEST).write_text("[]")
    code, output = run_cli("losona", "analyze", sweep)
    assert code == 2, output
    assert (
        output.strip()
        .splitlines()[-1]
        .endswith("not a mirror manifest (delete it to copy every file)")
    )


def test_a_bucket_that_cannot_be_written_or_read_is_one_line(workdir: Path, bucket: str) -> None:
    code, output = run_cli(*BASE, "--log-dir", "s3://no-such-bucket/sweep", "--shard", "1/2")
    assert code == 2, output
    line = output.strip().splitlines()[-1]
    assert line.startswith("normlab: error: s3://no-such-bucket/sweep/shard-1-of-2: --log-dir")
    assert "NoSuchBucket" in line or "does not exist" in line
    for path, problem in (
        (f"{bucket}/empty", "no files here"),
        ("s3://", "names no folder in object storage"),
        ("s3://sweeps/../x", "names no folder in object storage"),
    ):
        code, output = run_cli("losona", "analyze", path)
        assert code == 2, output
        assert output.strip().splitlines()[-1].startswith(f"normlab: error: {path}: {problem}")
