"""The Compare page (issue 23 item 4): a study's report under the served folder, read-only,
with the same numbers as ``normlab study report --json``; every request taken as hostile."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from normlab.web import create_app
from tests.study.test_study import invoke, study_file
from tests.web.conftest import INJECTED, TOKEN, local, settings_for

pytestmark = pytest.mark.slow  # the scripted study runs once per module (about 10 s)


@pytest.fixture(scope="module")
def study_root(session_env: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scripted study run and reported into a served folder: ``study.yaml`` beside its
    ``out`` (which holds ``study-report.json``)."""
    root = tmp_path_factory.mktemp("compare") / "runs"
    root.mkdir()
    path = study_file(root)
    for command in ("run", "report"):
        code, _, err = invoke(command, path)
        assert code == 0, err
    return root


@pytest.fixture
def served(study_root: Path, tmp_path: Path) -> Path:
    """A private copy (tests add files to it)."""
    root = tmp_path / "runs"
    shutil.copytree(study_root, root)
    (root / "study.yaml").write_text(
        (root / "study.yaml").read_text().replace(str(study_root), str(root))
    )
    return root


def client_for(root: Path) -> TestClient:
    return local(create_app(settings_for(root)))


def test_the_index_lists_the_study_file_and_its_report(served: Path) -> None:
    client = client_for(served)
    assert 'href="/compare"' in client.get("/").text  # a link from the runs page
    page = client.get("/compare")
    assert page.status_code == 200
    assert 'href="/compare/study?path=study.yaml"' in page.text
    assert 'href="/compare/study?path=out/study-report.json"' in page.text
    assert ".normlab" not in page.text  # the app's state folder is never searched


def test_the_page_shows_ranking_paired_differences_and_the_json_is_the_reports(
    served: Path,
) -> None:
    client = client_for(served)
    written = json.loads((served / "out" / "study-report.json").read_text())
    for path in ("out/study-report.json", "study.yaml"):
        page = client.get("/compare/study", params={"path": path})
        assert page.status_code == 200, page.text
        for heading in ("losona: accuracy (norm_informed)", "scene: repair rate", "hsii: HSII"):
            assert heading in page.text
        assert page.text.count("scripted-a − scripted-b") == 3  # paired, every system
        assert page.text.count("family-wise 95% CI (Bonferroni)") == 3  # a column per system
        assert page.text.count("(Bonferroni, α/m") == 3  # and its note
        assert "paper [95% CI] (n)" in page.text
        # The same StudyReport as `study report --json`, from the file or computed anew.
        assert client.get("/compare/json", params={"path": path}).json() == written


def test_judges_agreement_shows_when_a_system_has_two_judges(served: Path) -> None:
    report = json.loads((served / "out" / "study-report.json").read_text())
    report["systems"][0]["judges"] = [
        {
            "original": "judge-one",
            "judge": "judge-two",
            "items": "trials",
            "agreement": {
                "n": 4,
                "rate": {"value": 0.75, "ci": [0.3, 0.95], "n": 4, "k": 3},
                "cohen_kappa": 0.5,
                "both_true": 1,
                "both_false": 2,
                "first_true_second_false": 1,
                "first_false_second_true": 0,
            },
            "kappa": {"value": 0.5, "ci": [-0.2, 1.0], "n": 4},
            "clusters": 2,
            "original_ranking": ["scripted-a", "scripted-b"],
            "ranking": [
                {"rank": 1, "subject": "scripted-b", "value": 0.9, "ci": [0.5, 1.0], "n": 2},
                {"rank": 2, "subject": "scripted-a", "value": 0.1, "ci": [0.0, 0.5], "n": 2},
            ],
            "changed": True,
            "kendall_tau": None,
            "missing": [],
        }
    ]
    (served / "two").mkdir()
    (served / "two" / "study-report.json").write_text(json.dumps(report))
    page = client_for(served).get("/compare/study", params={"path": "two/study-report.json"})
    assert page.status_code == 200, page.text
    assert "judge-one vs judge-two" in page.text and "ranking by judge-two" in page.text
    assert "0.500 [-0.200, 1.000]" in page.text  # κ with its interval
    assert "<td>yes</td>" in page.text  # the ranking changes


def test_text_from_a_report_stays_text_and_credentials_are_redacted(served: Path) -> None:
    report = json.loads((served / "out" / "study-report.json").read_text())
    report["study"] = f"{INJECTED} https://user:hunter2@example.org/x"
    report["systems"][0]["subjects"][0]["subject"] = INJECTED
    (served / "evil").mkdir()
    (served / "evil" / "study-report.json").write_text(json.dumps(report))
    client = client_for(served)
    for url in ("/compare", "/compare/study?path=evil/study-report.json"):
        page = client.get(url)
        assert page.status_code == 200, page.text
        assert "<script>window.pwned" not in page.text and "&lt;script&gt;" in page.text
        assert "hunter2" not in page.text
    assert "hunter2" not in client.get("/compare/json?path=evil/study-report.json").text


@pytest.mark.parametrize(
    "path",
    [
        "../../../../etc/passwd",
        "/etc/passwd",
        "out/../../outside.yaml",
        "nul\x00.yaml",
        "out/losona",  # a folder, not a study
        "out/plan.json",
        "missing.yaml",
        "x" * 5000,
    ],
)
def test_a_hostile_path_is_a_400_never_a_500(served: Path, path: str) -> None:
    response = client_for(served).get("/compare/study", params={"path": path})
    assert response.status_code in (400, 404), (path, response.status_code)


def test_a_study_whose_out_lies_elsewhere_is_refused(served: Path, tmp_path: Path) -> None:
    text = (served / "study.yaml").read_text()
    (served / "away.yaml").write_text(text.replace(str(served / "out"), str(tmp_path / "else")))
    (served / "bucket.yaml").write_text(text.replace(str(served / "out"), "s3://bucket/study"))
    (served / "broken").mkdir()
    (served / "broken" / "study-report.json").write_text("{not json")
    client = client_for(served)
    for path, expected in (
        ("away.yaml", "not under the served folder"),
        ("bucket.yaml", "object storage"),
        ("broken/study-report.json", "not a study report"),
    ):
        response = client.get("/compare/study", params={"path": path})
        assert response.status_code == 400 and expected in response.text, path
    assert "not a study report" in client.get("/compare").text  # listed, with what is wrong


def test_compare_is_the_owners_and_read_only(served: Path) -> None:
    guarded = local(create_app(settings_for(served, owner_token=TOKEN)))
    for url in ("/compare", "/compare/study?path=study.yaml", "/compare/json?path=study.yaml"):
        assert guarded.get(url).status_code == 403, url
    client = client_for(served)
    before = sorted(p for p in served.rglob("*") if ".normlab" not in p.parts)
    assert client.post("/compare/study?path=study.yaml").status_code in (403, 405)
    client.get("/compare/study", params={"path": "study.yaml"})
    assert sorted(p for p in served.rglob("*") if ".normlab" not in p.parts) == before
    response = client.get("/compare", headers={"Host": "attacker.example"})
    assert response.status_code == 400
