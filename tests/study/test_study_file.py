"""A study file a person mistyped, or one a hostile tester made (issue 32): each refused on
one line naming the file and the key, exit 2, before a dry run or a paid call; a read that
could hang or exhaust memory refused before it starts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from normlab.core.errors import InputError
from normlab.study.schema import load_study
from tests.helpers.hostile import BILLION_LAUGHS, fifo, finishes
from tests.study.test_study import EXAMPLE, invoke, study_file


def plan_error(folder: Path, text: str, *options: str) -> str:
    """``study plan`` of a study file holding ``text``: exit 2, one line naming the file (or
    the option given, where that is what is refused)."""
    path = study_file(folder, text)
    code, _, err = invoke("plan", path, *options)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert (options[0] if options else str(path)) in err, err
    return err


def edited(old: str, new: str) -> str:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # A role typo was dropped, and the judge ran on the embedded model.
        (("seed: 0\n", "seed: 0\nroles: {juge: openai/gpt-4o}\n"), "field 'roles.juge'"),
        (
            ("roles: {judge: scripted", "roles: {juge: scripted"),
            "field 'systems.losona.roles.juge': unknown role 'juge'; losona has: judge",
        ),
        (("max_connections: 8\n", "max_connections: 8\nmax_connections: 1\n"), "appears twice"),
        (("{input: 2.5, output: 10.0}", "{input: .inf, output: 10.0}"), "prices"),
        (("{input: 2.5, output: 10.0}", "{input: 1e308, output: 10.0}"), "100000"),
        (("out: ../runs/study-scripted", "out: ''"), "field 'out'"),
        (("out: ../runs/study-scripted", "out: ~nobody-normlab-32/x"), "home folder"),
        (("epochs: 2}", "epochs: three}"), "field 'systems.losona.options.epochs'"),
        (("reps: 1}", "reps: '1'}"), "field 'systems.scene.options.reps'"),
        (("epsilon: 2", "epsilonn: 2"), "field 'systems.hsii.options.epsilonn': unknown option"),
        (("max_connections: 8", "max_connections: 0"), "field 'max_connections'"),
        (("name: scripted-b", "name: scripted-a"), "used twice"),
        (("name: scripted\n", "name: [scripted\n"), "invalid YAML"),
        (("  hsii:\n    options", "  crsec:\n    options"), "field 'systems.crsec"),
    ],
)
def test_a_mistyped_study_file_is_one_line(
    workdir: Path, edit: tuple[str, str], expected: str
) -> None:
    assert expected in plan_error(workdir, edited(*edit))
    assert not (workdir / "out").exists()  # refused before anything ran


def test_a_negative_latency_is_refused(workdir: Path) -> None:
    assert "--latency" in plan_error(workdir, EXAMPLE.read_text("utf-8"), "--latency", "-1")
    assert "--latency" in plan_error(workdir, EXAMPLE.read_text("utf-8"), "--latency", "nan")


def test_a_study_file_that_is_not_utf8_names_the_line(workdir: Path) -> None:
    path = study_file(workdir)
    path.write_bytes(path.read_bytes().replace(b"name: scripted\n", b"name: scripted\xff\n"))
    code, _, err = invoke("plan", path)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "not UTF-8" in err and f"{path}:" in err


def test_out_under_the_home_folder_is_expanded(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``out: ~/x`` is the home folder's ``x``, as in a shell (it was a folder named ``~``
    beside the study file)."""
    monkeypatch.setenv("HOME", str(workdir / "home"))
    path = study_file(workdir, edited("out: ../runs/study-scripted", "out: ~/studies/x"))
    assert load_study(path).out == str(workdir / "home" / "studies" / "x")


def test_a_billion_laughs_study_file_is_refused_unexpanded(workdir: Path) -> None:
    """The aliases are counted as they are parsed, before anything is built from them: the
    refusal says by how much the document would have grown.

    By hand: ``a`` is 10 nodes (the list and its 9 strings); each next level is its list and
    9 copies of the one before, s(k) = 1 + 9 s(k-1): 10, 91, 820, 7,381, 66,430, 597,871,
    5,380,840, 48,427,561, 435,848,050, which sum to 490,329,054; with the root mapping and its
    9 keys the expanded document is 490,329,064 nodes. Written out are 28 (the root, 9 keys,
    ``a``'s 10, the 8 lists of aliases), so the aliases add 490,329,036."""
    path = workdir / "laughs.yaml"
    path.write_text(BILLION_LAUGHS)
    assert len(BILLION_LAUGHS.encode()) == 342
    with pytest.raises(InputError, match="expand the document by 490,329,036 values"):
        load_study(path)


def test_a_fifo_or_device_as_study_file_is_refused_before_reading(workdir: Path) -> None:
    with (
        fifo(workdir / "study.yaml") as path,  # no writer: a read would block for good
        pytest.raises(InputError, match="not a regular file"),
    ):
        finishes(lambda: load_study(path))
    zero = workdir / "zero.yaml"
    zero.symlink_to("/dev/zero")  # a read would never end
    with pytest.raises(InputError, match="not a regular file"):
        load_study(zero)
    big = workdir / "big.yaml"
    with big.open("wb") as handle:
        handle.truncate(2_000_000)  # sparse: its size says it all, no byte need be read
    with pytest.raises(InputError, match="2,000,000 bytes, over the"):
        load_study(big)


def test_study_plan_names_no_path_it_deleted(workdir: Path) -> None:
    """Each dry run's report was written into the plan's temporary folder and its path
    printed ("report: /tmp/normlab-plan-…/report.html"), then the folder deleted. Every
    report or plan path the plan prints now exists when it ends (the dry runs' progress lines
    still name their logs, which exist while those lines are printed)."""
    from tests.study.test_cells import write_study

    path = write_study(workdir, "out", crsec=False, shards=1)
    code, _, err = invoke("plan", path)
    assert code == 0, err
    printed = re.findall(r"^(?:report|plan): (/.+)$", err, flags=re.MULTILINE)
    assert printed == [str(workdir / "out" / "plan.json")], err
    assert all(Path(found).exists() for found in printed)
    assert "report.html" not in err
