"""``benchmarks.crsec_second_chat``: on the scripted converge society, Carlos refuses "No smoking
indoors" in his talk with Bob and accepts the same words in his talk with Tamara (both modes)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.crsec_second_chat import measure

from normlab.crsec.sim.events import EvaluateEvent
from normlab.crsec.sim.rundir import RunDir
from normlab.norms.records import AssessedItem
from tests.crsec.support import of_kind

NORM = "Smoking is not allowed inside the cafe."


def test_a_norm_refused_in_a_first_chat_is_accepted_in_a_second(tmp_path: Path) -> None:
    summary = measure(tmp_path)
    for mode in ("default", "faithful"):
        assert (summary[mode]["refused"], summary[mode]["accepted"]) == (
            "day 1 10:00", "day 1 11:00",
        ), summary[mode]["path"]  # fmt: skip
        kinds = [line.split()[3] for line in summary[mode]["path"]]
        assert kinds == [
            "conversation", "identified", "rejected", "conversation", "identified", "qualified",
        ]  # fmt: skip
        assert "with Bob Johnson" in summary[mode]["path"][0]
        assert "with Tamara Rodriguez" in summary[mode]["path"][3]
        # read back from the run's own events: two evaluations of the same words, #1 refused
        # (kept ⟨F, F⟩) and #2 qualified, none skipped as a duplicate of the refused one
        events = of_kind(RunDir(tmp_path / mode).events(), EvaluateEvent)
        carlos = [e.data for e in events if e.agent == "Carlos Gomez" and e.data.content == NORM]
        assert [(type(item), getattr(item, "qualified", None)) for item in carlos] == [
            (AssessedItem, False), (AssessedItem, True),
        ]  # fmt: skip
