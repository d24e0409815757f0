"""Credentials out of every file normlab or Inspect writes: one redaction, applied at each boundary.

A self-hosted endpoint is often reached as ``SERVICE_BASE_URL=https://user:PASSWORD@host/v1``
or with a signed query (``?sig=…``, ``?api_key=…``). Inspect records every role's
``base_url`` in the ``.eval`` header, its ``_journal/start.json`` and the eval set's
``logs.json``, all world-readable, and ``normlab serve`` hands them to anyone who can reach
it; Inspect's trace file logs every request's URL; an error message naming the URL carried it
into terminals, CI logs and reports.

[`redact_url`][normlab.core.redact_url] keeps what says *where* (scheme, host, port, path, harmless
parameters) and replaces what *authenticates* (the user-info's password or token, secret query
parameters) with ``***``; [`redact_text`][normlab.core.redact_text] does the same for every URL
inside a text, and also hides the values of the process's secret-named environment variables
(``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*_PASSWORD``…) should one ever reach a message.

The provider still gets the real URL: redaction happens where things are written, never
where requests are sent. The write boundaries are Inspect's log and log records
([`guard_inspect_logs`][normlab.core.guard_inspect_logs]: before the header, the journal, the log
index or a line of Inspect's trace file is written), the report
([`normlab.report.HtmlReport.write`][normlab.report.HtmlReport.write]), and every line a command
prints or reports as an error (``normlab.runs.console``, ``normlab.core.progress``).

Why not Inspect's public hooks (``inspect_ai.hooks.Hooks``), measured on inspect_ai 0.3.285
(``normlab/losona`` against a loopback endpoint whose ``base_url`` carries a password, the
task-logger redaction switched off, a ``Hooks`` subscriber scanning every byte of the log folder
at each hook): ``on_run_start`` runs before the spec exists (``RunStart`` names the tasks only);
by ``on_task_start`` Inspect has already built the spec and written it, credentials and all, to
the ``.eval``'s ``_journal/start.json`` (``TaskLogger.init`` then ``log_start`` run first), and
``TaskStart.spec`` is documented "do not mutate" (redacting it there anyway cleans the final
header but leaves ``start.json`` holding the password); ``on_sample_end``/``on_task_end`` are
later still. No hook sees a log record at all (``on_sample_event`` gets the transcript's events,
framework-owned, after they are recorded; the trace file is written by a logging handler). So
the two mechanisms that run early enough stay, each as small as it can be: a wrapper of
``TaskLogger.__init__`` that redacts a normlab task's spec the moment it is built, and a
log-record factory (the standard library's public hook, the one place every record passes
through). ``tests/core/test_secrets.py`` keeps the measurement: it fails, saying to move the
redaction into ``on_task_start``, the day Inspect's hook runs before the spec is written.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from inspect_ai.log import EvalSpec

REDACTED = "***"

_SECRET_PARAMETER = re.compile(
    r"^(?:.*[_-])?(?:key|apikey|token|secret|password|passwd|pwd|pass|sig|signature|"
    r"credential|auth|authorization|session|sas)$",
    re.IGNORECASE,
)
"""Query or fragment parameters whose value authenticates: ``key``, ``api_key``, ``token``,
``access_token``, ``client_secret``, ``sig`` (Azure SAS), ``X-Amz-Signature``,
``X-Amz-Credential``, ``X-Amz-Security-Token``, ``X-Goog-Signature``… (matched on the last
word, so ``keyword`` or ``tokenizer`` are kept)."""

_PARAMETER = re.compile(r"(?P<lead>^|[&;])(?P<name>[^=&;]+)=(?P<value>[^&;]*)")

_URL_IN_TEXT = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>\\`]+")
"""A URL inside free text or a JSON document: it ends at white space, a quote, a bracket of
HTML or a backslash (a JSON escape), so a redaction never crosses into the next value."""

_SECRET_NAME = re.compile(r"(?:API_?KEY|_KEY|SECRET|TOKEN|PASSWORD|PASSWD)(?:_|$)", re.IGNORECASE)
"""Environment variables whose value is a credential (``OPENAI_API_KEY``, ``HF_TOKEN``,
``AWS_SECRET_ACCESS_KEY``, ``SERVICE_API_KEY``…)."""
MIN_SECRET_LENGTH = 8
"""Shorter values (``1``, ``true``, ``none``) would hide ordinary words, not secrets."""


def _redact_parameters(text: str) -> str:
    """``a=1&token=abc`` as ``a=1&token=***``."""

    def hide(found: re.Match[str]) -> str:
        name = found["name"]
        if not found["value"] or not _SECRET_PARAMETER.match(name.strip()):
            return found.group(0)
        return f"{found['lead']}{name}={REDACTED}"

    return _PARAMETER.sub(hide, text)


def redact_url(url: str) -> str:
    """``url`` with the credentials it carries replaced by ``***``: a password in the
    user-info (``user:***@host``), a user-info without one (a token used as the user name:
    ``***@host``), and secret query or fragment parameters (``?sig=***``). Anything that is
    not a URL with a host comes back unchanged."""
    if "://" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:  # a malformed port or bracket: hide everything before the host
        return re.sub(r"://[^/@]*@", f"://{REDACTED}@", url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:{REDACTED}@{host}" if colon and user else f"{REDACTED}@{host}"
    query, fragment = _redact_parameters(parts.query), _redact_parameters(parts.fragment)
    if (netloc, query, fragment) == (parts.netloc, parts.query, parts.fragment):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the secret-named environment variables (longest first, so one that
    contains another is hidden whole)."""
    values = {
        value
        for name, value in (os.environ if environ is None else environ).items()
        if len(value) >= MIN_SECRET_LENGTH and _SECRET_NAME.search(name) and value.strip()
    }
    return sorted(values, key=len, reverse=True)


def redact_urls(text: str) -> str:
    """``text`` with every URL in it passed through [`redact_url`][normlab.core.redact_url] (a fast
    no-op for text without one: it runs on every log record a run makes)."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda found: redact_url(found.group(0)), text)


def redact_text(text: str) -> str:
    """``text`` with every URL in it redacted (``redact_urls``) and every secret
    environment value (``secret_values``) replaced by ``***``."""
    text = redact_urls(text)
    for value in secret_values():
        if value in text:
            text = text.replace(value, REDACTED)
    return text


ValueT = TypeVar("ValueT")


def redact_value(value: ValueT) -> ValueT:
    """A JSON-like value (dicts, lists, tuples, strings) with
    [`redact_text`][normlab.core.redact_text] applied to every string in it, keys included; other
    values as they are."""
    redacted: Any
    if isinstance(value, str):
        redacted = redact_text(value)
    elif isinstance(value, dict):
        redacted = {redact_value(key): redact_value(item) for key, item in value.items()}
    elif isinstance(value, list):
        redacted = [redact_value(item) for item in value]
    elif isinstance(value, tuple):
        redacted = tuple(redact_value(item) for item in value)
    else:
        redacted = value
    return redacted  # type: ignore[no-any-return]


def _redact_spec(spec: EvalSpec) -> None:
    """The model fields of an Inspect ``EvalSpec``, redacted in place: the eval model's
    ``model_base_url`` and ``model_args``, and each role's ``base_url`` and ``args``."""
    if spec.model_base_url:
        spec.model_base_url = redact_url(spec.model_base_url)
    spec.model_args = redact_value(spec.model_args)
    for configs in (spec.model_roles or {}).values():
        for config in configs if isinstance(configs, list) else [configs]:
            if config.base_url:
                config.base_url = redact_url(config.base_url)
            config.args = redact_value(config.args)


_GUARDED = "__normlab_redacts__"


def _redact_spec_when_built() -> None:
    """Inspect's task logger builds the spec it writes once per task, from the live models;
    redact a normlab task's as soon as it is built, before anything is written (Inspect's
    ``on_task_start`` hook runs after ``_journal/start.json`` is written: see the module)."""
    try:
        from inspect_ai._eval.task.log import TaskLogger
    except ImportError:  # an Inspect that moved it: runs still work; tests/test_secrets.py fails
        return
    original: Callable[..., None] = TaskLogger.__init__
    if getattr(original, _GUARDED, False):
        return

    @functools.wraps(original)
    def init(self: TaskLogger, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if is_normlab_task(self.eval):
            _redact_spec(self.eval)

    setattr(init, _GUARDED, True)
    TaskLogger.__init__ = init  # type: ignore[method-assign]


def _redact_log_records() -> None:
    """Every normlab log record made from now on carries its URLs redacted. Inspect logs each HTTP
    response as ``POST http://user:PASSWORD@host/v1/chat/completions "HTTP/1.1 200 OK"`` to its
    trace file (``~/.local/share/inspect_ai/traces``), and records at the transcript level go
    into the ``.eval`` log; the record is the one place all of them pass through."""
    original = logging.getLogRecordFactory()
    if getattr(original, _GUARDED, False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = original(*args, **kwargs)
        if not _ours():
            return record
        try:
            message = record.getMessage()
        except Exception:  # a malformed record fails where it is formatted, as it would have
            return record
        redacted = redact_urls(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
            record.exc_text = redact_urls(logging.Formatter().formatException(record.exc_info))
        return record

    setattr(factory, _GUARDED, True)
    logging.setLogRecordFactory(factory)


NORMLAB_TASKS = "normlab/"
"""What every normlab task's registry name starts with (``normlab/losona``…), as Inspect
records it in a log's header and names a running sample's task."""

_whole_process = False
"""Set by normlab's own runs: every log record of this process is normlab's to redact."""


def guard_inspect_logs(scoped: bool = False) -> None:
    """Make Inspect write normlab's tasks' specs (each model's base URL and arguments) and
    normlab's log lines with credentials redacted.

    Inspect builds the spec it writes (the ``.eval`` header, ``_journal/start.json``, and
    through the headers the eval set's ``logs.json``) once per task from the live models:
    each role's ``base_url`` as the provider resolved it, credentials and all. A normlab
    task's spec is redacted as soon as it is built, while the providers, already built, keep
    sending requests to the real URL. Inspect resumes an eval set with the models it is given
    (not those a log names, and a role's ``base_url`` is no part of a task's identity), so a
    redacted log resumes as before. Log records (Inspect's trace file, the transcript's log
    events) are redacted as they are made.

    Nothing is installed until normlab runs something: loading normlab's Inspect entry point
    changes nothing. ``scoped`` (a normlab task being built, as ``inspect eval normlab/…``
    does, in a process that may run other tasks too): only normlab tasks' specs, and the log
    records made while a normlab task's sample runs, are redacted; another task's are left as
    Inspect writes them. Unscoped (a normlab command or program running a system, the model
    client, the checks: the process is normlab's): every log record too. Idempotent, cheap.
    """
    global _whole_process
    if not scoped:
        _whole_process = True
    _redact_spec_when_built()
    _redact_log_records()


def is_normlab_task(spec: EvalSpec) -> bool:
    """Whether a log's spec is a normlab task's (its registry name, or its name)."""
    name = spec.task_registry_name or spec.task or ""
    return name.startswith(NORMLAB_TASKS)


def _in_normlab_sample() -> bool:
    """Whether the record is being made inside a running sample of a normlab task."""
    from inspect_ai.log._samples import sample_active

    active = sample_active()
    return active is not None and active.task.startswith(NORMLAB_TASKS)


def _ours() -> bool:
    """Whether a log record made now is normlab's: in its own process, or inside one of its
    samples."""
    try:
        return _whole_process or _in_normlab_sample()
    except ImportError:  # an Inspect that moved it: redact, as a normlab run would
        return True
