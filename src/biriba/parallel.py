"""Independent pieces of work run here, in worker processes or on a Ray cluster.

Tournaments (pairs of duplicate deals) and soak runs (chunks of deals) are
both many independent calls of one function; this is where they are spread
over the cores.  Results come back as they finish, not in order: callers
that need an order carry a number in each result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def run_all(work: Callable[[T], R], items: Iterable[T], jobs: int = 1, ray_address: str | None = None) -> Iterator[R]:
    """``work(item)`` for every item, in this process (``jobs`` 1), in ``jobs`` processes, or on Ray.

    ``work`` must be a module-level function (it is pickled); ``ray_address``
    ``"local"`` starts Ray on this machine for the run.  Processes are given
    at most twice ``jobs`` items at a time, so a long run's queue stays small.
    """
    if ray_address is not None:
        yield from _on_ray(work, items, ray_address)
    elif jobs <= 1:
        yield from map(work, items)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            pending: set[Future[R]] = set()
            for item in items:
                pending.add(pool.submit(work, item))
                if len(pending) >= 2 * jobs:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    yield from (future.result() for future in done)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                yield from (future.result() for future in done)


def _on_ray(work: Callable[[T], R], items: Iterable[T], address: str) -> Iterator[R]:
    """The same calls as Ray tasks (``pip install 'biriba[ray]'``)."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("--ray needs Ray: pip install 'biriba[ray]'") from None
    started = not ray.is_initialized()
    if started:
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(work)
    window = 2 * max(1, int(ray.available_resources().get("CPU", 1)))  # type: ignore[no-untyped-call]
    try:
        pending: list[object] = []
        for item in items:
            pending.append(remote.remote(item))
            if len(pending) >= window:
                done, pending = ray.wait(pending, num_returns=1)
                yield from ray.get(done)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield from ray.get(done)
    finally:
        if started:
            ray.shutdown()
