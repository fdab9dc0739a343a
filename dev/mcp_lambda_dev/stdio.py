"""`make stdio` / `python -m mcp_lambda_dev.stdio`: serve BUSINESS over stdio, as desktop clients (Claude Desktop,
Cursor, the Inspector) start a server: one process per client, newline-delimited JSON-RPC on stdin/stdout.

The same business, tool modules, manifest check and protocol eras as the Lambda; only the transport differs. It
lives in dev/ because Lambda never runs it. stdout carries protocol messages only: before anything else runs,
the protocol keeps private copies of fd 0 and fd 1, fd 1 (and `sys.stdout`) then point at stderr and fd 0 at
/dev/null, so a stray `print()` in a tool, a C extension or a child process writes to the log, and nothing but
this loop reads the client's messages. Logs (Powertools JSON lines) go to stderr.

Messages are handled one at a time in arrival order, like a Lambda container serves its invocations; a task's
worker runs beside them on a thread of its own (`task_workers`), where Lambda would invoke the function again.
A request's notifications (progress, log messages) are written the moment the tool sends them, before its
response (a desktop client shows progress while the tool runs); one sent after the response is dropped.
Each input line is one JSON-RPC message (or a 2025-03-26 batch); a blank line is skipped, invalid JSON answers
-32700, a line over MAX_BODY_BYTES answers -32600 (its bytes are discarded as they arrive, never held), a
notification is never answered. End of input ends the process (exit status 0).

Hand-written on the standard library: the SDK's `stdio_server` hands over messages already parsed into its own
types, while McpServer takes the raw JSON and answers bad lines with errors of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any, BinaryIO

from mcp_lambda.composition import build_server, log_server_started
from mcp_lambda.encoding import strict_json_bytes
from mcp_lambda.errors import StartupError
from mcp_lambda.observability import ToolLogger, get_logger, log_internal_error
from mcp_lambda.protocol import McpServer
from mcp_lambda.protocol.jsonrpc import Notification, RpcError, error_response, parse_message, recover_id
from mcp_lambda.settings import get_settings
from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.wire import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR
from mcp_lambda_dev.businesses import load_business

from . import log_format
from .stdio_channel import StdioChannel
from .task_workers import ThreadTaskWorkers

# The spec scopes a stdio session to the process, and a desktop client may idle for days and never re-initializes:
# the session must not expire while the process lives.
PROCESS_SESSION_TTL_SECONDS = 10 * 365 * 24 * 3600
DRAIN_CHUNK = 64 * 1024


class OversizedLine:
    """A line longer than the limit; its content has been skipped."""


OVERSIZED = OversizedLine()


def claim_standard_streams() -> tuple[BinaryIO, BinaryIO]:
    """Private duplicates of stdin and stdout for the protocol; fd 0 becomes /dev/null, fd 1 becomes stderr."""
    sys.stdout.flush()
    reader = os.fdopen(os.dup(0), "rb")
    writer = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    return reader, writer


def read_lines(stream: BinaryIO, limit: int) -> Iterator[bytes | OversizedLine]:
    """Each line of `stream` (without reading more than `limit` bytes of one into memory), until end of input."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stream.readline(DRAIN_CHUNK)
            yield OVERSIZED
            continue
        yield line


def encode_line(message: Any) -> bytes:
    """One message as one line: compact strict JSON (an escaped newline never breaks the framing), UTF-8."""
    return strict_json_bytes(message) + b"\n"


class LineWriter:
    """The protocol stream: one message per line, written whole under a lock (notifications come from the
    worker thread a plain `def` tool runs on) and flushed at once."""

    def __init__(self, stream: BinaryIO, encode: Any) -> None:
        self._stream = stream
        self._encode = encode
        self._lock = threading.Lock()
        self.broken = False

    def write(self, message: Any) -> None:
        """Write `message` as one line; once the client has stopped reading, nothing is written."""
        line = self._encode(message)
        with self._lock:
            if self.broken:
                return
            try:
                self._stream.write(line)
                self._stream.flush()
            except BrokenPipeError:
                self.broken = True


class RequestStream:
    """Writes one request's notifications as they happen, until its response is written (`close`)."""

    def __init__(self, writer: LineWriter) -> None:
        self._writer = writer
        self._lock = threading.Lock()
        self._open = True

    def __call__(self, message: dict[str, Any]) -> None:
        with self._lock:  # held while writing, so `close` returns only after a notification under way is out
            if self._open:
                self._writer.write(message)

    def close(self) -> None:
        """No more notifications for this request (a tool abandoned at its deadline may still send some)."""
        with self._lock:
            self._open = False


class StdioTransport:
    """Turns input lines into protocol Inbound values for McpServer.handle, and Outbound values into output lines."""

    def __init__(self, server: McpServer, logger: ToolLogger, max_message_bytes: int) -> None:
        self.server = server
        self.logger = logger
        self.max_message_bytes = max_message_bytes
        self.channel = StdioChannel()

    async def answer(self, line: bytes | OversizedLine, stream: RequestStream | None = None) -> list[Any]:
        """The messages to write for one input line, in order: notifications first, then the response.

        Args:
            line: One input line.
            stream: Writes the request's notifications at once (then they are not in the returned list).

        Returns:
            The messages left to write, in order.
        """
        if isinstance(line, OversizedLine):
            return [_refused(f"Invalid Request: the message exceeds {self.max_message_bytes} bytes")]
        text = line.strip()
        if not text:
            return []
        try:
            message = json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return [_refused("Parse error: the line is not valid JSON", parse=True)]
        except RecursionError:
            return [_refused("Parse error: the message is nested too deeply", parse=True)]
        try:
            outbound = await self.server.handle(self.channel.inbound(message, stream))
        except Exception as exc:
            # The last line of defence, as app.py's handler: log the stack, never send it.
            error_id = log_internal_error(self.logger, "unhandled_error", exc)
            error = RpcError(INTERNAL_ERROR, f"Internal error (error id {error_id})")
            return [] if _is_notification(message) else [error_response(recover_id(message), error)]
        self.channel.answered(outbound)
        if outbound.messages is not None:
            return list(outbound.messages)
        if outbound.body is None or _is_notification(message):
            return []  # JSON-RPC: a notification is never answered, not even with an error
        return [outbound.body]

    def serve(self, reader: BinaryIO, writer: BinaryIO) -> None:
        """Answer every line of `reader` on `writer` until end of input (or until the client stops reading)."""
        out = LineWriter(writer, self._encode)
        with asyncio.Runner() as runner:
            for line in read_lines(reader, self.max_message_bytes):
                stream = RequestStream(out)
                try:
                    messages = runner.run(self.answer(line, stream))
                finally:
                    stream.close()
                for message in messages:
                    out.write(message)
                if out.broken:
                    return

    def _encode(self, message: Any) -> bytes:
        try:
            return encode_line(message)
        except (TypeError, ValueError) as exc:
            # Not strict JSON: results are checked before they get here, so this is a defect; answer, do not die.
            error_id = log_internal_error(self.logger, "unhandled_error", exc)
            error = RpcError(INTERNAL_ERROR, f"Internal error (error id {error_id})")
            return encode_line(error_response(recover_id(message), error))


def _refused(message: str, parse: bool = False) -> dict[str, Any]:
    return error_response(None, RpcError(PARSE_ERROR if parse else INVALID_REQUEST, message))


def _is_notification(message: Any) -> bool:
    try:
        return isinstance(parse_message(message), Notification)
    except RpcError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve an MCP business over stdio (logs on stderr).")
    parser.add_argument("--business", help="the business to serve (default: BUSINESS, else demo)")
    args = parser.parse_args(argv)
    reader, writer = claim_standard_streams()  # first: nothing may write to the protocol stream
    if args.business:
        os.environ["BUSINESS"] = args.business
    os.environ["SERVED_AT"] = "stdio"  # the start-up line names what it serves
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    log_format.install()

    try:
        settings = get_settings()
        business = load_business(settings.business)
        logger = get_logger(business.name, settings.log_format)
        # There is no Lambda to invoke: a task's worker runs on a thread of this process.
        workers = ThreadTaskWorkers(logger)
        # The one session of a stdio process lives in the process (SESSION_STORE does not apply).
        sessions = MemorySessionStore(PROCESS_SESSION_TTL_SECONDS)
        server = build_server(settings, business, sessions, invoker=workers)
        workers.bind(server)
    except StartupError as exc:  # a setting, the business, a tool signature or the manifest
        print(f"stdio: {exc}", file=sys.stderr)
        return 2
    log_server_started(logger, business, settings)
    try:
        StdioTransport(server, logger, settings.max_body_bytes).serve(reader, writer)
    except KeyboardInterrupt:  # Ctrl-C when started by hand in a terminal
        return 130
    logger.info("server_stopped", extra={"event": "server_stopped", "transport": "stdio"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
