"""Where a model call runs, as Inspect knows it: the one place normlab reads Inspect's internals.

Two things normlab needs have no public Inspect API (checked against inspect-ai 0.3.285,
whose public faces are ``inspect_ai.log``, ``inspect_ai.model``, ``inspect_ai.util``,
``inspect_ai.solver``, ``inspect_ai.hooks``):

* **which attempt at which sample and epoch a call belongs to**, or that it belongs to none
  (``inspect_ai.log._samples.sample_active``). The scripted model picks its reply by the call's
  rank within the attempt, so a resumed run replays an uninterrupted one; the client asks
  whether a sample's transcript is there to count a call. ``inspect_ai.log.transcript()`` is
  public but creates a transcript when there is none, so it cannot tell the two apart, and
  it names no sample or epoch;
* **a transcript scoped to a block of code** outside a sample
  (``inspect_ai.log._transcript._transcript``, the context variable ``transcript()`` reads).
  Without one, the first call of a task outside a sample creates a transcript that then keeps
  every model event of every later call.

Both imports are kept here, behind two small functions, so a change in Inspect breaks one
module (and tests/models/test_client.py, tests/models/test_scripted.py say so).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from inspect_ai.log import Transcript

# Private: no public equivalent (see the module docstring).
from inspect_ai.log._samples import sample_active
from inspect_ai.log._transcript import _transcript


def sample_attempt() -> tuple[str, int] | None:
    """The running sample attempt's id and epoch; ``None`` outside a sample."""
    active = sample_active()
    return None if active is None else (active.id, active.epoch)


@contextlib.contextmanager
def own_transcript() -> Iterator[Transcript]:
    """A fresh transcript for the block: the model events it gathers are the block's calls'."""
    transcript = Transcript()
    token = _transcript.set(transcript)
    try:
        yield transcript
    finally:
        _transcript.reset(token)
