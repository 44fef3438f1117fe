"""What an operator watches, counted where things happen (docs/scale.md, "Watching").

The process-wide series of :data:`REGISTRY`: acts and their act→ack latency, the store's write
latency, relayed traffic, refusals of the per-address budgets. Each costs a lock and an addition
where it is counted (about a microsecond per act: bench/server.py). ``GET /metrics`` answers
them with each server's own series read when scraped (:mod:`..edge.scrape`).
"""

from __future__ import annotations

from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

#: The series counted where things happen, in this process.
REGISTRY: Final = CollectorRegistry(auto_describe=True)

#: Latency buckets (seconds) of an act's answer and a store's transaction: sub-millisecond
#: commits of a local file up to the store's 10 s give-up.
_LATENCY: Final = (
    *(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05),
    *(0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)

ACT_ACK: Final = Histogram(
    "wmq_act_ack_seconds",
    "A player's act, from its arrival to its answer (ack once stored, or its error); its "
    "_count is the acts answered",
    buckets=_LATENCY,
    registry=REGISTRY,
)
STORE_WRITE: Final = Histogram(
    "wmq_store_write_seconds",
    "One transaction of the store's writer (a batch of queued writes), commit included",
    buckets=_LATENCY,
    registry=REGISTRY,
)
RELAY_REQUESTS: Final = Counter(
    "wmq_relay_requests",
    "Requests of a room relayed to its owner (kind: http or websocket)",
    ["kind"],
    registry=REGISTRY,
)
RELAY_BYTES: Final = Counter(
    "wmq_relay_bytes",
    "Bytes relayed between clients and rooms' owners (direction: to_owner or from_owner)",
    ["direction"],
    registry=REGISTRY,
)
RELAY_REFUSED: Final = Counter(
    "wmq_relay_refused_bodies",
    "Relayed request bodies refused (413) for passing the owner's max_body, unread",
    registry=REGISTRY,
)
RELAY_SOCKETS: Final = Gauge(
    "wmq_relay_sockets", "WebSockets being relayed to rooms' owners now", registry=REGISTRY
)
RATE_LIMITED: Final = Counter(
    "wmq_rate_limited",
    "Requests and messages refused by a per-address budget (budget: http, rooms, players, "
    "invites, guesses, ws_messages)",
    ["budget"],
    registry=REGISTRY,
)

HTTP_RELAYED: Final = RELAY_REQUESTS.labels("http")
WS_RELAYED: Final = RELAY_REQUESTS.labels("websocket")
TO_OWNER: Final = RELAY_BYTES.labels("to_owner")
FROM_OWNER: Final = RELAY_BYTES.labels("from_owner")
WS_MESSAGES_LIMITED: Final = RATE_LIMITED.labels("ws_messages")

__all__ = [
    "ACT_ACK",
    "RATE_LIMITED",
    "REGISTRY",
    "RELAY_BYTES",
    "RELAY_REFUSED",
    "RELAY_REQUESTS",
    "RELAY_SOCKETS",
    "STORE_WRITE",
]
