"""Reading YAML (study files, societies), and a document that is JSON or YAML, with errors that
name file, line and field, as ``normlab.core.jsonio`` reads JSON: safely (no tags beyond
YAML's own), no key twice in one mapping, aliases within a budget, and the value checked as a
JSON document's is."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from normlab.core.errors import InputError
from normlab.core.jsonio import MAX_DEPTH, TOO_MANY_DIGITS, check_value, read_json, read_text

MAX_YAML_BYTES = 10 << 20
"""10 MiB: more than any YAML file normlab reads (study files, societies) needs; PyYAML holds
many times a document's size while it parses, so a larger one is refused unread."""
ALIAS_BUDGET = 10_000
"""Values YAML aliases (``*name``) and merge keys (``<<: *name``) may add to a document
beyond the values written in it: enough to reuse a block of settings many times, never
enough for a few hundred bytes to expand to billions ("billion laughs")."""


@functools.cache
def _bounded_loader() -> type[Any]:
    """PyYAML's safe loader that also refuses a key given twice in one mapping and aliases
    that expand past ``ALIAS_BUDGET`` values (built on first use: YAML loads lazily)."""
    import yaml
    from yaml.composer import ComposerError
    from yaml.constructor import ConstructorError

    class BoundedLoader(yaml.SafeLoader):
        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self.expanded: dict[int, int] = {}
            """Each composed node's size with every alias in it expanded, by ``id``."""
            self.written = 0
            """Nodes written out in the document (an alias is not one)."""

        def compose_node(self, parent: Any, index: Any) -> Any:
            alias = self.check_event(yaml.AliasEvent)
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            node = super().compose_node(parent, index)
            if alias:
                if id(node) not in self.expanded:
                    raise ComposerError(
                        None,
                        None,
                        f"nested more than {MAX_DEPTH} levels deep (an alias inside its own "
                        "anchor is endless)",
                        mark,
                    )
                return node
            self.written += 1
            children: list[Any] = []
            if isinstance(node, yaml.SequenceNode):
                children = node.value
            elif isinstance(node, yaml.MappingNode):
                children = [part for pair in node.value for part in pair]
            size = 1 + sum(self.expanded[id(child)] for child in children)
            self.expanded[id(node)] = size
            return node

        def compose_document(self) -> Any:
            node = super().compose_document()
            added = self.expanded[id(node)] - self.written
            if added > ALIAS_BUDGET:
                raise ComposerError(
                    None,
                    None,
                    f"aliases would expand the document by {added:,} values, over the "
                    f"{ALIAS_BUDGET:,} allowed",
                    None,
                )
            self.expanded.clear()
            return node

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[tuple[str, str]] = set()
            for key, _ in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                if (key.tag, key.value) in seen:
                    raise ConstructorError(
                        None,
                        None,
                        f"key {key.value!r} appears twice in one mapping",
                        key.start_mark,
                    )
                seen.add((key.tag, key.value))
            return super().construct_mapping(node, deep=deep)

    return BoundedLoader


def read_yaml(path: Path, limit: int = MAX_YAML_BYTES) -> Any:
    """Parse a whole YAML file of at most ``limit`` bytes with ``parse_yaml``."""
    text = read_text(path, "utf-8-sig", limit)
    if not text.strip():
        raise InputError(path, "empty file")
    return parse_yaml(text, path)


def parse_yaml(text: str, path: str | Path) -> Any:
    """One YAML document, safely: no tags beyond YAML's own, no key twice in one mapping, and
    aliases within ``ALIAS_BUDGET``; its loader's own failures (syntax, an integer too
    long, an impossible date, nesting past Python's recursion limit) become
    [`InputError`][normlab.core.InputError]s, and the value is checked with ``check_value``."""
    import yaml

    try:
        value = yaml.load(text, Loader=_bounded_loader())
    except yaml.reader.ReaderError as error:  # a control character; says only its offset
        character: int | str = error.character
        code = character if isinstance(character, int) else ord(character)
        line = text.count("\n", 0, error.position) + 1
        raise InputError(
            path, f"invalid YAML: character U+{code:04X} is not allowed", line=line
        ) from error
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or error
        raise InputError(
            path, f"invalid YAML: {problem}", line=mark.line + 1 if mark is not None else None
        ) from error
    except RecursionError as error:
        raise InputError(path, f"nested more than {MAX_DEPTH} levels deep") from error
    except (ValueError, TypeError, OverflowError) as error:  # raised by YAML's constructors
        digits = "integer string conversion" in str(error)
        raise InputError(path, TOO_MANY_DIGITS if digits else f"invalid YAML: {error}") from error
    check_value(value, path)
    return value


def read_document(path: Path) -> Any:
    """A whole JSON or YAML file (by its suffix: ``.yaml``/``.yml`` is YAML)."""
    return read_yaml(path) if path.suffix in (".yaml", ".yml") else read_json(path)
