"""What an error line keeps of a long word (``normlab.core.errors.tidy``)."""

from __future__ import annotations

from normlab.core.errors import tidy


def test_a_long_path_is_named_whole_and_a_long_value_is_shortened() -> None:
    """A path of 90 characters was cut to 60 with "… (90 characters)", so the error no longer
    said which file (it failed tests whose temporary folders were deep)."""
    path = "/tmp/pytest-of-someone/pytest-12/popen-gw1/test_two_files_with_one_curator0/b.csv"
    assert len(path) > 80
    assert tidy(f"{path} and {path} both name curator 'ann'") == (
        f"{path} and {path} both name curator 'ann'"
    )
    key = "7" * 5000
    assert tidy(f"bad key {key}") == f"bad key {'7' * 60}… (5000 characters)"
    blob = "/" + "x" * 500
    assert tidy(blob) == f"{blob[:60]}… (501 characters)"
