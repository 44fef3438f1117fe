"""A whole cluster on this machine: PostgreSQL, Redis, N ``wmq serve`` processes and HAProxy.

Each piece is Debian's binary run as this user (PostgreSQL as ``postgres`` when this is root)
in a folder of its own under the cluster's folder, with its log there:

    FOLDER/postgres/   the store (weimaque.deploy.postgres), everything acknowledged
    FOLDER/redis/      who owns each live room (weimaque.deploy.redis)
    FOLDER/serve-K.log the K-th ``wmq serve`` process
    FOLDER/haproxy/    the balancer's configuration and log (weimaque.deploy.haproxy)

Clients open the balancer's URL; each process is also reachable at its own (``--node-url``),
as its peers reach it to forward a room's socket to the room's owner (docs/scale.md).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from weimaque.deploy.haproxy import LocalHAProxy
from weimaque.deploy.postgres import LocalPostgres
from weimaque.deploy.process import Piece, free_port
from weimaque.deploy.redis import LocalRedis

START_SECONDS = 60.0
STOP_SECONDS = 10.0

#: The Redis key of a room's lease: its value is ``"{node} {url}"``
#: (weimaque.server.cluster.leases).
LEASE_KEY = "wmq:room:{}"


def live(url: str, timeout: float = 1.0) -> bool:
    """Whether the server at ``url`` answers ``GET /api/live`` with 200."""
    try:
        with urllib.request.urlopen(f"{url}/api/live", timeout=timeout) as res:
            return bool(res.status == 200)
    except OSError:
        return False


def scratch_folder(prefix: str = "wmq-cluster-") -> tempfile.TemporaryDirectory[str]:
    """A temporary folder for a cluster, removed when it is cleaned up.

    Made private (0700) by Python; opened for traversal (0711) so that PostgreSQL, run as its
    own user when this is root (weimaque.deploy.postgres), reaches its folder inside.
    """
    folder = tempfile.TemporaryDirectory(prefix=prefix)
    os.chmod(folder.name, 0o711)
    return folder


class ClusterServer:
    """One ``wmq serve`` process of a cluster, on its own port, with its log in a file."""

    def __init__(self, args: Sequence[str], port: int, log: Path) -> None:
        self.port = port
        self.log = log
        self._args = list(args)
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``: the process itself, past the balancer."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        """The process id, or None while stopped."""
        return None if self._proc is None else self._proc.pid

    @property
    def running(self) -> bool:
        """Whether the process exists (it may be paused)."""
        return self._proc is not None and self._proc.poll() is None

    def __repr__(self) -> str:
        return f"<ClusterServer {self.url} pid={self.pid}>"

    def spawn(self) -> None:
        """Start the process; ``wait_live()`` waits for it to serve."""
        if self.running:
            return
        out: IO[bytes] = self.log.open("ab")
        try:
            self._proc = subprocess.Popen(
                self._args,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                process_group=0,  # Ctrl-C reaches the parent alone, which stops this
            )
        finally:
            out.close()

    def wait_live(self, seconds: float = START_SECONDS) -> None:
        """Wait until ``/api/live`` answers; RuntimeError quoting the log if it never does."""
        deadline = time.monotonic() + seconds
        while not live(self.url):
            proc = self._proc
            if proc is None or proc.poll() is not None or time.monotonic() > deadline:
                code = None if proc is None else proc.poll()
                raise RuntimeError(
                    f"wmq serve on {self.url} did not start (exit {code}); "
                    f"its log ({self.log}):\n{self.output()}"
                )
            time.sleep(0.1)

    def start(self) -> None:
        """Start the process and wait until it serves."""
        self.spawn()
        self.wait_live()

    def kill(self) -> None:
        """SIGKILL: the process dies at once, as a crashed machine's would."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
        if proc is not None:
            proc.wait()

    def pause(self) -> None:
        """SIGSTOP: the process stays, answering nothing (a stalled machine)."""
        if self._proc is not None:
            self._proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT after ``pause()``."""
        if self._proc is not None:
            self._proc.send_signal(signal.SIGCONT)

    def terminate(self) -> None:
        """Ask the process to stop (SIGTERM) without waiting; ``stop()`` waits."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGCONT)  # a paused process must run to stop
            proc.terminate()

    def stop(self) -> None:
        """Stop the process (SIGTERM, then SIGKILL after 10 s)."""
        self.terminate()
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def restart(self) -> None:
        """Stop the process (if it runs) and start it again on the same port."""
        self.stop()
        self.start()

    def output(self, chars: int = 4000) -> str:
        """The end of the process's log."""
        try:
            return self.log.read_text("utf-8", "replace")[-chars:]
        except OSError:
            return ""


class LocalCluster(Piece):
    """PostgreSQL, Redis, ``servers`` ``wmq serve`` processes and HAProxy, in ``folder``.

    Started by the constructor (everything is stopped again if a piece fails to start);
    ``url`` is the balancer's, where clients go; ``port`` is where it listens (a free one
    when not given). ``close()`` stops all of it. ``serve_args`` are added to every
    ``wmq serve`` (``["--limit", "seat_grace=60"]``); with ``tls_cert`` (a PEM of the
    certificate chain and key) the balancer speaks TLS (docs/scale.md). ``redis_via``, given
    the number of a process and Redis's URL, says the URL that process reaches Redis at (a
    proxy between them, which a test can cut: a partition); by default Redis's own.
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        servers: int = 2,
        port: int | None = None,
        lease_seconds: float | None = None,
        serve_args: Sequence[str] = (),
        tls_cert: str | os.PathLike[str] | None = None,
        redis_via: Callable[[int, str], str] | None = None,
    ) -> None:
        if servers < 1:
            raise ValueError(f"a cluster needs at least one server, not {servers}")
        self.folder = Path(folder).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.servers: list[ClusterServer] = []
        self.haproxy: LocalHAProxy | None = None
        self.postgres = LocalPostgres(self.folder / "postgres")
        self.redis = LocalRedis(self.folder / "redis")
        self._redis_via = redis_via
        try:
            self.postgres.start()
            self.redis.start()
            for k in range(servers):
                self.servers.append(self._server(k, lease_seconds, serve_args))
            for server in self.servers:
                server.spawn()
            for server in self.servers:
                server.wait_live()
            self.haproxy = LocalHAProxy(
                self.folder / "haproxy",
                [("127.0.0.1", s.port) for s in self.servers],
                port=port,
                tls_cert=tls_cert,
            )
        except BaseException:
            self.close()
            raise

    def _server(
        self, k: int, lease_seconds: float | None, serve_args: Sequence[str]
    ) -> ClusterServer:
        port = free_port()
        args = [sys.executable, "-c", "from weimaque.cli.app import main; main()", "serve"]
        args += ["--host", "127.0.0.1", "--port", str(port)]
        redis_url = self.redis.url
        if self._redis_via is not None:
            redis_url = self._redis_via(k, redis_url)
        args += ["--store", self.postgres.url, "--redis", redis_url]
        args += ["--node-url", f"http://127.0.0.1:{port}", "--trust-proxy", "127.0.0.1"]
        if lease_seconds is not None:
            args += ["--lease-seconds", str(lease_seconds)]
        args += list(serve_args)
        return ClusterServer(args, port, self.folder / f"serve-{k + 1}.log")

    @property
    def url(self) -> str:
        """The balancer's URL: what clients open."""
        if self.haproxy is None:
            raise RuntimeError("the cluster is not running")
        return self.haproxy.url

    @property
    def port(self) -> int:
        """The balancer's port."""
        if self.haproxy is None:
            raise RuntimeError("the cluster is not running")
        return self.haproxy.port

    def owner(self, room_id: str) -> ClusterServer | None:
        """The process whose lease on ``room_id`` Redis holds now, or None (no live owner)."""
        import redis

        client = redis.Redis.from_url(self.redis.url, socket_timeout=2)
        try:
            held = client.get(LEASE_KEY.format(room_id))
        finally:
            client.close()
        if not isinstance(held, bytes):
            return None
        url = held.decode().rsplit(" ", 1)[-1].rstrip("/")
        return next((s for s in self.servers if s.url == url), None)

    def __repr__(self) -> str:
        shown = self.haproxy.url if self.haproxy is not None else "stopped"
        return f"<LocalCluster {shown}: {len(self.servers)} servers in {self.folder}>"

    def close(self) -> None:
        """Stop the balancer, the servers, Redis and PostgreSQL (what of them was started)."""
        haproxy, self.haproxy = self.haproxy, None
        with contextlib.ExitStack() as stack:
            # Callbacks run last-in first-out, each even if one before it failed: the balancer
            # first, then every server (all asked at once, then each waited for), PostgreSQL last.
            stack.callback(self.postgres.close)
            stack.callback(self.redis.close)
            for server in self.servers:
                stack.callback(server.stop)
            for server in self.servers:
                stack.callback(server.terminate)
            if haproxy is not None:
                stack.callback(haproxy.close)
