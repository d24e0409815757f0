"""The web app: ``normlab serve`` (readers, play, rating studies)."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.web.app import ServeSettings, create_app
    from normlab.web.cli import serve
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = ["ServeSettings", "create_app", "serve"]
