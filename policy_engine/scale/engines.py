"""Execution engines behind ``--engine``: a local process pool (default) and Ray Data.

Both take batches of documents (columns ``doc_id``, ``digest``, ``text``)
and yield batches of :class:`~policy_engine.scale.state.DocumentResult` as
they complete, loading the policy's engine once per worker:

* ``local``: :class:`concurrent.futures.ProcessPoolExecutor` (spawned
  processes, so no model state is shared through fork), at most two batches
  in flight per worker (backpressure); each worker exits when its driver
  dies, however it died (a watchdog thread sees it re-parented);
* ``ray``: ``ray.data.from_items(...).map_batches(SanitizeWorker, concurrency=N)``,
  an actor pool of N workers with one CPU each, streamed back to the driver
  (Ray Data's streaming executor applies backpressure).  The cluster is
  ``address`` (or ``RAY_ADDRESS``); without one, a local cluster with
  ``num_cpus=N`` is started and shut down afterwards.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from policy_engine.scale.state import DocumentResult
from policy_engine.scale.worker import SanitizeWorker, results_of

Batch = dict[str, list[Any]]
ENGINES = ("local", "ray")

_worker: SanitizeWorker | None = None


def _end_with_driver(driver: int, every_s: float = 0.5) -> None:
    """Exit this worker process once ``driver`` is no longer its parent (the driver died, even by SIGKILL)."""
    while os.getppid() == driver:
        time.sleep(every_s)
    os._exit(1)


def _init_local_worker(policy_path: str, driver: int) -> None:
    global _worker
    threading.Thread(target=_end_with_driver, args=(driver,), name="end-with-driver", daemon=True).start()
    _worker = SanitizeWorker(policy_path)


def _sanitize_in_worker(batch: Batch) -> Batch:
    assert _worker is not None, "the pool initializer did not run"
    return _worker(batch)


def run_local(policy_path: str, batches: Iterable[Batch], workers: int) -> Iterator[list[DocumentResult]]:
    """Sanitize ``batches`` on ``workers`` local processes."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_local_worker, initargs=(policy_path, os.getpid())) as pool:
        pending: set[Future[Batch]] = set()
        for batch in batches:
            pending.add(pool.submit(_sanitize_in_worker, batch))
            if len(pending) >= 2 * workers:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                yield from (results_of(f.result()) for f in done)
        for future in pending:
            yield results_of(future.result())


def run_ray(policy_path: str, items: Sequence[dict[str, str]], workers: int, *, address: str | None, batch_size: int) -> Iterator[list[DocumentResult]]:
    """Sanitize ``items`` with Ray Data on ``workers`` actors (``address`` or ``RAY_ADDRESS``, else a local cluster)."""
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError("the ray engine needs Ray Data: pip install 'policy-engine[ray]'") from exc
    address = address or os.environ.get("RAY_ADDRESS")
    started = not ray.is_initialized()
    if started:
        options: dict[str, Any] = {"address": address} if address else {"num_cpus": workers}
        ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False, **options)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # the CLI shows its own progress bar
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    try:
        dataset = ray.data.from_items(list(items)).map_batches(
            SanitizeWorker,
            fn_constructor_kwargs={"policy_path": policy_path},
            batch_size=batch_size,
            concurrency=workers,
            num_cpus=1,
            batch_format="default",
        )
        for batch in dataset.iter_batches(batch_size=batch_size, batch_format="default"):
            yield results_of(batch)
    finally:
        if started:
            ray.shutdown()
