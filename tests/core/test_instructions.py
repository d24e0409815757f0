"""An instruction file (``file:``) changes the wording and nothing else (issue 41, items 7 and
17): it may not tell the subject the hidden norm, show a placeholder more often than the paper
does, hold a look-alike of a placeholder that would reach the model unfilled, or carry bytes a
prompt file never holds; and ``rename:01`` is ``rename:1``."""

from __future__ import annotations

import hashlib
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import normlab.hsii.variants as hsii
import normlab.losona.variants as losona
import normlab.scene.variants as scene
from normlab.core.errors import InputError
from normlab.core.instructions import check_leak_words, check_placeholders
from normlab.core.templates import DOUBLE_BRACES, SINGLE_BRACES
from normlab.core.variants import (
    KINDS,
    VariantSpec,
    canonical_variant,
    parse_variant,
    read_instruction,
    variant_record,
)
from normlab.hsii.dataset import load_cases
from normlab.hsii.prompts import PROMPTS
from normlab.losona.dataset import load_scenarios
from normlab.losona.prompts import load_template as losona_template
from normlab.scene.dataset import load_scenarios as scene_scenarios
from normlab.scene.prompts import load_template as scene_template

LOSONA = losona_template("subject_base")
SCENE = scene_template("subject")
HSII = PROMPTS.load("testing")
LEAK = "The hidden norm of this group: every agreement includes a concrete deadline."


def _refusal(tmp_path: Path, content: str | bytes, system: object = losona) -> str:
    path = tmp_path / "reworded.txt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as error:
        variant_of = system.variant_of  # type: ignore[attr-defined]
        variant_of(f"file:{path}")
    line = error.value.one_line()
    assert "\n" not in line and str(path) in line, line
    return line


def test_the_papers_prompts_pass_their_own_check() -> None:
    """The check's baseline: each system's paper prompt, given as a file, is accepted as it is
    (SCENE's JSON shape and HSII's dict examples are single-brace text, no placeholder)."""
    for prompt, syntax in ((LOSONA, SINGLE_BRACES), (SCENE, DOUBLE_BRACES), (HSII, DOUBLE_BRACES)):
        path = Path("/nonexistent")  # never opened: the checks take the text
        check_placeholders(prompt, prompt, syntax, path, "variant")
        check_leak_words(prompt, path, "variant")


@pytest.mark.parametrize("system", [losona, scene, hsii])
def test_an_instruction_that_tells_the_norm_is_refused(tmp_path: Path, system: object) -> None:
    paper = {losona: LOSONA, scene: SCENE, hsii: HSII}[system]  # type: ignore[index]
    line = _refusal(tmp_path, paper.replace("\n", f"\n{LEAK}\n", 1), system)
    assert "mentions 'norm'" in line and ":2:" in line, line


def test_an_instruction_that_copies_a_scenarios_norm_is_refused(tmp_path: Path) -> None:
    """No leak word, but the norm's own statement: refused when the task's scenarios are read,
    naming the scenario whose norm it copies."""
    scenario = load_scenarios()[0]
    statement = scenario.norm_statement
    path = tmp_path / "told.txt"
    path.write_text(LOSONA.replace("\n", f"\nRemember: {statement}\n", 1), encoding="utf-8")
    chosen = losona.variant_of(f"file:{path}")  # no leak word: the file alone is clean
    with pytest.raises(InputError) as error:
        chosen.apply([scenario])
    line = error.value.one_line()
    assert str(path) in line and scenario.scenario_id in line and "5-word run" in line, line
    others = [s for s in load_scenarios() if s.norm_id != scenario.norm_id]
    assert chosen.apply(others[:3]) == others[:3]  # another norm's scenarios: nothing copied


def test_a_scene_or_hsii_instruction_copying_what_an_item_hides_is_refused(
    tmp_path: Path,
) -> None:
    from normlab.scene.lint import hidden_texts
    from normlab.scene.taxonomy import load_dimensions

    item = scene_scenarios()[0]
    norm = hidden_texts(item, load_dimensions())[0]
    path = tmp_path / "scene.txt"
    path.write_text(SCENE.replace("\n", f"\nAlways: {norm}\n", 1), encoding="utf-8")
    with pytest.raises(InputError, match=item.scenario_id[:30]):
        scene.variant_of(f"file:{path}").apply([item])
    case = load_cases()[0]
    path = tmp_path / "hsii.txt"
    path.write_text(f"{HSII}\nSay: {case.golden.content}", encoding="utf-8")
    with pytest.raises(InputError, match=case.case_id[:30]):
        hsii.variant_of(f"file:{path}").apply([case])


def test_a_placeholder_shown_more_often_than_the_paper_shows_it_is_refused(
    tmp_path: Path,
) -> None:
    twice = LOSONA + "\n\nOnce more:\n{prior_transcript_plus_elicitor}"
    line = _refusal(tmp_path, twice)
    assert "{prior_transcript_plus_elicitor} 2 times, the paper's prompt 1" in line, line
    twice = SCENE + "\nAgain: {{transcript}}"
    assert "{{transcript}} 2 times" in _refusal(tmp_path, twice, scene)
    # the paper's own two {subject}s stay allowed; fewer is a rewording
    once = LOSONA.replace('"{subject}:" label', "label")
    path = tmp_path / "once.txt"
    path.write_text(once, encoding="utf-8")
    assert losona.variant_of(f"file:{path}").instruction == once


@pytest.mark.parametrize(
    ("look_alike", "named"),
    [
        ("{\u0455ubject}", "U+0455 CYRILLIC SMALL LETTER DZE"),
        ("{Subject}", "look-alike of {subject}"),
        ("{ subject }", "look-alike of {subject}"),
        ("\uff5bsubject\uff5d", "U+FF5B FULLWIDTH LEFT CURLY BRACKET"),
        ("{{subject}}", "look-alike of {subject}"),
    ],
)
def test_a_look_alike_placeholder_in_single_braces_is_refused(
    tmp_path: Path, look_alike: str, named: str
) -> None:
    line = _refusal(tmp_path, LOSONA + f"\nSign as {look_alike}.")
    assert "no placeholder" in line and named in line, line


@pytest.mark.parametrize(
    "look_alike",
    ["{{Transcript}}", "{{ transcript }}", "{transcript}", "{{tr\u0430nscript}}", "{{x-y}}"],
)
def test_a_look_alike_placeholder_in_double_braces_is_refused(
    tmp_path: Path, look_alike: str
) -> None:
    line = _refusal(tmp_path, SCENE.replace("PARTICIPANTS:", f"{look_alike}\nPARTICIPANTS:"), scene)
    assert "no placeholder" in line, line


def test_json_in_single_braces_stays_text_where_placeholders_are_double(tmp_path: Path) -> None:
    text = SCENE + '\nFor example {"action": "message", "content": "hi"} or {"a": {"b": 1}}'
    path = tmp_path / "json.txt"
    path.write_text(text, encoding="utf-8")
    assert scene.variant_of(f"file:{path}").instruction == text


def test_crlf_and_a_bom_are_read_as_the_paper_files_are(tmp_path: Path) -> None:
    """A file saved on Windows gives the subject the same text, and the log the same SHA-256,
    as the file saved with LF."""
    path = tmp_path / "lf.txt"
    path.write_text(LOSONA + "\n", encoding="utf-8")
    lf = losona.variant_of(f"file:{path}")
    for name, data in (
        ("crlf.txt", (LOSONA + "\n").replace("\n", "\r\n").encode()),
        ("bom.txt", b"\xef\xbb\xbf" + (LOSONA + "\n").encode()),
        ("cr.txt", (LOSONA + "\n").replace("\n", "\r").encode()),
    ):
        other = tmp_path / name
        other.write_bytes(data)
        found = losona.variant_of(f"file:{other}")
        assert found.instruction == lf.instruction == LOSONA, name
        assert found.record is not None and lf.record is not None
        assert found.record["sha256"] == lf.record["sha256"], name


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (LOSONA.encode().replace(b"Venue", b"Ven\x00ue"), "holds a NUL byte"),
        (LOSONA.encode().replace(b"Venue", b"\xef\xbb\xbfVenue"), "byte-order mark inside"),
    ],
)
def test_a_nul_byte_or_an_inner_bom_is_refused(tmp_path: Path, data: bytes, message: str) -> None:
    line = _refusal(tmp_path, data)
    assert message in line and ":12:" in line, line


@pytest.mark.parametrize(("given", "seed"), [("rename:01", "1"), ("reorder:007", "7")])
def test_a_seed_is_read_without_its_leading_zeros(given: str, seed: str) -> None:
    spec = parse_variant(given, tuple(KINDS))
    assert spec.argument == seed and spec.text == canonical_variant(given)
    assert spec.slug == parse_variant(f"{spec.kind}:{seed}", tuple(KINDS)).slug
    record = variant_record(spec, "x")
    assert record["spec"] == f"{spec.kind}:{seed}"


@given(st.integers(min_value=0, max_value=99_999), st.integers(min_value=0, max_value=4))
def test_leading_zeros_never_make_another_variant(seed: int, zeros: int) -> None:
    text = f"rename:{'0' * zeros}{seed}"[:16]
    if len(text) - len("rename:") > 9:
        return
    assert canonical_variant(text) == parse_variant(text, tuple(KINDS)).text == f"rename:{seed}"


def test_an_instruction_file_hash_is_of_the_text_sent(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"\xef\xbb\xbf" + LOSONA.replace("\n", "\r\n").encode())
    text = read_instruction(VariantSpec("file", str(path)), LOSONA, SINGLE_BRACES, [])
    record = variant_record(VariantSpec("file", str(path)), "x", text)
    assert record["sha256"] == hashlib.sha256(LOSONA.encode()).hexdigest()


NAMES = sorted(set(SINGLE_BRACES.findall(LOSONA)))


@given(
    st.sampled_from(NAMES),
    st.lists(st.booleans(), min_size=1, max_size=30),
    st.sampled_from(["", " ", "  "]),
    st.sampled_from(["", " ", "\t"]),
)
def test_any_other_spelling_of_a_placeholder_is_refused(
    name: str, upper: list[bool], before: str, after: str
) -> None:
    """Property: a placeholder's name in braces, its case or its spacing changed in any way, is
    refused; only the exact spelling is a placeholder."""
    cased = "".join(c.upper() if flip else c for c, flip in zip(name, upper * 30, strict=False))
    spelled = "{" + before + cased + after + "}"
    if spelled == "{" + name + "}":
        return
    with pytest.raises(InputError, match="no placeholder"):
        check_placeholders(LOSONA + f"\n{spelled}", LOSONA, SINGLE_BRACES, "x.txt", "variant")


@given(
    st.text(alphabet=st.characters(blacklist_characters="{}\x00\ufeff"), max_size=80).filter(
        lambda t: not set("{}") & set(unicodedata.normalize("NFKC", t))  # no full-width brace
    )
)
def test_text_without_braces_never_trips_the_placeholder_check(extra: str) -> None:
    """Property: words around the paper's placeholders, of any script, are wording."""
    check_placeholders(LOSONA + "\n" + extra, LOSONA, SINGLE_BRACES, "x.txt", "variant")
