"""The installed app: the web app manifest and the service worker that caches the UI's shell.

The worker (``web/sw.js``, a template) is served from the root so that it controls every page
(``/``, ``/r/{room_id}``, ``/score``); the server writes into it the list of the shell's files
and their version, a digest of their contents, so any change to a static file makes a new
worker with a new cache, and the old cache goes when it takes over (docs/web.md "Installed").
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from starlette.responses import Response
from starlette.staticfiles import PathLike, StaticFiles
from starlette.types import Scope

#: The rendering library the pages import (installed by ``make setup``, docs/web.md).
UI_LIBRARY: Final = "node_modules/preact/dist/preact.mjs"
#: What of the web folder is no part of the shell: npm's files (only :data:`UI_LIBRARY` of its
#: packages is imported by the pages).
NOT_SHELL: Final = frozenset({"package.json", "package-lock.json"})
#: What of the shell the worker never caches: the worker itself is the browser's to fetch, and
#: the page (``index.html``) always comes from the network, saying the shell's version.
NOT_CACHED: Final = frozenset({"sw.js", "index.html"})
#: The header of a page that says which version of the shell the server serves now.
VERSION_HEADER: Final = "x-wmq-shell"


@dataclass(frozen=True, slots=True)
class Shell:
    """The static files a page needs, as the worker caches them, and their version."""

    #: the addresses the worker caches: ``/static/...`` and the manifest
    urls: tuple[str, ...]
    #: the first 16 hex digits of the SHA-256 of every file's name and contents
    version: str


def shell_files(web: Path) -> list[Path]:
    """The shell's files under ``web``, in a fixed order."""
    files = [
        p
        for p in web.rglob("*")
        if p.is_file()
        and "node_modules" not in p.relative_to(web).parts
        and p.name not in NOT_SHELL
        and not p.name.startswith(".")
    ]
    library = web / UI_LIBRARY
    if library.is_file():
        files.append(library)
    return sorted(files)


def shell_of(web: Path) -> Shell:
    """The shell as it is on disk now (read again only when a file's size or time changed)."""
    files = shell_files(web)
    stamp = tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files)
    return _digest(web, stamp)


@functools.lru_cache(maxsize=4)
def _digest(web: Path, stamp: tuple[tuple[str, int, int], ...]) -> Shell:
    digest = hashlib.sha256()
    urls = []
    for name, _, _ in stamp:
        path = Path(name)
        relative = path.relative_to(web).as_posix()
        digest.update(f"{relative}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
        if relative == "manifest.webmanifest":
            urls.append("/manifest.webmanifest")
        elif relative not in NOT_CACHED:
            urls.append(f"/static/{relative}")
    return Shell(tuple(urls), digest.hexdigest()[:16])


def service_worker(web: Path) -> str:
    """The text of ``/sw.js``: the template ``web/sw.js`` with the shell's files and version."""
    shell = shell_of(web)
    text = (web / "sw.js").read_text(encoding="utf-8")
    text = text.replace('"{{version}}"', json.dumps(shell.version))
    return text.replace('["{{shell}}"]', json.dumps(list(shell.urls)))


class ShellFiles(StaticFiles):
    """``/static``: the UI's files, each asked again of the server before the browser's HTTP
    cache may use it (``no-cache``, answered 304 while it is the same file): the worker's cache
    is the only one that keeps the shell, and it changes with the version."""

    def file_response(
        self, full_path: PathLike, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        """The file's response, with ``Cache-Control: no-cache``."""
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["cache-control"] = "no-cache"
        return response


__all__ = [
    "NOT_SHELL",
    "UI_LIBRARY",
    "VERSION_HEADER",
    "Shell",
    "ShellFiles",
    "service_worker",
    "shell_of",
]
