"""``GET /metrics``: each process's Prometheus metrics, to a scraper (docs/scale.md, "Watching").

``GET /metrics`` answers the text format of ``prometheus_client`` to a scraper that connects
from this machine (loopback) or from an address named by ``--trust-proxy``, directly: a request
that carries ``X-Forwarded-For`` (or ``Forwarded``, ``X-Real-IP``) came through a balancer or a
relay, from a player, and is answered 404 like any unknown path. Players never see it.

Two kinds of series:

- counted where things happen, process-wide (:mod:`..base.metrics`): acts and their act→ack
  latency, the store's write latency, relayed traffic, refusals of the per-address budgets. Each
  costs a lock and an addition where it is counted (about a microsecond per act:
  bench/server.py);
- read when scraped, per server (:class:`ServerCollector`): rooms in memory, leases held,
  claimed, renewed and lost (``Cluster.stats``), fenced writes refused (``Store.fence``), the
  store's queue and whether it fails, sockets by state.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Final

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response

from weimaque.server.base.metrics import REGISTRY
from weimaque.server.cluster.leases import LeaseStats

if TYPE_CHECKING:
    from weimaque.server.edge.context import Server


#: Headers that say a request came through a balancer or a relay: never a scraper's.
FORWARDED: Final = ("x-forwarded-for", "forwarded", "x-real-ip")


class ServerCollector(Collector):
    """The series of one server read when scraped."""

    def __init__(self, server: Server) -> None:
        self.server = server

    def collect(self) -> Iterable[Metric]:
        """Rooms, leases, the store's queue, sockets by state."""
        s = self.server
        rooms = list(s.manager.rooms.values())
        yield _gauge("wmq_rooms_in_memory", "Rooms held in this process's memory", len(rooms))
        if s.cluster is not None:
            held = len(s.cluster.until)
            yield _gauge("wmq_leases_held", "Room leases this process holds (cluster)", held)
            failing = int(s.cluster.failing is not None)
            yield _gauge("wmq_redis_failing", "1 while Redis does not answer (cluster)", failing)
        leases = s.cluster.stats if s.cluster is not None else LeaseStats()
        took, renewed = leases.claimed, leases.renewed
        yield _counter("wmq_leases_claimed", "Room leases this process took (cluster)", took)
        yield _counter("wmq_leases_renewed", "Room leases renewed in Redis (cluster)", renewed)
        yield _counter(
            "wmq_leases_lost",
            "Room leases found gone or another's at a renewal: the room was dropped (cluster)",
            leases.lost,
        )
        yield _counter(
            "wmq_fenced_writes_refused",
            "Writes of a room the store refused inside their transaction because a newer owner "
            "holds the room (its epoch, the fencing token, is newer than the write's)",
            s.store.fence.refused,
        )
        yield _gauge("wmq_store_queue", "Writes queued for the store's writer", s.store.pending())
        failing = int(s.store.failing is not None)
        yield _gauge("wmq_store_failing", "1 while the store cannot write", failing)
        states = {"seated": 0, "watching": 0, "spectating": 0}
        for room in rooms:
            for conn in room.seating.conns:
                if conn.seat is not None:
                    states["seated"] += 1
                elif conn.held is not None:
                    states["watching"] += 1
                else:
                    states["spectating"] += 1
        family = GaugeMetricFamily(
            "wmq_sockets",
            "Players' WebSockets open to rooms of this process, by state: seated, watching "
            "(旁观, holding a seat) or spectating",
            labels=["state"],
        )
        for state, count in states.items():
            family.add_metric([state], count)
        yield family

    def describe(self) -> Iterator[Metric]:
        """Nothing up front (the series are collected when scraped)."""
        return iter(())


def _gauge(name: str, text: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, text, value=value)


def _counter(name: str, text: str, value: float) -> CounterMetricFamily:
    return CounterMetricFamily(name, text, value=value)


def registry_of(server: Server) -> CollectorRegistry:
    """The registry of one server's scrape-time series."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ServerCollector(server))
    return registry


def may_scrape(request: Request, trusted: Iterable[str]) -> bool:
    """Whether ``request`` is a scraper's: a direct connection (no forwarding header) from
    loopback or from a ``--trust-proxy`` address."""
    if any(name in request.headers for name in FORWARDED):
        return False
    host = request.client.host if request.client is not None else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if address.is_loopback:
        return True
    for entry in trusted:  # an address or a network ("*", trusting anyone, opens nothing)
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def exposition(server_registry: CollectorRegistry) -> Response:
    """The text of every series: the process's and the server's."""
    text = generate_latest(REGISTRY) + generate_latest(server_registry)
    return Response(text, media_type="text/plain; version=0.0.4; charset=utf-8")


__all__ = [
    "ServerCollector",
    "exposition",
    "may_scrape",
    "registry_of",
]
