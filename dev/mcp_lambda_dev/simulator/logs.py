"""The business logger's recent lines, kept in memory so the page can show the log lines of one call.

A second handler on the Powertools Logger, formatting with the Powertools JSON formatter the server uses in Lambda:
the lines are exactly the JSON lines the deployed server prints (redacted, with the correlation id), whatever
LOG_FORMAT `make run` prints locally.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from collections.abc import Iterable
from typing import Any

from mcp_lambda.observability import RedactingFormatter


class LogCapture(logging.Handler):
    """The last `capacity` lines, each as the parsed JSON object of the printed line."""

    def __init__(self, capacity: int = 2000) -> None:
        super().__init__()
        self._lines: deque[dict[str, Any]] = deque(maxlen=capacity)
        self._lock_lines = threading.Lock()

    @classmethod
    def attach(cls, service: str, capacity: int = 2000) -> LogCapture:
        """Capture what the service's Logger (the one the app logs with: `get_logger(business.name)`) prints."""
        capture = cls(capacity)
        capture.setFormatter(RedactingFormatter())
        logging.getLogger(service).addHandler(capture)  # the standard logger a Powertools Logger wraps
        return capture

    def detach(self, service: str) -> None:
        logging.getLogger(service).removeHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = json.loads(self.format(record))
        except Exception:  # a line we cannot read is the printed log's business, not the page's
            return
        if isinstance(line, dict):
            with self._lock_lines:
                self._lines.append(line)

    def lines_of(self, jsonrpc_ids: Iterable[Any]) -> list[dict[str, Any]]:
        """The lines of the requests with these JSON-RPC ids: the tool-call lines that name the id, and every
        other line logged during the same invocation (same API Gateway request id)."""
        wanted = {json.dumps(value) for value in jsonrpc_ids}
        with self._lock_lines:
            lines = list(self._lines)
        invocations = {
            line.get("correlation_id") or line.get("request_id")
            for line in lines
            if "jsonrpc_id" in line and json.dumps(line["jsonrpc_id"]) in wanted
        }
        invocations.discard(None)
        return [
            line
            for line in lines
            if (line.get("correlation_id") or line.get("request_id")) in invocations
            or ("jsonrpc_id" in line and json.dumps(line["jsonrpc_id"]) in wanted)
        ]
