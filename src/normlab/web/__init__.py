"""The web app: ``normlab serve`` (readers, play, rating studies)."""

from normlab.web.app import ServeSettings, create_app
from normlab.web.cli import serve

__all__ = ["ServeSettings", "create_app", "serve"]
