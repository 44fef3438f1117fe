"""``wmq serve``: the browser game server (rooms, bots, reconnects, replays; docs/protocol.md)."""

from __future__ import annotations

from typing import Annotated

import typer


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
    ) -> None:
        """Serve the browser game: open the printed URL, create a room, share its link."""
        import uvicorn

        from weimaque.server.app import create_app
        from weimaque.server.store import default_path

        path = db or default_path()
        shown = f"[{host}]" if ":" in host else host
        typer.echo(f"wmq serve: http://{shown}:{port}/  (database {path})", err=False)
        # Messages are small JSON: per-message compression costs the server more CPU than the
        # bytes it saves on a LAN, and it is the largest share of a move's cost under load.
        uvicorn.run(
            create_app(path),
            host=host,
            port=port,
            log_level="warning",
            ws_per_message_deflate=False,
        )
