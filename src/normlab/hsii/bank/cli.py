"""``normlab hsii news search`` and ``normlab hsii build``: HSII's data pipeline, command line.

Light at import, like ``normlab.hsii.cli``: each command imports what it needs when it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from normlab.commands.options import JsonOption, RoleOption, option_group, option_parameter
from normlab.core.errors import InputError, at_least
from normlab.models.roles import DEFAULT_MODEL, parse_role_assignments
from normlab.runs.console import note, print_json, print_table, reports_errors, say

if TYPE_CHECKING:
    from normlab.hsii.bank.news import FieldMap, Filters

BUILD_ROLES = ("generator", "screener")


KeywordsOption = Annotated[
    list[str],
    typer.Option("--keywords", help="A keyword or two-word phrase (repeatable; the paper: 1–2)."),
]
CorpusOption = Annotated[
    str | None,
    typer.Option(
        help="News corpus: JSONL, CSV or Parquet, a path or an fsspec URL.",
        show_default="the shipped 100-item seed corpus",
    ),
]
SinceOption = Annotated[str | None, typer.Option(help="Published on or after (YYYY-MM-DD).")]
UntilOption = Annotated[str | None, typer.Option(help="Published on or before (YYYY-MM-DD).")]
SourceOption = Annotated[str | None, typer.Option(help="Only this source (exact, any case).")]
LanguageOption = Annotated[str | None, typer.Option(help="Only this language code.")]
IdField = Annotated[str, typer.Option(help="Corpus column of the item id (else derived).")]
TitleField = Annotated[str, typer.Option(help="Corpus column of the headline.")]
TextField = Annotated[str, typer.Option(help="Corpus column of the text (required).")]
DateField = Annotated[str, typer.Option(help="Corpus column of the publication date.")]
SourceField = Annotated[str, typer.Option(help="Corpus column of the source.")]
LanguageField = Annotated[str, typer.Option(help="Corpus column of the language.")]
DomainField = Annotated[str, typer.Option(help="Corpus column of the domain or category.")]


def _corpus(corpus: str | None) -> str:
    from normlab.hsii.dataset import NEWS_PATH

    return corpus or str(NEWS_PATH)


def _fields(
    id_field: str,
    title_field: str,
    text_field: str,
    date_field: str,
    source_field: str,
    language_field: str,
    domain_field: str,
) -> FieldMap:
    from normlab.hsii.bank.news import FieldMap

    return FieldMap(
        id=id_field,
        title=title_field,
        text=text_field,
        date=date_field,
        source=source_field,
        language=language_field,
        domain=domain_field,
    )


def _filters(
    since: str | None, until: str | None, source: str | None, language: str | None
) -> Filters:
    from normlab.hsii.bank.news import Filters, parse_date

    return Filters(
        since=parse_date(since, "--since"),
        until=parse_date(until, "--until"),
        source=source,
        language=language,
    )


FIELD_OPTIONS = [
    option_parameter("id_field", IdField, "id"),
    option_parameter("title_field", TitleField, "title"),
    option_parameter("text_field", TextField, "text"),
    option_parameter("date_field", DateField, "date"),
    option_parameter("source_field", SourceField, "source"),
    option_parameter("language_field", LanguageField, "language"),
    option_parameter("domain_field", DomainField, "domain"),
]
"""The corpus column options, shared by ``news search`` and ``build`` as one ``fields``."""
FILTER_OPTIONS = [
    option_parameter("since", SinceOption, None),
    option_parameter("until", UntilOption, None),
    option_parameter("source", SourceOption, None),
    option_parameter("language", LanguageOption, None),
]
"""The news filters, shared by ``news search`` and ``build`` as one ``filters``."""


GROUP_STANDINS = {"FieldMap": object, "Filters": object}
"""Typer reads every annotation; the groups' own (names imported only for type checking, so
``normlab.hsii.bank.news`` stays unimported) are replaced by their options and never reach it."""


with_fields = option_group("fields", FIELD_OPTIONS, _fields, GROUP_STANDINS)
with_filters = option_group("filters", FILTER_OPTIONS, _filters, GROUP_STANDINS)


def add_build_commands(app: typer.Typer) -> None:
    """Mount ``news search`` and ``build`` on HSII's app."""
    news_app = typer.Typer(help="Offline news corpora: keyword retrieval.", no_args_is_help=True)
    app.add_typer(news_app, name="news")

    @news_app.command("search")
    @reports_errors
    @with_fields
    @with_filters
    def news_search(
        keywords: KeywordsOption,
        corpus: CorpusOption = None,
        *,
        filters: Filters,
        top: Annotated[int, typer.Option(help="How many items.")] = 10,
        fields: FieldMap,
        as_json: JsonOption = False,
    ) -> None:
        """Rank a news corpus by the keywords (TF-IDF cosine) after date/source/language filters."""
        at_least("--top", top, 1)
        from normlab.hsii.bank.news import read_corpus, search

        hits = search(read_corpus(_corpus(corpus), fields), keywords, filters, top)
        if as_json:
            print_json({"hits": [hit.model_dump(mode="json") for hit in hits]})
            return
        for hit in hits:
            item = hit.item
            meta = ", ".join(part for part in (item.date, item.source, item.language) if part)
            say(
                f"{hit.rank:3d}  {hit.score:.3f}  {item.id}  {item.title}"
                + (f"  ({meta})" if meta else "")
            )
        note(f"{len(hits)} item(s) for {', '.join(keywords)}")

    @app.command("build")
    @reports_errors
    @with_fields
    @with_filters
    def hsii_build(
        keywords: KeywordsOption,
        out: Annotated[Path, typer.Option(help="Build folder (rerun on it to resume).")],
        corpus: CorpusOption = None,
        k: Annotated[
            int, typer.Option("--k", help="Prompt-1 scenarios sampled per news item.")
        ] = 3,
        keep: Annotated[int, typer.Option(help="Best scenarios kept per news item.")] = 1,
        model: Annotated[
            str, typer.Option(help="Model of every role not set by --role.")
        ] = DEFAULT_MODEL,
        role: RoleOption = None,
        top: Annotated[int, typer.Option(help="News items retrieved.")] = 20,
        limit: Annotated[
            int | None, typer.Option(help="Only the N best-ranked screened items get scenarios.")
        ] = None,
        repairs: Annotated[
            int, typer.Option(help="Repair rounds per generated scene or dialogue.")
        ] = 1,
        duplicate_cosine: Annotated[
            float, typer.Option(help="TF-IDF cosine at which two items are one story.")
        ] = 0.8,
        encoder: Annotated[
            str, typer.Option(help="Cluster encoder: 'minilm', 'tfidf' or a model folder.")
        ] = "minilm",
        *,
        filters: Filters,
        fields: FieldMap,
        as_json: JsonOption = False,
    ) -> None:
        """News → dedupe → clusters → toxicity screen → top-k scenarios → dialogues → cases."""
        from normlab.hsii.bank.news import checked_keywords

        checked_keywords(keywords)  # before any folder or call
        for option, value, minimum in (
            ("--k", k, 1), ("--keep", keep, 1), ("--top", top, 1), ("--limit", limit, 1),
            ("--repairs", repairs, 0),
        ):  # fmt: skip
            at_least(option, value, minimum)
        if keep > k:
            raise InputError("--keep", f"keeps {keep} of {k} scenarios: at most --k", field="keep")
        if not 0.0 < duplicate_cosine <= 1.0:
            raise InputError("--duplicate-cosine", "must lie in (0, 1]", field="duplicate_cosine")
        from normlab.hsii.bank.build import Build, BuildOptions, model_resolver, stage_rows
        from normlab.models.preflight import check_models
        from normlab.report import embedded_banner
        from normlab.report.html import Table
        from normlab.runs.console import note as progress

        models = {name: model for name in BUILD_ROLES}
        for name, bound in parse_role_assignments(role or []).items():
            if name not in BUILD_ROLES:
                raise InputError(
                    "--role",
                    f"unknown role {name!r}; roles: {', '.join(BUILD_ROLES)}",
                    field="role",
                )
            models[name] = bound
        options = BuildOptions(
            keywords=keywords,
            corpus=_corpus(corpus),
            fields=fields,
            filters=filters,
            top=top,
            limit=limit,
            k=k,
            keep=keep,
            repairs=repairs,
            duplicate_cosine=duplicate_cosine,
            encoder=encoder,
            models=models,
        )
        check_models({f"--role {name}": bound for name, bound in models.items()})
        build = Build(out, options, model_resolver(models))
        report = build.run(
            lambda summary: progress(f"stage {summary.stage}: {summary.items_out} out")
        )
        if as_json:
            print_json(report)
        else:
            print_table(
                Table(
                    "HSII build: items, drops, calls (this run), tokens in/out, cost",
                    ["stage", "in", "out", "dropped", "calls", "tokens", "cost"],
                    stage_rows(report),
                )
            )
            per_case = ", ".join(
                f"{stage} {'–' if value is None else value}"
                for stage, value in report.calls_per_case.items()
            )
            say(f"{report.dialogues} dialogues, {report.cases} cases; calls per case: {per_case}")
        if not report.cases:
            note(
                f"no case survived the build: every drop and its reason is in {out / 'drops.jsonl'}"
            )
        banner = embedded_banner({name: [bound] for name, bound in models.items()})
        if banner:
            note(f"Note: {banner}")
        note(f"bank: {(out / 'bank').resolve()}; report: {(out / 'build_report.json').resolve()}")
