"""One redaction for every write: credentials in URLs and secret environment values become ***."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from inspect_ai.log import EvalSpec
from inspect_ai.model import GenerateConfig, ModelConfig

from normlab.core.secrets import (
    _redact_spec,
    guard_inspect_logs,
    redact_text,
    redact_url,
    redact_value,
    secret_values,
)
from normlab.core.storage import mirror_folder


@pytest.mark.parametrize(
    ("url", "redacted"),
    [
        ("http://user:s3cret@host:8000/v1", "http://user:***@host:8000/v1"),
        ("https://ghp_TOKEN1234@github.com/o/r.git", "https://***@github.com/o/r.git"),
        ("https://:only-password@host/v1", "https://***@host/v1"),
        ("http://user:p@ss:w@rd@host/v1", "http://user:***@host/v1"),
        (
            "https://acct.blob.core.windows.net/c/x.eval?sv=2022&sig=AbC%2Bd&se=2030",
            "https://acct.blob.core.windows.net/c/x.eval?sv=2022&sig=***&se=2030",
        ),
        (
            "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIA&X-Amz-Signature=ff&X-Amz-Expires=60",
            "https://b.s3.amazonaws.com/k?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Expires=60",
        ),
        (
            "http://h/v1?api_key=k1&key=k2&access_token=t",
            "http://h/v1?api_key=***&key=***&access_token=***",
        ),
        ("http://h/cb#access_token=t&state=1", "http://h/cb#access_token=***&state=1"),
    ],
)
def test_a_url_keeps_where_and_loses_what_authenticates(url: str, redacted: str) -> None:
    assert redact_url(url) == redacted
    assert redact_url(redacted) == redacted  # redacting twice changes nothing more


@pytest.mark.parametrize(
    "unchanged",
    [
        "http://127.0.0.1:8000/v1",
        "https://api.openai.com/v1?api-version=2024-02-01&keyword=x&tokenizer=bpe&country_code=fr",
        "s3://bucket/sweep/shard-1-of-2",
        "runs/hsii/model",
        "",
        "http://[::1:8000/v1",  # malformed: still no userinfo to hide
    ],
)
def test_a_url_without_credentials_is_left_as_it_is(unchanged: str) -> None:
    assert redact_url(unchanged) == unchanged


def test_every_url_in_a_text_or_a_json_document_is_redacted() -> None:
    text = (
        'model "m": cannot connect to host:8000 (http://u:pw1234567@host:8000/v1); retry '
        '{"base_url": "https://u:pw7654321@h/v1", "next": "value"}'
    )
    redacted = redact_text(text)
    assert "pw1234567" not in redacted and "pw7654321" not in redacted
    assert "(http://u:***@host:8000/v1);" in redacted
    assert '"base_url": "https://u:***@h/v1", "next": "value"' in redacted


def test_secret_environment_values_are_hidden_wherever_they_appear(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SERVICE_API_KEY", "sk-canary-0123456789")
    monkeypatch.setenv("HF_TOKEN", "hf_canary_abcdefgh")
    monkeypatch.setenv("SHORT_TOKEN", "abc")  # too short to be told from an ordinary word
    monkeypatch.setenv("HOME_FOLDER", "sk-canary-0123456789-not-secret-named")
    text = "Bearer sk-canary-0123456789 and hf_canary_abcdefgh; abc"
    assert redact_text(text) == "Bearer *** and ***; abc"
    values = secret_values()
    assert "abc" not in values and "sk-canary-0123456789" in values


def test_a_value_is_redacted_in_every_string_it_holds() -> None:
    value = {
        "http://u:pw@h/a": ["http://u:pw@h/b", ("http://u:pw@h/c", 3)],
        "n": None,
        "x": 1.5,
    }
    assert redact_value(value) == {
        "http://u:***@h/a": ["http://u:***@h/b", ("http://u:***@h/c", 3)],
        "n": None,
        "x": 1.5,
    }


def test_the_spec_inspect_writes_has_its_model_urls_and_arguments_redacted() -> None:
    spec = EvalSpec.model_construct(
        model="openai-api/svc/m",
        model_base_url="http://u:pw@h/v1",
        model_args={"endpoint": "http://u:pw@h/v2"},
        model_roles={
            "judge": ModelConfig(model="openai-api/svc/m", base_url="http://u:pw@h/v1"),
            "persona": [
                ModelConfig(model="a/b", config=GenerateConfig(), args={"x": "https://t@h/"}),
                ModelConfig(model="c/d"),
            ],
        },
    )
    _redact_spec(spec)
    assert spec.model_base_url == "http://u:***@h/v1"
    assert spec.model_args == {"endpoint": "http://u:***@h/v2"}
    roles = spec.model_roles or {}
    judge, persona = roles["judge"], roles["persona"]
    assert isinstance(judge, ModelConfig) and judge.base_url == "http://u:***@h/v1"
    assert isinstance(persona, list)
    assert persona[0].args == {"x": "https://***@h/"} and persona[1].base_url is None


def test_a_remote_log_folder_is_mirrored_under_a_name_without_its_credentials() -> None:
    assert mirror_folder("https://user:pw@host:9000/b/sweep?sig=abc") == Path(
        "runs/remote/https/host:9000/b/sweep"
    )
    assert mirror_folder("s3://bucket/sweep/") == Path("runs/remote/s3/bucket/sweep")


def test_log_records_carry_their_urls_redacted_once_guarded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Inspect logs each response's URL to its trace file; the record is redacted as made."""
    from inspect_ai._eval.task.log import TaskLogger

    guard_inspect_logs()
    factory, init = logging.getLogRecordFactory(), TaskLogger.__init__
    guard_inspect_logs()  # idempotent: one wrapper each, not two
    assert (logging.getLogRecordFactory(), TaskLogger.__init__) == (factory, init)
    logger = logging.getLogger("inspect_ai.model._providers.util.hooks")
    with caplog.at_level(logging.INFO, logger=logger.name):
        logger.info('%s %s "HTTP/1.1 200 OK"', "POST", "http://u:pw123456@h/v1/chat")
        logger.info("no URL here, %d args kept", 1)
    first, second = caplog.records
    assert first.getMessage() == 'POST http://u:***@h/v1/chat "HTTP/1.1 200 OK"'
    assert (second.msg, second.args) == ("no URL here, %d args kept", (1,))


def _run(code: str) -> list[str]:
    """``code`` in a fresh interpreter (this process's Inspect and logging may have been
    guarded already by another test); its printed lines."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout.split()


def test_loading_the_entry_point_patches_nothing_and_registers_no_hook() -> None:
    """Inspect loads normlab's entry point in any process that looks a task up in its
    registry; that process runs other tasks as Inspect made it (before: Inspect's private
    TaskLogger.__init__ patched, a global log-record factory and a progress hook installed)."""
    code = (
        "import logging\n"
        "from inspect_ai._eval.task.log import TaskLogger\n"
        "from inspect_ai.hooks._hooks import get_all_hooks\n"
        "factory, init = logging.getLogRecordFactory(), TaskLogger.__init__\n"
        "import normlab._registry\n"
        "print(logging.getLogRecordFactory() is factory, TaskLogger.__init__ is init,"
        " len(get_all_hooks()))\n"
    )
    assert _run(code) == ["True", "True", "0"]


def test_a_task_built_redacts_only_normlab_specs_and_records() -> None:
    """Building a normlab task (``inspect eval normlab/…``) guards normlab's logs only: a log
    record made outside a normlab task's samples keeps its URL, and a spec is redacted only
    when it is a normlab task's."""
    code = (
        "import logging\n"
        "from inspect_ai.log import EvalSpec\n"
        "from normlab.core.progress import normlab_task_built\n"
        "from normlab.core.secrets import is_normlab_task\n"
        "normlab_task_built()\n"
        "record = logging.getLogRecordFactory()('x', 20, 'f', 1, 'POST %s', ('http://u:pw@h/v1',),"
        " None)\n"
        "print(record.getMessage().split()[-1])\n"
        "ours = EvalSpec.model_construct(task='normlab/losona',"
        " task_registry_name='normlab/losona')\n"
        "other = EvalSpec.model_construct(task='mine/task', task_registry_name='mine/task')\n"
        "print(is_normlab_task(ours), is_normlab_task(other))\n"
    )
    assert _run(code) == ["http://u:pw@h/v1", "True", "False"]


def test_inspect_s_task_start_hook_runs_after_the_spec_with_its_urls_is_written() -> None:
    """Why the spec is redacted where Inspect's task logger builds it, not in a public
    ``Hooks.on_task_start``: when that hook runs, the log's ``_journal/start.json`` already
    holds each role's ``base_url`` whole (and ``TaskStart.spec`` is documented "do not
    mutate"). Should this fail, Inspect's hook now runs early enough: move the redaction there."""
    code = (
        "import tempfile, zipfile\n"
        "from pathlib import Path\n"
        "from inspect_ai import Task, eval\n"
        "from inspect_ai.dataset import Sample\n"
        "from inspect_ai.hooks import Hooks, TaskStart, hooks\n"
        "from inspect_ai.model import get_model\n"
        "from inspect_ai.solver import generate\n"
        "logs, found = Path(tempfile.mkdtemp()), []\n"
        "@hooks(name='probe', description='what is on disk at task start')\n"
        "class Probe(Hooks):\n"
        "    async def on_task_start(self, data: TaskStart) -> None:\n"
        "        for path in logs.rglob('*.eval'):\n"
        "            with zipfile.ZipFile(path) as archive:\n"
        "                found.extend(n for n in archive.namelist()"
        " if b'pw-0c4e9b21' in archive.read(n))\n"
        "model = get_model('mockllm/model', base_url='http://u:pw-0c4e9b21@127.0.0.1:9/v1')\n"
        "eval(Task(dataset=[Sample(input='hi')], solver=generate()), model=model,"
        " model_roles={'judge': model}, log_dir=str(logs), display='none')\n"
        "print(','.join(found) or '-')\n"
    )
    assert _run(code)[-1] == "_journal/start.json"
