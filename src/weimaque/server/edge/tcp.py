"""Connections before any request: counted per address and server-wide, and timed.

uvicorn keeps a TCP connection that never sends a request (or sends its head a byte at a time)
open for good; a few hundred of them from one address use up the process's file descriptors,
and then nothing works: no request, no new socket, no database file. :func:`guarded_http` wraps
uvicorn's HTTP protocol so that

- the server holds at most ``Limits.max_connections`` connections (HTTP and WebSocket), and
  never more than its file descriptor limit allows: past that a new one is answered ``503`` and
  closed;
- one address holds at most ``Limits.conns_per_address`` HTTP connections (its WebSockets are
  counted apart, by the app): past that a new one is answered ``429`` and closed;
- a connection must send a complete request head within ``Limits.head_timeout`` seconds of
  opening, or of the end of its previous response, else it is closed.

A connection upgraded to a WebSocket leaves this count for the app's own (``conns_per_address``
and ``join_timeout``, docs/protocol.md §6).
"""

from __future__ import annotations

import asyncio
import resource
from typing import Any, Final

from weimaque.server.base.limits import Counter, Limits

#: Descriptors kept for what is not a connection: the database and its journal, the bot
#: workers' pipes, the listening socket, logs.
FD_RESERVE: Final = 64


def connection_cap(wanted: int) -> int:
    """``wanted``, lowered to fit the process's file descriptor limit."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - FD_RESERVE))


def _refusal(status: str, retry: int) -> bytes:
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: text/plain\r\nretry-after: {retry}\r\n"
        f"connection: close\r\ncontent-length: {len(status) + 1}\r\n\r\n{status}\n"
    ).encode()


FULL: Final = _refusal("503 Service Unavailable", 5)
TOO_MANY: Final = _refusal("429 Too Many Requests", 5)


def guarded_http(limits: Limits, trusted: tuple[str, ...] = ()) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class with the caps and the head timeout of ``limits``; the
    ``trusted`` proxies (a load balancer, a cluster's peers) carry many clients and are not
    held to one address's share."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    base: Any = AutoHTTPProtocol
    cap = connection_cap(limits.max_connections)
    per_address = Counter()

    class Guarded(base):  # type: ignore[misc]
        """One HTTP connection, counted and timed (see the module docstring)."""

        _address: str | None = None
        _timer: asyncio.TimerHandle | None = None
        _armed: object = None

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
            if len(self.connections) > cap:
                self._refuse(transport, FULL)
                return
            if address in trusted:
                self._arm()
                return
            if not per_address.add(address, limits.conns_per_address):
                self._refuse(transport, TOO_MANY)
                return
            self._address = address
            self._arm()

        def _refuse(self, transport: asyncio.Transport, answer: bytes) -> None:
            transport.write(answer)
            transport.close()

        def _release(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._address is not None:
                per_address.remove(self._address)
                self._address = None

        def _arm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
            # A new request replaces ``cycle``: the one seen now is the one before it.
            self._armed = self.cycle
            self._timer = asyncio.get_running_loop().call_later(limits.head_timeout, self._expire)

        def _expire(self) -> None:
            self._timer = None
            transport = self.transport
            if transport.is_closing() or transport.get_protocol() is not self:
                return  # closed already, or a WebSocket now
            cycle = self.cycle
            if cycle is self._armed and (cycle is None or cycle.response_complete):
                transport.close()  # no request head came in time, and none is running

        def connection_lost(self, exc: Exception | None) -> None:
            self._release()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._address is not None and not self.transport.is_closing():
                self._arm()

        def handle_websocket_upgrade(self, *args: Any) -> None:
            self._release()
            super().handle_websocket_upgrade(*args)

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    return Guarded


__all__ = ["connection_cap", "guarded_http"]
