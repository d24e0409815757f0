"""Scripts for the norm-learning subject: each benchmark's script with the agent's own rules
(CRSEC's identify and evaluation prompts, the judge's norm matching) in front."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
LOSONA_SCRIPT = FIXTURES / "losona_script.json"
"""tests/losona's script, the agent's rules first: it keeps "Questions are answered by
pointing to a document." and refuses "Marcus asks about the build." (type check); holding
the kept norm, the subject points to the wiki."""
SCENE_SCRIPT = FIXTURES / "scene_script.json"
"""tests/scene's script, the agent's rules first: after Priya's sanction of its long answer it
keeps "Answers are kept to one line." and refuses "Priya is annoyed with Julian." (type
check); in the other scenario it keeps "Answers here are one line." from the demonstration."""
