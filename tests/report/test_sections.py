"""Report sections every system shares: banner, sources, usage and cost, formatting."""

from __future__ import annotations

from normlab.models import RoleUsage, RunUsage
from normlab.report import (
    HtmlReport,
    add_common_sections,
    add_usage_section,
    embedded_banner,
    format_delta,
    format_estimate,
    format_rate,
    sources_note,
    usage_table,
)
from normlab.stats import Estimate, Rate


def test_banner_names_the_roles_the_embedded_model_played() -> None:
    banner = embedded_banner(
        {"subject": ["openai/gpt-4o"], "judge": ["embedded/qwen2.5-coder-0.5b"], "persona": []}
    )
    assert banner is not None and "played: judge." in banner
    assert embedded_banner({"judge": ["openai/gpt-4o"]}) is None


def test_sources_say_what_was_counted_once() -> None:
    assert sources_note(["a.eval"]) == "Sources: a.eval."
    assert sources_note(["a.eval"], ["b.eval: 2 sample(s) already read"]).endswith(
        "Counted once: b.eval: 2 sample(s) already read."
    )


def test_usage_table_totals_and_per_unit() -> None:
    run = RunUsage(
        units=4,
        roles={
            "judge": RoleUsage(
                calls=6,
                input_tokens=1000,
                cached_input_tokens=250,
                output_tokens=80,
                cost=0.02,
                retries=3,
                cache_hits=2,
                cache_hit_input_tokens=300,
                cache_hit_output_tokens=30,
            ),
            "subject": RoleUsage(calls=4, input_tokens=400, output_tokens=40),
        },
    )
    table = usage_table({"m": run}, "episode")
    judge, subject = table.rows
    assert judge == [
        "m", "judge", "6", "1.5", "3", "1000", "250", "25%", "80", "20", "$0.0200", "2", "300/30"
    ]  # fmt: skip
    assert subject[10] == "cost unknown" and subject[7] == "0%" and subject[11:] == ["0", "0/0"]
    assert "calls/episode" in table.header


def test_formatting_keeps_n_and_interval() -> None:
    assert format_rate(Rate.of(2, 3)) == "66.7% [20.8, 93.9] (2/3)"
    assert format_estimate(Estimate(value=None, ci=(None, None), n=0)) == "–"
    rho = Estimate(value=-0.5, ci=(-0.9, 0.1), n=12)
    assert format_estimate(rho, digits=2, percent=False) == "-0.50 [-0.90, +0.10]"
    assert format_delta(Estimate(value=0.474, ci=(0.316, 0.632), n=38)) == "+47.4 pp [31.6, 63.2]"


def test_common_sections_escape_and_render() -> None:
    report = HtmlReport("t")
    add_common_sections(report, {"judge": ["embedded/x"]}, ["<script>.eval"])
    add_usage_section(report, {}, "trial")
    html = report.render()
    assert "&lt;script&gt;.eval" in html and "<script>" not in html
    assert "Usage and cost" not in html  # no usage, no section
