"""Per-role usage from Inspect logs, including cost when Inspect priced the calls."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.log import read_eval_log, write_eval_log

from normlab.core.logs import read_samples
from normlab.models.usage import RoleUsage, usage_by_role
from tests.losona.conftest import SCENARIOS, SCRIPT, run_cli


def usage_of(path: Path) -> dict[str, RoleUsage]:
    return usage_by_role(item.sample for item in read_samples([path]).samples)


def test_usage_sums_calls_tokens_and_known_costs(workdir: Path) -> None:
    code, output = run_cli(
        "losona", "run", "--model", f"scripted/{SCRIPT}", "--judge", f"scripted/{SCRIPT}",
        "--data", str(SCENARIOS), "-c", "naive", "--epochs", "1",
        "--log-dir", str(workdir / "logs"),
    )  # fmt: skip
    assert code == 0, output
    assert "cost unknown" in output
    (path,) = sorted((workdir / "logs").glob("*.eval"))
    usage = usage_of(path)
    assert usage["subject"].calls == usage["judge"].calls == 2
    assert usage["subject"].cost is None
    # Price every judge call at $0.01, as Inspect does for models it knows: it records the
    # cost in the sample's usage by role and by model.
    log = read_eval_log(str(path))
    for sample in log.samples or []:
        sample.role_usage["judge"].total_cost = 0.01
        for model_usage in sample.model_usage.values():
            model_usage.total_cost = 0.01
    write_eval_log(log, str(path))
    priced = usage_of(path)
    assert priced["judge"].cost is not None and abs(priced["judge"].cost - 0.02) < 1e-9


def test_the_retried_error_names_are_the_errors_structured_output_retries() -> None:
    from normlab.core.logs import UNUSABLE_ERROR_NAMES
    from normlab.models.structured import unusable_errors

    assert tuple(error.__name__ for error in unusable_errors()) == UNUSABLE_ERROR_NAMES


def test_cache_hits_are_counted_apart_with_their_tokens(workdir: Path) -> None:
    """The judge answers at temperature 0 through Inspect's cache: a second run of the same
    trials makes no judge call, and its usage table says so instead of showing 0 tokens."""
    from normlab.models.usage import RunUsage
    from normlab.report.sections import usage_table

    def run(folder: str) -> dict[str, RoleUsage]:
        code, output = run_cli(
            "losona", "run", "--model", f"scripted/{SCRIPT}", "--judge", f"scripted/{SCRIPT}",
            "--data", str(SCENARIOS), "-c", "naive", "--epochs", "1",
            "--log-dir", str(workdir / folder),
        )  # fmt: skip
        assert code == 0, output
        (path,) = sorted((workdir / folder).glob("*.eval"))
        return usage_of(path)

    first = run("first")
    again = run("again")
    assert (first["judge"].calls, first["judge"].cache_hits) == (2, 0)
    assert first["judge"].input_tokens > 0 and first["judge"].output_tokens > 0
    # Both judge calls of the rerun came from the cache: no call, no billed token, and the
    # tokens their answers cost the first time are kept beside them.
    assert (again["judge"].calls, again["judge"].cache_hits) == (0, 2)
    assert again["judge"].input_tokens == again["judge"].output_tokens == 0
    assert again["judge"].cache_hit_input_tokens == first["judge"].input_tokens
    assert again["judge"].cache_hit_output_tokens == first["judge"].output_tokens
    # The subject is not cached (it samples), so it is called again.
    assert (again["subject"].calls, again["subject"].cache_hits) == (2, 0)
    table = usage_table({"m": RunUsage(units=2, roles=again)}, "sample")
    judge_row = next(row for row in table.rows if row[1] == "judge")
    hits = table.header.index("cache hits")
    assert judge_row[hits] == "2"
    assert judge_row[hits + 1] == (f"{first['judge'].input_tokens}/{first['judge'].output_tokens}")
