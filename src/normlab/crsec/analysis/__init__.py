"""CRSEC's read side: Figure 2's measures of finished runs and the judge they ask
(``figure2``, ``judge``), the trace of one norm, the replay of one moment, the report, and
Appendix D's questionnaire (``questionnaire``)."""
