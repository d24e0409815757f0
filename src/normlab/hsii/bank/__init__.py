"""HSII's data program (§4, §5.1, Figure 2a): news retrieval and preparation, scene and
dialogue generation with top-k screening, the resumable build, native dialogues imported from
files, the bank's files and its dataset card (news → cases)."""
