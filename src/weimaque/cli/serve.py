"""``wmq serve``: the browser game server (rooms, bots, reconnects, replays; docs/protocol.md)."""

from __future__ import annotations

import dataclasses
import sys
from typing import Annotated, Any

import typer


def parse_limits(items: list[str]) -> Any:
    """``Limits`` with ``name=value`` overrides (``--limit seat_grace=60``); exit 2 on a bad one."""
    from weimaque.server.base.limits import Limits

    fields = {f.name: f for f in dataclasses.fields(Limits)}
    values: dict[str, Any] = {}
    for item in items:
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or name not in fields:
            raise typer.BadParameter(
                f"{item!r}: expected NAME=VALUE with NAME one of {', '.join(fields)}",
                param_hint="--limit",
            )
        kind = type(getattr(Limits(), name))
        try:
            value = kind(text)
        except ValueError as exc:
            raise typer.BadParameter(f"{item!r}: {exc}", param_hint="--limit") from exc
        if not value > 0:
            raise typer.BadParameter(f"{item!r}: must be positive", param_hint="--limit")
        values[name] = value
    return Limits(**values)


def quiet_collector() -> None:
    """Keep Python's cycle collector from pausing every table at once.

    A full collection walks every object the process holds; with the server's modules, the
    rules and fifty tables in memory it stopped the event loop for tens of milliseconds, the
    whole tail of ``bench/server.py``'s latency. What exists at start-up (modules, presets, the
    app) lives as long as the process: ``gc.freeze`` moves it out of the collector's sight, and
    a larger first threshold collects the short-lived garbage of each action less often.
    """
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def register(app: typer.Typer) -> None:
    """Add ``wmq serve`` to the CLI."""

    @app.command("serve")
    def serve(
        host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
        db: Annotated[
            str | None,
            typer.Option("--db", help="SQLite file (default $WMQ_DB or ./weimaque.db)."),
        ] = None,
        store: Annotated[
            str | None,
            typer.Option(
                "--store",
                envvar="WMQ_STORE",
                help="The store: a postgresql://… URL, or an SQLite file's path (wins over "
                "--db; docs/protocol.md §4).",
            ),
        ] = None,
        limit: Annotated[
            list[str] | None,
            typer.Option(
                "--limit",
                help="Change one bound, NAME=VALUE (repeatable): max_message, max_body, "
                "queue_messages, send_timeout, conns_per_room, conns_per_address, "
                "max_connections, join_timeout, head_timeout, room_burst, "
                "room_interval, rooms_per_address, bot_rooms_per_address, unattended_delay_ms, "
                "http_burst, http_rate, ws_burst, ws_rate, ws_address_burst, "
                "ws_address_rate, seat_grace, "
                "idle_evict, bot_workers, reviews_per_address, reviews_waiting "
                "(docs/protocol.md §6).",
            ),
        ] = None,
        redis: Annotated[
            str | None,
            typer.Option(
                "--redis",
                help="Join a cluster: Redis holds which process owns each room (docs/scale.md).",
            ),
        ] = None,
        node_url: Annotated[
            str | None,
            typer.Option(
                "--node-url",
                help="How the cluster's other processes reach this one (default http://HOST:PORT).",
            ),
        ] = None,
        lease_seconds: Annotated[
            float,
            typer.Option("--lease-seconds", min=0.3, max=60.0, help="A room lease's length."),
        ] = 3.0,
        trust_proxy: Annotated[
            list[str] | None,
            typer.Option(
                "--trust-proxy",
                help="An address whose X-Forwarded-For is believed: the load balancer, the "
                "cluster's other processes (repeatable).",
            ),
        ] = None,
    ) -> None:
        """Serve the browser game: open the printed URL, create a room, share its link."""
        import uvicorn

        from weimaque.server.app import create_app
        from weimaque.server.edge.tcp import guarded_http
        from weimaque.server.store.persist import SWITCH_INTERVAL_SECONDS
        from weimaque.server.store.store import default_path, open_store

        limits = parse_limits(limit or [])
        opened = open_store(store or db or default_path())
        shown = f"[{host}]" if ":" in host else host
        # A loopback server is opened by its name, localhost: a page on a bare address gets
        # no passkeys (docs/web.md).
        address = "localhost" if host in ("127.0.0.1", "::1") else shown
        typer.echo(f"wmq serve: http://{address}:{port}/  (database {opened.path})", err=False)
        cluster = None
        if redis is not None:
            from weimaque.server.cluster.leases import ClusterConfig

            node = node_url or f"http://{shown}:{port}"
            cluster = ClusterConfig(redis, node.rstrip("/"), lease_seconds)
            typer.echo(f"wmq serve: in the cluster of {redis} as {node}")
        trusted = list(trust_proxy or [])
        app_ = create_app(store=opened, limits=limits, cluster=cluster, trusted=tuple(trusted))
        quiet_collector()
        # The store's writer thread gets the interpreter lock sooner (docs/protocol.md §4).
        sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
        uvicorn.run(
            app_,
            host=host,
            port=port,
            log_level="warning",
            # Connections are counted per address and must send their request in time (§6).
            http=guarded_http(limits, trusted=tuple(trusted)),
            # The client's address, from the X-Forwarded-For of a trusted balancer or peer.
            proxy_headers=bool(trusted),
            forwarded_allow_ips=trusted or None,
            # Frames are refused above the size limit before they are read in full, and no
            # frame is ever inflated: a small compressed frame cannot cost a large one's CPU.
            ws="websockets-sansio",
            ws_max_size=limits.max_message,
            ws_per_message_deflate=False,
            ws_max_queue=16,
            h11_max_incomplete_event_size=16 * 1024,
            timeout_keep_alive=5,
        )
