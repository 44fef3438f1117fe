"""What the server benchmarks share: a free port, a real ``wmq serve`` in a subprocess, JSON."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO, Any


def free_port() -> int:
    """A free loopback port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    db: Path, port: int, limits: tuple[str, ...] = (), log: Path | None = None
) -> subprocess.Popen[bytes]:
    """``wmq serve`` on ``port`` with the database ``db`` and ``--limit`` overrides, once it
    answers ``/api/health``; its output goes to ``log`` (or nowhere)."""
    code = "from weimaque.cli.app import main; main()"
    args = [sys.executable, "-c", code, "serve", "--port", str(port), "--db", str(db)]
    for limit in limits:
        args += ["--limit", limit]
    out: IO[bytes] | int = log.open("wb") if log is not None else subprocess.DEVNULL
    proc = subprocess.Popen(args, stdout=out, stderr=out)
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1):
                return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                shown = log.read_text("utf-8", "replace") if log is not None else ""
                raise RuntimeError(f"the server did not start\n{shown}") from None
            time.sleep(0.1)


def post(port: int, path: str, body: Any) -> Any:
    """POST a JSON body; the JSON answer."""
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())
