"""``crsec export``: an emerged norm, with the conversations that spread it, written out as a
LoSoNA scenario and a SCENE scenario (through the losona and scene faces)."""
