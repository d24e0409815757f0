"""MkDocs hook: the site's pages are the repository's READMEs, read where they live.

Each README becomes a generated page (nothing is copied into ``docs/``), and its relative
links, written for GitHub's view of the repository, are rewritten to the site's pages: a link
to another README goes to that README's page, a link into ``docs/`` goes to the same file in
the site, and any other relative link is left for ``mkdocs build --strict`` to report.
A page written in ``docs/`` (the API reference) links to a README where it lives too, so the
same link works on GitHub and in the site.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]

# Repository path of each README -> its page in the site.
PAGES = {
    "README.md": "index.md",
    "src/normlab/losona/README.md": "losona.md",
    "src/normlab/scene/README.md": "scene.md",
    "src/normlab/hsii/README.md": "hsii.md",
    "src/normlab/crsec/README.md": "crsec.md",
    "src/normlab/agents/README.md": "agents.md",
    "src/normlab/web/README.md": "web.md",
    "src/normlab/study/README.md": "study.md",
}

_LINK = re.compile(r"(\]\()([^)\s]+)(\))")
_EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|#|/)", re.IGNORECASE)


def site_link(source: str, page: str, target: str) -> str:
    """The link ``target``, written in the README at ``source``, as seen from ``page``."""
    if _EXTERNAL.match(target):
        return target
    path, hash_, anchor = target.partition("#")
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    if resolved in PAGES:
        site_path = PAGES[resolved]
    elif resolved.startswith("docs/"):
        site_path = resolved.removeprefix("docs/")
    else:
        return target
    relative = posixpath.relpath(site_path, posixpath.dirname(page) or ".")
    return relative + hash_ + anchor


def rewrite_links(source: str, page: str, markdown: str) -> str:
    """Every inline link of ``markdown`` (the README at ``source``) made to work from ``page``."""
    return _LINK.sub(
        lambda m: m.group(1) + site_link(source, page, m.group(2)) + m.group(3), markdown
    )


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add one generated page per README."""
    for source, page in PAGES.items():
        markdown = (ROOT / source).read_text(encoding="utf-8")
        files.append(File.generated(config, page, content=rewrite_links(source, page, markdown)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """A page of ``docs/``'s links to READMEs, rewritten as a README's are (a README's own
    page was rewritten when it was generated)."""
    if page.file.src_uri in PAGES.values():
        return markdown
    return rewrite_links(f"docs/{page.file.src_uri}", page.file.src_uri, markdown)
