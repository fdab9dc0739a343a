"""A stand-in inventory service for the demo's `check_stock`, on its own 127.0.0.1 port: `make run` and
`make simulate` start it when `DEMO_INVENTORY_URL` is unset. Local only: it lives in dev/, never in the package.

    GET /stock/<product_id>   200 {"product_id", "quantity"} for a catalogue product (0 when it is out of
                              stock); 404 for any other id

Three ids (valid for check_stock, absent from the catalogue) show what `ctx.http` does when a downstream fails:

    p-9502  503 on every other request: the GET is retried and succeeds (the call's log line: attempts=2)
    p-9503  always 503: retried, then error result 50300; after CIRCUIT_FAILURE_THRESHOLD (5) such calls the
            inventory's circuit is open and every check_stock answers 50300 with retry_after_ms at once, without
            asking, until CIRCUIT_RESET_MS (30 s) has passed
    p-9504  answers only after SLOW_SECONDS: each attempt times out (HTTP_TIMEOUT_MS), then error result 50400
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from businesses.demo.catalogue import BY_ID

FLAKY, FAILING, SLOW = "p-9502", "p-9503", "p-9504"
SLOW_SECONDS = 20.0
EGRESS_VARIABLE = "EGRESS_ALLOW"
INVENTORY_VARIABLE = "DEMO_INVENTORY_URL"
HELP = f"{FLAKY} fails every other time, {FAILING} always 503, {SLOW} answers after {SLOW_SECONDS:.0f} s"


def quantity_of(product_id: str) -> int | None:
    """How many the stand-in holds: a fixed number per in-stock catalogue product, 0 when out of stock.

    Args:
        product_id: The id asked for.

    Returns:
        The quantity, or None for an id the catalogue lacks.
    """
    product = BY_ID.get(product_id)
    if product is None:
        return None
    return 3 + int(product_id[2:]) % 17 if product.in_stock else 0


class InventoryHandler(BaseHTTPRequestHandler):
    """Answers `GET /stock/<product_id>` as the module docstring says."""

    protocol_version = "HTTP/1.1"
    flaky_calls = itertools.count()  # shared by every request of the process: p-9502 alternates

    def do_GET(self) -> None:
        product_id = self.path.split("?", 1)[0].removeprefix("/stock/")
        if not self.path.startswith("/stock/") or "/" in product_id:
            self._json(404, {"message": f"no {self.path} here; ask GET /stock/<product_id>"})
        elif product_id == FAILING or (product_id == FLAKY and next(self.flaky_calls) % 2 == 0):
            self._json(503, {"message": "the inventory is unavailable (scripted)"})
        elif product_id == SLOW:
            time.sleep(SLOW_SECONDS)
            self._json(200, {"product_id": product_id, "quantity": 1})
        elif product_id == FLAKY:
            self._json(200, {"product_id": product_id, "quantity": 2})
        elif (quantity := quantity_of(product_id)) is None:
            self._json(404, {"message": f"no product {product_id}"})
        else:
            self._json(200, {"product_id": product_id, "quantity": quantity})

    def _json(self, status: int, body: Any) -> None:
        payload = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except ConnectionError:
            pass  # the caller gave up first (a timed-out attempt): nothing to answer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # check_stock's own downstream_call line says what happened


@contextmanager
def running_inventory(port: int = 0) -> Iterator[str]:
    """Serve the stand-in inventory on 127.0.0.1 and `port` (0: a free one) for the duration of the block.

    Args:
        port: The port to listen on; OSError when it is taken.

    Yields:
        Its base URL, `http://127.0.0.1:<port>` (what `DEMO_INVENTORY_URL` should say).
    """
    server = ThreadingHTTPServer(("127.0.0.1", port), InventoryHandler)
    server.daemon_threads = True  # a slow answer in progress never holds up the exit
    server.block_on_close = False
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def demo_inventory(business: str, port: int = 0) -> Iterator[str | None]:
    """For the demo with `DEMO_INVENTORY_URL` unset: run the stand-in, point the variable at it and declare it
    (`EGRESS_ALLOW`, make run's own declaration of its stand-in) meanwhile.

    Args:
        business: The business being served; any other than `demo` gets nothing.
        port: The stand-in's port (0: a free one).

    Yields:
        The stand-in's URL, or None when none was started (another business, or the variable already set).
    """
    if business != "demo" or os.environ.get(INVENTORY_VARIABLE):
        yield None
        return
    declared = os.environ.get(EGRESS_VARIABLE)
    with running_inventory(port) as url:
        os.environ[INVENTORY_VARIABLE] = url
        os.environ[EGRESS_VARIABLE] = f"{declared},{url}" if declared else url
        try:
            yield url
        finally:
            os.environ.pop(INVENTORY_VARIABLE, None)
            if declared is None:
                os.environ.pop(EGRESS_VARIABLE, None)
            else:
                os.environ[EGRESS_VARIABLE] = declared
