"""The browser game server: rooms, the WebSocket protocol (docs/protocol.md), persistence.

Its packages, from the top (docs/architecture.md, "Inside the server"): ``app`` (the Starlette
app), ``players``, ``edge``, ``cluster``, ``table``, ``store`` and ``wire``, ``base``.
``create_app`` is :func:`weimaque.server.app.create_app`, loaded when first asked for, so that a
part of the server (a store, the protocol) is imported without the whole app.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """``create_app``, from :mod:`.app` on first use (PEP 562)."""
    if name == "create_app":
        from weimaque.server.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["create_app"]
