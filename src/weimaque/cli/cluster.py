"""``wmq cluster``: the server as a cluster on this machine, behind a load balancer.

PostgreSQL, Redis, N ``wmq serve`` processes and HAProxy (weimaque.deploy.local), each from
Debian's packages, until Ctrl-C (docs/scale.md).
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add ``wmq cluster`` to the CLI."""
    app.command("cluster")(cluster)


def cluster(
    servers: Annotated[
        int, typer.Option("--servers", min=1, max=64, help="wmq serve processes.")
    ] = 2,
    port: Annotated[
        int, typer.Option("--port", min=1, max=65535, help="The balancer's port.")
    ] = 8000,
    folder: Annotated[
        Path | None,
        typer.Option(
            "--folder",
            help="Where the pieces keep their data and logs (kept; default a temporary "
            "folder, removed at the end). PostgreSQL runs as its own user when this is root: "
            "the folder must be reachable by it (e.g. under /tmp).",
        ),
    ] = None,
    tls_cert: Annotated[
        Path | None,
        typer.Option(
            "--tls-cert",
            help="A PEM file of the certificate chain and its private key: the balancer "
            "speaks https (the servers behind it read the scheme from it; docs/scale.md).",
        ),
    ] = None,
) -> None:
    """Serve the browser game from a local cluster: PostgreSQL, Redis, N servers, HAProxy."""
    from weimaque.deploy import haproxy, postgres, redis
    from weimaque.deploy.local import LocalCluster, scratch_folder

    missing = [
        name
        for name, ok in (
            ("postgresql", postgres.available()),
            ("redis-server", redis.available()),
            ("haproxy", haproxy.available()),
        )
        if not ok
    ]
    if missing:
        typer.echo(
            f"wmq cluster: not installed: {', '.join(missing)} "
            f"(apt-get install {' '.join(missing)})",
            err=True,
        )
        raise typer.Exit(2)
    if tls_cert is not None and not tls_cert.is_file():
        typer.echo(f"wmq cluster: no certificate file {str(tls_cert)!r}", err=True)
        raise typer.Exit(2)
    temporary = None
    if folder is None:
        temporary = scratch_folder()
        folder = Path(temporary.name)

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    # Ctrl-C and SIGTERM both stop everything, even where a shell started this with SIGINT
    # ignored (a background job).
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        typer.echo(f"wmq cluster: starting {servers} servers in {folder} …")
        cert = None if tls_cert is None else tls_cert.resolve()
        with LocalCluster(folder, servers=servers, port=port, tls_cert=cert) as running:
            typer.echo(f"wmq cluster: {running.url}/")
            typer.echo(f"  balancer   {running.url}  (haproxy, {folder / 'haproxy'})")
            for k, server in enumerate(running.servers, 1):
                typer.echo(f"  server {k:<3} {server.url}  (pid {server.pid}, {server.log})")
            # Each process's Prometheus metrics, answered on this machine only (docs/scale.md).
            for k, server in enumerate(running.servers, 1):
                typer.echo(f"  metrics {k:<2} {server.url}/metrics")
            typer.echo(f"  postgresql {running.postgres.url}")
            typer.echo(f"  redis      {running.redis.url}")
            typer.echo("Ctrl-C stops all of it.")
            gone: set[int] = set()
            while True:
                time.sleep(1)
                for k, server in enumerate(running.servers, 1):
                    if not server.running and k not in gone:
                        gone.add(k)
                        typer.echo(f"wmq cluster: server {k} exited; see {server.log}", err=True)
    except KeyboardInterrupt:
        typer.echo("wmq cluster: stopped")
    except RuntimeError as exc:
        typer.echo(f"wmq cluster: {exc}", err=True)
        raise typer.Exit(1) from exc
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if temporary is not None:
            temporary.cleanup()
