"""Arena deals as Ray tasks: ``wmq arena --backend ray [--address ADDR]`` (docs/scale.md).

The arena hands this module its jobs (it knows nothing of the arena): each deal is one task
running :func:`weimaque.arena.play_deal`, the very function the local backend runs; results are
taken back in deal order, so for iteration budgets the table is the same as the local backend's
for the same seed. Without an address a local Ray is started with ``workers`` CPUs and stopped
afterwards; with one, the command joins that cluster (every node needs this package installed,
at the same version).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from weimaque.errors import WeimaqueError

T = TypeVar("T")

#: Object store of a local Ray: the results are small, so a small store suffices.
LOCAL_OBJECT_STORE = 100 * 1024 * 1024


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise WeimaqueError(
            f"the ray backend needs the optional extra 'env': pip install -e '.[env]' ({exc})"
        ) from exc
    return ray


def ray_map(
    fn: Callable[..., T], jobs: Sequence[tuple[Any, ...]], workers: int, address: str | None
) -> Iterator[T]:
    """``fn(*job)`` for every job as a Ray task; yield the results in job order.

    Without ``address`` a local Ray is started with ``workers`` CPUs and stopped afterwards.
    """
    ray = _ray()
    started = False
    if not ray.is_initialized():
        try:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(
                    num_cpus=workers,
                    include_dashboard=False,
                    log_to_driver=False,
                    object_store_memory=LOCAL_OBJECT_STORE,
                )
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = address or "a local Ray"
            raise WeimaqueError(f"cannot start or reach {where!r}: {exc}") from exc
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(fn)
        refs = [task.remote(*job) for job in jobs]
        for ref in refs:
            yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()
