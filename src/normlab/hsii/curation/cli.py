"""``normlab hsii import-dialogues`` (native dialogues, B.4's second source) and ``normlab hsii
curate export|import|apply`` (curation by people without the web app; the web app's
``hsii-curation`` study writes the same CSVs). Light at import, as every command module is."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from normlab.commands.options import JsonOption
from normlab.core.errors import InputError
from normlab.runs.console import note, print_json, report_findings, reports_errors, say

# import-dialogues' options and curate import's argument.
UtterancesArgument = Annotated[Path, typer.Argument(help="Utterances, one a row (JSONL or CSV).")]
NativeOutOption = Annotated[Path, typer.Option(help="Folder for dialogues.jsonl and cases.jsonl.")]
AssistantOption = Annotated[
    str | None,
    typer.Option(help="The speaker who plays the assistant (default: one so named)."),
]
DomainOption = Annotated[str, typer.Option(help="The dialogues' domain.")]
SceneOption = Annotated[str | None, typer.Option(help="Scene where the file has none.")]
RelationshipsOption = Annotated[
    str | None, typer.Option(help="Relationships where the file has none.")
]
TopicOption = Annotated[str | None, typer.Option(help="Topic where the file has none.")]
FilledCsvsArgument = Annotated[list[Path], typer.Argument(help="Filled curation CSVs.")]
SHOWN_UNKNOWN = 10
"""Decided items the bank does not hold, named one a line before the rest are counted."""


def add_curation_commands(app: typer.Typer) -> None:
    """Add ``import-dialogues`` and the ``curate`` group to HSII's app."""
    curate = typer.Typer(
        help="Curation by people: accept, amend or reject scenarios, dialogues and cases.",
        no_args_is_help=True,
    )
    app.add_typer(curate, name="curate")

    @app.command("import-dialogues")
    @reports_errors
    def import_dialogues_command(
        file: UtterancesArgument,
        out: NativeOutOption,
        assistant: AssistantOption = None,
        domain: DomainOption = "",
        scene: SceneOption = None,
        relationships: RelationshipsOption = None,
        topic: TopicOption = None,
    ) -> None:
        """Import native multi-party dialogues, cut them into cases and lint both; only what
        the linter passes is written (exit 1 when anything was left out)."""
        from normlab.hsii.bank.files import check_bank_out, write_bank
        from normlab.hsii.bank.native import Fill, import_bank

        imported = import_bank(file, Fill(assistant, domain, scene, relationships, topic))
        check_bank_out(out, [file])
        write_bank(out, imported.items())
        say(f"{imported.dialogues_kept} dialogues, {imported.cases_kept} cases: {out.resolve()}")
        report_findings(imported.findings, "lint: clean")

    @curate.command("export")
    @reports_errors
    def curate_export(
        bank: Annotated[Path, typer.Argument(help="Dialogue and case JSONL file or folder.")],
        out: Annotated[Path, typer.Option(help="CSV for curators.")] = Path("curation.csv"),
        n: Annotated[int | None, typer.Option("--n", help="Only N items, drawn.")] = None,
        seed: Annotated[int, typer.Option(help="Seed of the draw.")] = 0,
    ) -> None:
        """Write the bank's scenarios, dialogues and cases as a CSV to curate."""
        from normlab.core.csvio import key_path_for
        from normlab.core.outputs import apart_from_inputs
        from normlab.hsii.curation.criteria import CRITERIA
        from normlab.hsii.curation.decisions import export_curation

        apart_from_inputs(out, [bank], also=[key_path_for(out)])
        count = export_curation(bank, out, n, seed)
        say(f"{count} items: {out.resolve()}")
        say(
            "fill 'curator' (your name), 'curator_decision' (accept, amend or reject), "
            f"'curator_criteria' (those met, of {', '.join(CRITERIA)}) and, to amend, "
            "'curator_amended' (the item's text as you would have it)"
        )

    @curate.command("import")
    @reports_errors
    def curate_import(
        paths: FilledCsvsArgument,
        as_json: JsonOption = False,
    ) -> None:
        """Each curator's decisions, and agreement between curators."""
        from normlab.hsii.curation.decisions import analyze_curation, curation_agreement
        from normlab.report import format_agreement, format_rate

        results = {str(path): analyze_curation(path) for path in paths}
        agreement = curation_agreement(paths)
        if as_json:
            print_json(
                {
                    "curators": {k: v.model_dump(mode="json") for k, v in results.items()},
                    "agreement": agreement.model_dump(mode="json"),
                }
            )
            return
        for path, result in results.items():
            say(
                f"{path}: {result.decided} decided ({result.accepted} accepted, {result.amended} "
                f"amended, {result.rejected} rejected), {result.undecided} left blank"
            )
        for pair, rate in agreement.same_decision.items():
            say(
                f"{pair}: same decision {format_rate(rate)}; kept or rejected alike "
                f"{format_agreement(agreement.kept[pair])}"
            )

    @curate.command("apply")
    @reports_errors
    def curate_apply(
        paths: Annotated[list[Path], typer.Argument(help="Filled curation CSVs (study exports).")],
        bank: Annotated[Path, typer.Option(help="The bank the items came from.")],
        out: Annotated[Path, typer.Option(help="Folder for the curated bank.")],
        keep_unreviewed: Annotated[
            bool, typer.Option(help="Keep items no curator decided (default: leave them out).")
        ] = False,
    ) -> None:
        """Write the bank with only kept items, amendments applied, decisions in provenance."""
        from normlab.hsii.bank.files import check_bank_out, load_bank, write_bank
        from normlab.hsii.curation.apply import apply_curation
        from normlab.hsii.curation.decisions import read_curations
        from normlab.hsii.lint import lint_paths

        rows = read_curations(paths)
        if not rows:
            raise InputError(
                ", ".join(map(str, paths)),
                "no row has a decision: nothing to apply",
                field="curator_decision",
            )
        curated, summary = apply_curation(load_bank(bank), rows, keep_unreviewed)
        check_bank_out(out, [bank, *paths])
        for item in summary.not_in_bank[:SHOWN_UNKNOWN]:
            note(f"not in the bank, left aside: {item}")
        if len(summary.not_in_bank) > SHOWN_UNKNOWN:
            note(f"… and {len(summary.not_in_bank) - SHOWN_UNKNOWN} more items not in the bank")
        written = write_bank(out, [*curated.dialogues, *curated.cases])
        say(
            f"{summary.cases_kept} cases kept, {summary.cases_rejected} rejected, "
            f"{summary.cases_unreviewed} unreviewed left out; {summary.dialogues_kept} dialogues "
            f"kept; {summary.amendments} amendments: {out.resolve()}"
        )
        if curated.cases:
            _, findings = lint_paths(written, None)
            report_findings(findings, "lint: clean")
