"""What a LoSoNA run binds besides the subject.

Light on purpose: the command line and the system's spec read these without importing Inspect.
"""

from __future__ import annotations

ROLES = ("judge",)
"""The model roles besides the subject; each task declares its models (``model_roles``), so
a log's header names the judge's model even when nobody named it."""
