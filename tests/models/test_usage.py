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
