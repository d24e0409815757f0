"""Sphinx roles in the source rewritten as mkdocstrings cross-references, or as plain code.

The API reference (``make docs``) renders docstrings as Markdown through mkdocstrings, which
reads no reStructuredText: a ``:func:`~normlab.core.x``` there is literal text that links
nowhere. Its cross-reference is ``[`x`][normlab.core.x]``, which autorefs resolves (and
``mkdocs build --strict`` refuses when it cannot). So each role becomes:

- ``[`shown`][identifier]`` where the object it names is on a page of the reference (an
  identifier of the built site's ``objects.inv``: the face's name for it when a face exports it);
- ````shown```` (plain code) where it is not, or the role sits in a ``#`` comment (`shown`);

``shown`` is the role's text as Sphinx would show it: the last name after ``~``, else all of it
(a module that is not linked keeps its whole dotted path). A line the rewrite makes longer
than 100 characters pushes its last words onto the next line of the same paragraph.

    make docs                                   # builds site/objects.inv
    python -m tools.crossrefs src/normlab/x.py  # rewrite those files (default: every one)

``tests/test_docs.py`` checks that no docstring or comment in ``src/`` holds a Sphinx role.
"""

from __future__ import annotations

import argparse
import io
import re
import tokenize
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import griffe

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src"
INVENTORY = ROOT / "site" / "objects.inv"
ROLE = re.compile(r":(?:py:)?(func|mod|class|data|meth|attr|exc|obj|const):`([^`]+)`")
LIMIT = 100
"""ruff's line length."""


def anchors(inventory: Path) -> dict[str, str]:
    """Every identifier the built reference knows → the anchor it links to (a face's name for
    an object a face exports, the object's own path otherwise)."""
    # Four lines of header (Sphinx's inventory format, version 2), then zlib-compressed lines.
    compressed = inventory.read_bytes().split(b"\n", 4)[4]
    found = {}
    for line in zlib.decompress(compressed).decode("utf-8").splitlines():
        name, _domain, _priority, uri = line.split(" ", 4)[:4]
        anchor = uri.split("#", 1)[1] if "#" in uri else name
        found[name] = name if anchor == "$" else anchor
    return found


def module_name(path: Path) -> str:
    parts = path.resolve().relative_to(SOURCE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


class Resolver:
    """Where a role's target lives, as Python would find the name from its module."""

    def __init__(self) -> None:
        package = griffe.load("normlab", search_paths=[str(SOURCE)], resolve_aliases=False)
        self.collection = package.modules_collection

    def get(self, path: str) -> griffe.Object | griffe.Alias | None:
        try:
            return self.collection.get_member(path)  # type: ignore[no-any-return]
        except (KeyError, ValueError, griffe.AliasResolutionError):
            return None

    @staticmethod
    def canonical(found: griffe.Object | griffe.Alias) -> str | None:
        try:
            return found.final_target.path if isinstance(found, griffe.Alias) else found.path
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None

    def candidates(self, module: str, target: str) -> Iterable[str]:
        yield target
        first, _, rest = target.partition(".")
        scope = self.get(module)
        if scope is not None and not isinstance(scope, griffe.Alias):
            try:
                imported: str | None = scope.resolve(first)
            except griffe.NameResolutionError:
                imported = None
            if imported is not None:
                yield imported + ("." + rest if rest else "")
            for member in scope.members.values():
                # A method or field named from its class's docstring by its own name.
                if (
                    not isinstance(member, griffe.Alias)
                    and member.is_class
                    and first in member.members
                ):
                    yield f"{member.path}.{target}"
        parts = module.split(".")
        for end in range(len(parts), 0, -1):
            yield ".".join(parts[:end]) + "." + target

    def resolve(self, module: str, target: str) -> str | None:
        """The canonical path of ``target`` as written in ``module``, if it names anything."""
        for candidate in self.candidates(module, target):
            found = self.get(candidate)
            if found is not None:
                return self.canonical(found) or candidate
        return None


def comment_columns(text: str) -> dict[int, int]:
    """Line number → the column its ``#`` comment starts at."""
    columns = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            columns[token.start[0]] = token.start[1]
    return columns


def continues(line: str, prefix: str) -> bool:
    """Whether ``line`` goes on the paragraph a line starting ``prefix`` belongs to."""
    rest = line[len(prefix) :]
    if not line.startswith(prefix) or not rest or rest[0] == " ":
        return False
    stripped = rest.strip()
    return not (
        stripped.startswith(("- ", "* ", ">>>", '"""', "```", "|")) or stripped.endswith(":")
    )


def wrap(lines: list[str], changed: set[int]) -> list[str]:
    """Each changed line over ``LIMIT`` pushes its last words onto the next line of its
    paragraph (or a new one), and that line does the same in turn."""
    need = set(changed)
    index = 0
    while index < len(lines):
        line = lines[index]
        if index in need and len(line) > LIMIT:
            indent = line[: len(line) - len(line.lstrip())]
            prefix = indent + ("# " if line.lstrip().startswith("#") else "")
            cut = line.rfind(" ", len(prefix) + 1, LIMIT + 1)
            if cut > len(prefix):
                head, tail = line[:cut], line[cut + 1 :]
                lines[index] = head
                if line[len(prefix) :].startswith(("- ", "* ")):
                    prefix += "  "  # the next line continues a list item
                following = lines[index + 1] if index + 1 < len(lines) else ""
                if continues(following, prefix) and not tail.rstrip().endswith('"""'):
                    lines[index + 1] = prefix + tail + " " + following[len(prefix) :]
                else:
                    lines.insert(index + 1, prefix + tail)
                    need = {n + 1 if n > index else n for n in need}
                need.add(index + 1)
        index += 1
    return lines


def rewrite(path: Path, resolver: Resolver, known: dict[str, str]) -> list[str]:
    """Rewrite ``path``'s roles; one line per role rewritten, for review."""
    text = path.read_text(encoding="utf-8")
    module = module_name(path)
    comments = comment_columns(text)
    lines = text.split("\n")
    said: list[str] = []
    changed: set[int] = set()
    for index, line in enumerate(lines):

        def replaced(found: re.Match[str], number: int = index + 1) -> str:
            role, target = found[1], found[2]
            whole = target.lstrip("~").lstrip(".")
            short = whole.rsplit(".", 1)[-1] if target.startswith("~") else whole
            in_comment = number in comments and found.start() >= comments[number]
            canonical = resolver.resolve(module, whole)
            anchor = None if in_comment or canonical is None else known.get(canonical)
            if anchor is not None:
                new = f"[`{short}`][{anchor}]"
            else:
                shown = whole if role == "mod" else short
                new = f"`{shown}`" if in_comment else f"``{shown}``"
            said.append(f"{path}:{number}: {found[0]} -> {new}")
            return new

        new_line = ROLE.sub(replaced, line)
        if new_line != line:
            lines[index] = new_line
            changed.add(index)
    if changed:
        path.write_text("\n".join(wrap(lines, changed)), encoding="utf-8")
    return said


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.crossrefs", description=__doc__)
    parser.add_argument("paths", nargs="*", type=Path, help="files (default: every src file)")
    parser.add_argument("--inventory", type=Path, default=INVENTORY)
    args = parser.parse_args(argv)
    if not args.inventory.is_file():
        parser.error(f"{args.inventory}: no inventory; build the docs first (make docs)")
    files = args.paths or sorted(SOURCE.rglob("*.py"))
    resolver, known = Resolver(), anchors(args.inventory)
    for path in files:
        for line in rewrite(path, resolver, known):
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
