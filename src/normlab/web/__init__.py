"""The web app behind ``normlab serve`` (readers, play, rating studies); the command itself
lives in ``web/cli.py``, mounted by the top-level command line, as every package's does."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.web.app import create_app
    from normlab.web.settings import ServeSettings
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = ["ServeSettings", "create_app"]
