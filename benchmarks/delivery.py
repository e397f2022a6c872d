"""The event loop's CPU for each message written to a WebSocket connection: written at once by the
server's protocol (``write_now``, what the server does) against queued for the connection's writer
task and sent through the ASGI middleware (what it did before, and still does when a socket backs
up).  Every move writes one view per seat, so this is on the hot path of a move.

Usage: python benchmarks/delivery.py [--connections 200] [--messages 20000] [--rounds 5] [--json]

The app runs under uvicorn with the server's protocols in a thread of this process (SQLite in a
temporary folder, rate limits off); ``--connections`` spectators of one match connect from a client
process of their own and read everything.  Each round, for each way in turn, the loop delivers
``--messages`` views (a real one, the match's spectator view) round-robin over the connections, in
bursts of one per connection, waiting for each burst to be written; the loop thread's CPU time
(``time.thread_time``) is read around it.  Printed: microseconds of loop CPU per message for each
way, the median over the rounds, and the ratio (queued / at once) of the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn

CLIENT = r"""
import asyncio, json, sys
from websockets.asyncio.client import connect

async def watch(url, ready):
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        await ws.recv()
        ready.append(1)
        async for _ in ws:
            pass

async def main(url, count):
    ready = []
    tasks = [asyncio.create_task(watch(url, ready)) for _ in range(count)]
    while len(ready) < count:
        await asyncio.sleep(0.05)
    print("ready", flush=True)
    await asyncio.gather(*tasks, return_exceptions=True)

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ThreadedServer:
    """The app under uvicorn in a thread, configured as ``masques serve`` configures it."""

    def __init__(self, database_url: str) -> None:
        from masques.server.app import create_app
        from masques.server.protocol import http_protocol, ws_protocol

        self.port = free_port()
        self.app = create_app(database_url, bot_workers=1)
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            http=http_protocol(),
            ws=ws_protocol(),
            log_level="warning",
            lifespan="on",
        )
        self.server = uvicorn.Server(config)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        async def serve() -> None:
            self.loop = asyncio.get_running_loop()
            await self.server.serve()

        asyncio.run(serve())

    def start(self) -> ThreadedServer:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)


async def deliver_round(match: Any, messages: int, at_once: bool) -> float:
    """Loop CPU seconds to deliver ``messages`` views over the match's connections, one way."""
    clients = list(match.clients)
    kept = {client: client.write_now for client in clients}
    text = match.view(None)
    from masques.server.matches import json_text

    text = json_text(text)
    try:
        for client in clients:
            client.write_now = kept[client] if at_once else None
        started = time.thread_time()
        sent = 0
        while sent < messages:
            for client in clients:
                client.deliver(text)
            sent += len(clients)
            while any(not c.outbox.empty() or c.writing for c in clients):
                await asyncio.sleep(0)
        return time.thread_time() - started
    finally:
        for client in clients:
            client.write_now = kept[client]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.update({"MASQUES_RATE_LIMITS": "off", "MASQUES_MAX_SPECTATORS": "100000"})

    with tempfile.TemporaryDirectory(prefix="masques-delivery-") as folder:
        server = ThreadedServer(f"sqlite:///{Path(folder) / 'masques.sqlite3'}").start()
        base = f"http://127.0.0.1:{server.port}"
        body = {"game": "masker", "options": {"players": 4}, "seats": [{"kind": "human"}] * 4}
        created = httpx.post(f"{base}/api/matches", json=body, timeout=30, headers={"origin": base})
        created.raise_for_status()
        match_id = created.json()["id"]
        url = f"ws://127.0.0.1:{server.port}/ws/matches/{match_id}"
        watchers = subprocess.Popen(
            [sys.executable, "-c", CLIENT, url, str(args.connections)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert watchers.stdout is not None
            if watchers.stdout.readline().strip() != "ready":
                raise SystemExit("the spectators did not connect")
            assert server.loop is not None
            match = server.app.state.registry.matches[match_id]
            if any(c.write_now is None for c in match.clients):
                raise SystemExit("this server's connections cannot be written to at once")
            times: dict[str, list[float]] = {"at once": [], "queued": []}
            for round_number in range(args.rounds):
                for way in ("at once", "queued") if round_number % 2 == 0 else ("queued", "at once"):
                    seconds = asyncio.run_coroutine_threadsafe(
                        deliver_round(match, args.messages, way == "at once"), server.loop
                    ).result(600)
                    times[way].append(seconds / args.messages * 1e6)
                    print(f"round {round_number + 1}: {way}: {times[way][-1]:.1f} us", file=sys.stderr)
        finally:
            watchers.kill()
            watchers.wait()
            server.stop()

    medians = {way: statistics.median(values) for way, values in times.items()}
    result = {
        "connections": args.connections,
        "messages": args.messages,
        "rounds": args.rounds,
        "view_bytes": len(json.dumps(match.view(None))),
        "loop_us_per_message": {way: round(value, 2) for way, value in medians.items()},
        "ratio_queued_over_at_once": round(medians["queued"] / medians["at once"], 2),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{args.connections} connections, {args.messages} messages a round, {args.rounds} rounds, "
        f"a view of {result['view_bytes']} bytes"
    )
    for way, value in medians.items():
        print(f"  loop CPU per message, {way:8s} {value:7.1f} us (median)")
    print(f"  queued / at once: {result['ratio_queued_over_at_once']:.2f}")


if __name__ == "__main__":
    main()
