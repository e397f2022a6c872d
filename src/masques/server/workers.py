"""Stopping the bots' process pool for good, so a stopped server leaves no process behind.

``ProcessPoolExecutor.shutdown(wait=False)`` lets a busy worker finish its move; but uvicorn re-raises
SIGTERM once the application has shut down, which ends the server without its exit handlers.  The
workers were left waiting for work for ever (with the multiprocessing resource tracker, which lives as
long as they do), and the tracker then reported the pool's semaphores as leaked.  So the workers are
terminated and joined, and the pool's queues are dropped while the server is still shutting down.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

STOP_TIMEOUT = 5.0
"""Seconds the workers get to exit after SIGTERM before they are killed."""
PARENT_CHECK_SECONDS = 1.0
"""How often a worker process looks whether the process that started it is still there."""


def leave_with_parent(parent: int | None = None, every: float = PARENT_CHECK_SECONDS) -> threading.Thread:
    """In a worker process: exit once the process that started it (``parent``, else the current
    parent) is gone.  A server or a worker supervisor killed outright (``kill -9``, the kernel's
    out-of-memory killer) cannot stop its children; they would wait for work for ever, holding the
    multiprocessing resource tracker with them, and every restart would leave more.  A move under
    way is dropped: the server that asked is gone, or (for the Redis queue) another worker takes
    the job once its lease ends."""
    watched = os.getppid() if parent is None else parent

    def watch() -> None:
        while os.getppid() == watched:
            time.sleep(every)
        os._exit(0)

    thread = threading.Thread(target=watch, name="masques-parent-watch", daemon=True)
    thread.start()
    return thread


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
