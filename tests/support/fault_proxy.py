"""A loopback TCP fault proxy between the code under test and one dependency (DynamoDB Local, the moto server, a
fake downstream service): bytes pass through untouched until it is told to misbehave.

Faults: `refuse` (nothing listens: connection refused), `reset` (the answer breaks off half-way with a TCP reset),
`blackhole` (accepts, reads, never answers), `latency` (each answer held back `delay` seconds), `http500` /
`http503` (every request answered with that status by the proxy itself, as a sick service would), `trickle` (the
answer dribbles in one byte every `delay` seconds). Changing the fault drops the connections open at the time, so
the next request meets the new behaviour; `heal()` restores the pass-through on the same port.

Ours, a few dozen lines of asyncio on a thread of its own: toxiproxy is not on the package registries we use.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import threading
from collections.abc import Coroutine
from typing import Any

FAULTS = ("none", "refuse", "reset", "blackhole", "latency", "http500", "http503", "trickle")


class FaultProxy:
    def __init__(self, upstream_port: int, upstream_host: str = "127.0.0.1") -> None:
        self.upstream = (upstream_host, upstream_port)
        self.fault = "none"
        self.delay = 0.0
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fault-proxy", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FaultProxy:
        self._thread.start()
        self._run(self._listen())
        return self

    def set(self, fault: str, delay: float = 0.0) -> None:
        assert fault in FAULTS, fault
        self._run(self._set(fault, delay))

    def heal(self) -> None:
        self.set("none")

    def stop(self) -> None:
        self._run(self._set("refuse", 0.0))
        self._run(self._cancel_all())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    async def _cancel_all(self) -> None:
        tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _run(self, coroutine: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _set(self, fault: str, delay: float) -> None:
        self.fault, self.delay = fault, delay
        for writer in list(self._writers):
            writer.transport.abort()
        if fault == "refuse" and self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        elif fault != "refuse" and self._server is None:
            await self._listen()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        fault, upstream = self.fault, None
        self._writers.add(writer)
        try:
            if fault == "blackhole":
                while await reader.read(65536):
                    pass
            elif fault in ("http500", "http503"):
                await self._answer_with(int(fault[4:]), reader, writer)
            else:
                up_reader, upstream = await asyncio.open_connection(*self.upstream)
                await asyncio.gather(
                    self._pipe(reader, upstream, "none"), self._pipe(up_reader, writer, fault)
                )
        except (OSError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the connection is gone (or the proxy is stopping): nothing to tell anyone
        finally:
            self._writers.discard(writer)
            for side in (writer, upstream):
                if side is not None:
                    side.transport.abort()

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, fault: str) -> None:
        while chunk := await source.read(65536):
            if fault == "reset":
                sink.write(chunk[: max(1, len(chunk) // 2)])
                await sink.drain()
                sock = sink.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sink.transport.abort()  # with SO_LINGER 0: a TCP RST, not an orderly close
                return
            if fault == "latency":
                await asyncio.sleep(self.delay)
            if fault == "trickle":
                for index in range(len(chunk)):
                    sink.write(chunk[index : index + 1])
                    await sink.drain()
                    await asyncio.sleep(self.delay)
            else:
                sink.write(chunk)
                await sink.drain()
        with contextlib.suppress(OSError):
            sink.write_eof()

    @staticmethod
    async def _answer_with(status: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Answer each HTTP/1.1 request on the connection with `status` (a JSON error in the AWS JSON style)."""
        kind = {500: "InternalServerError", 503: "ServiceUnavailable"}[status]
        body = json.dumps({"__type": f"com.amazonaws#{kind}", "message": "injected fault", "code": status})
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.decode("latin-1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            await reader.readexactly(length)
            writer.write(
                f"HTTP/1.1 {status} {kind}\r\ncontent-type: application/x-amz-json-1.0\r\n"
                f"content-length: {len(body)}\r\n\r\n{body}".encode()
            )
            await writer.drain()
