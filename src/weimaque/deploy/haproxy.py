"""The load balancer in front of a cluster of ``wmq serve`` processes: Debian's HAProxy.

Every request of a room (``/r/{id}``, ``/ws/{id}``, ``/api/rooms/{id}`` and below) goes to the
process a consistent hash of the room id picks, so a room's sockets and reads meet in one
process; everything else (the lobby, ``POST /api/rooms``, static files) is balanced round-robin.
A process is checked with ``GET /api/live`` every 500 ms, taken out after 2 failures and back
after 2 successes; ``/api/live`` and not ``/api/health``, which answers 503 while the store is
failing, when a table waits for the store and its sockets must stay up (docs/protocol.md §4).

With a certificate (``tls_cert``, a PEM holding the certificate chain and its key) the balancer
speaks TLS to clients and plain HTTP to the processes, telling them the scheme in
``X-Forwarded-Proto`` (never a client's own), which a process that trusts the balancer reads:
its cookies are ``Secure`` and a passkey's origin is ``https://`` (docs/scale.md).

``haproxy_config`` renders the configuration for any list of backends: ``LocalHAProxy`` runs it
on this machine, and the same text serves several machines (docs/scale.md).
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from weimaque.deploy.process import Piece, end, free_port

HAPROXY = "/usr/sbin/haproxy"
START_SECONDS = 15.0

# WebSockets at a table stay open for a whole match: a quiet table (everyone thinking, a break
# between hands) must not be cut by the balancer, and the server pings its sockets (§2.1 ping).
LONG_TIMEOUT = "1h"


def available(binary: str = HAPROXY) -> bool:
    """Whether Debian's ``haproxy`` is installed (``apt-get install haproxy``)."""
    return os.access(binary, os.X_OK)


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def haproxy_config(
    backends: Sequence[tuple[str, int]],
    bind: str = "*:80",
    edge: bool = True,
    maxconn: int | None = None,
    tls_cert: str | os.PathLike[str] | None = None,
) -> str:
    """HAProxy 2.6's configuration for ``wmq serve`` processes at ``backends`` (host, port).

    ``bind`` is where the balancer listens (``127.0.0.1:8000``, ``*:80``). With ``edge`` (the
    balancer is what clients connect to) an ``X-Forwarded-For`` sent by a client is dropped
    before the balancer adds the client's address, so a server that trusts the balancer
    (``--trust-proxy``) reads the real one, and ``X-Forwarded-Proto`` is set to the scheme the
    client used (a client's own is replaced); behind another proxy, pass ``edge=False``.
    ``tls_cert`` (a PEM file: certificate chain and private key) makes the balancer listen with
    TLS (``bind ... ssl crt``).
    ``maxconn`` bounds the balancer's connections (a table holds three sockets, a spectator
    one); without it HAProxy derives the bound from its file limit (``ulimit -n``).

    >>> "balance hash var(txn.room)" in haproxy_config([("10.0.0.1", 8000)])
    True
    """
    if not backends:
        raise ValueError("haproxy_config: no backends given")
    checked = "\n".join(
        f"    server wmq{k + 1} {_address(host, port)} check"
        for k, (host, port) in enumerate(backends)
    )
    # The other backend follows the rooms backend's checks: one check per process.
    tracking = "\n".join(
        f"    server wmq{k + 1} {_address(host, port)} track rooms/wmq{k + 1}"
        for k, (host, port) in enumerate(backends)
    )
    limit = "" if maxconn is None else f"global\n    maxconn {maxconn}\n\n"
    drop = (
        "    http-request del-header X-Forwarded-For\n"
        "    http-request set-header X-Forwarded-Proto https if { ssl_fc }\n"
        "    http-request set-header X-Forwarded-Proto http if !{ ssl_fc }\n"
        if edge
        else ""
    )
    if tls_cert is not None and any(c in str(tls_cert) for c in " \t\n\"'#\\"):
        raise ValueError(f"haproxy_config: a certificate path without spaces, not {tls_cert!r}")
    tls = "" if tls_cert is None else f" ssl crt {tls_cert}"
    return f"""\
# wmq serve behind HAProxy 2.6 (weimaque.deploy.haproxy.haproxy_config).
{limit}defaults
    mode http
    option forwardfor
    option redispatch 1
    retries 2
    timeout connect 5s
    timeout client {LONG_TIMEOUT}
    timeout server {LONG_TIMEOUT}
    timeout tunnel {LONG_TIMEOUT}
    timeout http-request 10s
    timeout check 2s

frontend wmq
    bind {bind}{tls}
{drop}\
    # The room a request belongs to: /r/ID, /ws/ID, /api/rooms/ID and below (docs/protocol.md §1-2).
    http-request set-var(txn.room) path,field(3,/) if {{ path_beg /r/ /ws/ }}
    http-request set-var(txn.room) path,field(4,/) if {{ path_beg /api/rooms/ }}
    use_backend rooms if {{ var(txn.room) -m found }}
    default_backend others

# A room's requests: one process per room id while it is up; when it goes down only its rooms
# move, and its sockets are closed so that their clients reconnect to the rooms' new owner.
backend rooms
    balance hash var(txn.room)
    hash-type consistent
    option httpchk
    http-check send meth GET uri /api/live
    http-check expect status 200
    # A weight of 100 puts each process at 100 times more points of the hash ring than the
    # default 1: rooms spread within a few percent of even (about 60/40 over two at weight 1).
    default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions weight 100
{checked}

backend others
    balance roundrobin
{tracking}
"""


def check_config(path: str | os.PathLike[str], binary: str = HAPROXY) -> None:
    """Raise ``ValueError`` quoting HAProxy's words unless ``haproxy -c -f path`` accepts it."""
    done = subprocess.run(
        [binary, "-c", "-f", str(path)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise ValueError(f"haproxy rejects {str(path)!r}: {(done.stdout + done.stderr).strip()}")


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class LocalHAProxy(Piece):
    """HAProxy on 127.0.0.1 in front of ``backends``, its configuration and log in ``folder``.

    Started by the constructor (in the foreground, ``-db``, as a child process); ``close()``
    stops it. ``port`` is where it listens (a free one when not given); with ``tls_cert`` (a
    PEM of the certificate chain and key) it listens with TLS.
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        backends: Sequence[tuple[str, int]],
        port: int | None = None,
        binary: str = HAPROXY,
        tls_cert: str | os.PathLike[str] | None = None,
    ) -> None:
        if not available(binary):
            raise RuntimeError(f"haproxy is not installed at {binary!r}")
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.backends = list(backends)
        self.port = port if port is not None else free_port()
        self.tls = tls_cert is not None
        self.config = self.folder / "haproxy.cfg"
        self.log = self.folder / "haproxy.log"
        self.config.write_text(
            haproxy_config(self.backends, bind=f"127.0.0.1:{self.port}", tls_cert=tls_cert),
            encoding="utf-8",
        )
        check_config(self.config, binary)
        out: IO[bytes] = self.log.open("ab")
        try:
            self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [binary, "-db", "-f", str(self.config)],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                process_group=0,  # Ctrl-C reaches the parent alone, which stops this
            )
        finally:
            out.close()
        deadline = time.monotonic() + START_SECONDS
        while not _listening(self.port):
            proc = self._proc
            if proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                shown = self.log.read_text("utf-8", "replace")[-4000:]
                raise RuntimeError(
                    f"haproxy did not listen on 127.0.0.1:{self.port} "
                    f"(exit {proc.returncode}); its output:\n{shown}"
                )
            time.sleep(0.05)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (``https://`` with TLS): what clients open."""
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        """HAProxy's process id, or None once closed."""
        return None if self._proc is None else self._proc.pid

    def __repr__(self) -> str:
        return f"LocalHAProxy({str(self.folder)!r}, {self.backends!r}, port={self.port})"

    def close(self) -> None:
        """Stop HAProxy (SIGTERM, then SIGKILL after 10 s)."""
        proc, self._proc = self._proc, None
        end(proc)
