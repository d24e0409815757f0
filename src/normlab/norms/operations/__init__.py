"""The paper's operations, one module per paper module (§2, Appendix B).

- ``creation``: CreateNorm;
- ``spreading``: DetectConflict + DecideToTalk, conversation turns,
  IdentifyNormativeInformation (from a conversation, from thoughts), GenerateThought;
- ``evaluation``: the immediate evaluation (consistency, duplication, type, conflict;
  utility) and the long-term synthesis (ClassifySpecificNorms, GenerateAbstractNorm);
- ``compliance``: GenerateNormativePlans, GenerateNormativeActions.

Each is a small async function taking a [`Caller`][normlab.norms.Caller] (the agent's
access to the models) and returning plain data; the simulation applies it.
"""
