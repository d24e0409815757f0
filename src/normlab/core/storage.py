"""Log folders in object storage: ``s3://bucket/sweep`` (or any URL fsspec knows) as a place
for a run's logs and as an input to every analysis.

A sweep too large for one machine runs as shards on several, each writing its Inspect logs
straight to one bucket (``--shard 2/8 --log-dir s3://bucket/sweep``: Inspect writes and
resumes there itself). normlab's readers work on local files, so a remote folder is first
mirrored into ``runs/remote/SCHEME/BUCKET/PREFIX``: every file under the URL is copied once,
and again only when its size or version (ETag, else modification time) changed, so reading a
growing sweep again fetches only the logs that changed. The mirror's analysis is the run's.

Credentials and endpoints come from the storage library's own settings (for S3, the
``AWS_*`` variables or profiles, ``AWS_ENDPOINT_URL`` for MinIO or another S3 server); no
URL, key or secret is ever written into a log or report by normlab.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

from normlab.core.errors import InputError, OutputError
from normlab.core.jsonio import read_json
from normlab.core.outputs import output_folder, replace_file

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

MIRROR_ROOT = Path("runs") / "remote"
MANIFEST = ".normlab-mirror.json"
"""In a mirror folder: each copied file's version, to copy it again only when it changed."""
_URL = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<rest>.*)$")
_PROBE = ".normlab-write-check"


def url_scheme(location: str | Path) -> str | None:
    """The scheme of ``location`` if it is a URL (``SCHEME://…``, lower case), else None: a
    ``Path`` is never a URL."""
    found = _URL.match(location) if isinstance(location, str) else None
    return found["scheme"].lower() if found is not None else None


def is_remote(location: str | Path) -> bool:
    """Whether ``location`` is a URL naming object storage (``file://`` is a local path)."""
    return url_scheme(location) not in (None, "file")


def log_location(text: str | Path) -> Path | str:
    """A ``--log-dir`` as given: a URL stays a string, ``file:///path`` is that local path,
    anything else is a local path. A control character (a pasted newline) is refused: the
    run would finish and then fail to find its own log under the mangled name."""
    if any(ord(c) < 32 or ord(c) == 127 for c in str(text)):
        raise InputError("--log-dir", f"{str(text)!r} holds a control character (a newline?)")
    if isinstance(text, str) and is_remote(text):
        return text
    found = _URL.match(str(text))
    if found is not None:  # file://: Inspect would write under ./file:/…
        parsed = urlsplit(str(text))
        if parsed.netloc not in ("", "localhost"):
            raise InputError("--log-dir", f"{text}: a file:// URL names a path on this machine")
        return Path(url2pathname(parsed.path))
    return Path(text)


def within(location: Path | str, name: str) -> Path | str:
    """The folder ``name`` inside a local or remote folder."""
    return location / name if isinstance(location, Path) else f"{location.rstrip('/')}/{name}"


def _parts(url: str) -> tuple[str, list[str]]:
    found = _URL.match(url)
    if found is None:
        raise InputError(url, "not a URL")
    parts = [part for part in found["rest"].split("/") if part]
    if not parts or any(part in (".", "..") for part in parts):
        raise InputError(url, "names no folder in object storage (SCHEME://BUCKET/PREFIX)")
    return found["scheme"].lower(), parts


def mirror_folder(url: str) -> Path:
    """Where the files under ``url`` are mirrored: ``runs/remote/SCHEME/BUCKET/PREFIX``. A
    user-info (``https://user:PASSWORD@host/…``) and a query (a signed URL's ``?sig=…``) say
    how to reach the files, not which they are: neither becomes part of a folder name, which
    reports and listings show."""
    scheme, parts = _parts(url)
    parts[0] = parts[0].rpartition("@")[2]
    parts[-1] = parts[-1].partition("?")[0].partition("#")[0]
    return MIRROR_ROOT.joinpath(scheme, *(part for part in parts if part))


def _filesystem(url: str) -> tuple[AbstractFileSystem, str]:
    _parts(url)
    try:
        from fsspec.core import url_to_fs

        filesystem, root = url_to_fs(url)
    except (ImportError, ValueError) as error:
        raise InputError(url, f"no storage library for this URL ({error})") from error
    return filesystem, str(root).rstrip("/")


def _reason(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"


def check_remote_folder(url: str, option: str) -> None:
    """Prove that files can be written under ``url`` (a probe written and removed), before a
    run that may take hours writes its first log there."""
    filesystem, root = _filesystem(url)
    probe = f"{root}/{_PROBE}"
    try:
        filesystem.pipe_file(probe, b"")
        filesystem.rm_file(probe)
    except Exception as error:  # each storage library raises its own types
        raise OutputError(url, f"{option}: cannot write here ({_reason(error)})") from error


def _version(info: dict[str, Any]) -> list[str]:
    version = info.get("ETag") or info.get("etag") or info.get("mtime") or info.get("LastModified")
    return [str(info.get("size")), str(version or "")]


def pull(url: str) -> Path:
    """Mirror every file under ``url`` (a folder, or one file) and return its local copy."""
    filesystem, root = _filesystem(url)
    try:
        found: dict[str, dict[str, Any]] = filesystem.find(root, detail=True)
    except Exception as error:  # each storage library raises its own types
        raise InputError(url, f"cannot list ({_reason(error)})") from error
    if not found:
        raise InputError(url, "no files here")
    single = list(found) == [root]
    base = PurePosixPath(root).parent if single else PurePosixPath(root)
    local = mirror_folder(url)
    folder = output_folder(local.parent if single else local, "the mirror of a remote folder")
    manifest_path = folder / MANIFEST
    manifest = read_json(manifest_path) if manifest_path.exists() else {}
    if not isinstance(manifest, dict):
        raise InputError(manifest_path, "not a mirror manifest (delete it to copy every file)")
    for name, info in sorted(found.items()):
        relative = PurePosixPath(name).relative_to(base)
        if ".." in relative.parts or relative.name == _PROBE:
            continue
        target = folder.joinpath(*relative.parts)
        version = _version(info)
        if manifest.get(str(relative)) == version and target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.part")
        try:
            filesystem.get_file(name, str(partial))
        except Exception as error:  # each storage library raises its own types
            raise InputError(f"{url.rstrip('/')}/{relative}", _reason(error)) from error
        partial.replace(target)
        manifest[str(relative)] = version
        replace_file(manifest_path, json.dumps(manifest, indent=1) + "\n")
    return local


def log_paths(texts: Iterable[str]) -> list[Path]:
    """Paths a command was given, each URL replaced by its mirrored local copy."""
    return [pull(text) if is_remote(text) else Path(text) for text in texts]


def mirrored(location: str, url: str) -> Path:
    """The mirror's copy of ``location``, a file Inspect wrote under the remote folder ``url``."""
    prefix = url.rstrip("/") + "/"
    if not location.startswith(prefix):
        raise InputError(location, f"not under {url}")
    return mirror_folder(url).joinpath(*PurePosixPath(location.removeprefix(prefix)).parts)


def put_text(url: str, text: str) -> None:
    """Write a small text file at ``url`` (an object store writes an object whole or not at
    all, so this is as atomic as ``replace_file`` is locally)."""
    filesystem, root = _filesystem(url)
    try:
        filesystem.pipe_file(root, text.encode("utf-8"))
    except Exception as error:  # each storage library raises its own types
        raise OutputError(url, f"cannot write ({_reason(error)})") from error


def get_text(url: str) -> str | None:
    """The text file at ``url``, or None when there is none."""
    filesystem, root = _filesystem(url)
    try:
        if not filesystem.exists(root):
            return None
        data: bytes = filesystem.cat_file(root)
    except Exception as error:  # each storage library raises its own types
        raise InputError(url, f"cannot read ({_reason(error)})") from error
    return data.decode("utf-8")
