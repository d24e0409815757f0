"""CRSEC's simulation: the society file and the run's config (``schemas``, ``society``), the
clock, the typed events of ``events.jsonl``, the world the phases share, the two pipelines
(``talk``, ``reflection``), the tick loop (``loop``), Figure 2's hour counts and the run folder
(``rundir``: logs and checkpoints). The operations it runs are the norm architecture's
(``normlab.norms``)."""
