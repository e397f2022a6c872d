"""Stopping the bots' process pool for good, so a stopped server leaves no process behind.

``ProcessPoolExecutor.shutdown(wait=False)`` lets a busy worker finish its move; but uvicorn re-raises
SIGTERM once the application has shut down, which ends the server without its exit handlers.  The
workers were left waiting for work for ever (with the multiprocessing resource tracker, which lives as
long as they do), and the tracker then reported the pool's semaphores as leaked.  So the workers are
terminated and joined, and the pool's queues are dropped while the server is still shutting down.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ProcessPoolExecutor

STOP_TIMEOUT = 5.0
"""Seconds the workers get to exit after SIGTERM before they are killed."""


def stop_pool(pool: ProcessPoolExecutor, timeout: float = STOP_TIMEOUT) -> None:
    """Terminate the pool's workers (even in the middle of a move), wait for them and for the pool's
    manager thread, and cancel what was queued.  Python 3.14 has ``terminate_workers()``; before it the
    processes are reachable only through the executor's private attributes."""
    processes = list((pool._processes or {}).values())
    manager: threading.Thread | None = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + timeout
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join(1.0)
    if manager is not None:
        # It notices the dead workers, fails their futures and closes the queues; once it is gone
        # nothing refers to the queues, whose semaphores are then unlinked.
        manager.join(max(0.1, deadline - time.monotonic()))
