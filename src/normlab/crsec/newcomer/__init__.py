"""``crsec newcomer``: a newcomer (a base model or the norm-learning subject) joins a finished
society, beside a control arm from the same checkpoint and seeds; its setup, its measures, its
report section and its command."""
