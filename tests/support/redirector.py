"""A loopback server that answers every GET with a redirect: the probe of a redirect to a refused address."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def redirecting_server(location: str, status: int = 302) -> Iterator[str]:
    """Serve, on a free 127.0.0.1 port, `status` with `Location: location` to every GET.

    Yields:
        Its base URL, `http://127.0.0.1:<port>`.
    """

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(status)
            self.send_header("location", location)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
