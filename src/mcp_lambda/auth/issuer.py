"""Fetch a JSON document the authorization server publishes (its metadata, its JWKS), bounded in time and size.

Whatever goes wrong on the issuer's side — no answer, a status other than 200, a body too large, a body that
trickles in, a body that is not JSON — is one `AuthFailure` with status 503: the client did nothing wrong and may
retry once the issuer is back.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from .. import deadlines
from .errors import AuthFailure, unavailable

if TYPE_CHECKING:
    import urllib3

FETCH_TIMEOUT_SECONDS = 3.0  # for the whole fetch: connecting, waiting and reading the body
# Real metadata documents and key sets are a few KiB; this is generous and still cheap to hold.
MAX_DOCUMENT_BYTES = 256 * 1024
READ_CHUNK_BYTES = 16 * 1024


def fetch_json(http: urllib3.PoolManager, url: str, what: str) -> Any:
    """The JSON value served at `url`.

    Args:
        http: The pool to fetch with (its retry policy applies; redirects are not followed).
        url: The document's URL.
        what: What the document is, for the reason ("the issuer's metadata", "the issuer's signing keys").

    Returns:
        The parsed JSON value, of any type (the caller checks its shape).

    Raises:
        AuthFailure: 503, when the issuer does not serve a JSON document within the time and size limits.
    """
    import urllib3

    budget = deadlines.current().cap(FETCH_TIMEOUT_SECONDS)
    if budget <= 0:
        raise _failed(what, "no time is left to fetch it")
    give_up_at = time.monotonic() + budget
    try:
        response = http.request(
            "GET",
            url,
            headers={"accept": "application/json"},
            preload_content=False,
            redirect=False,
            timeout=urllib3.Timeout(connect=budget, read=budget),
        )
    except urllib3.exceptions.HTTPError:
        raise _failed(what, "the issuer could not be reached") from None
    try:
        raw = _read_body(response, what, give_up_at)
    except urllib3.exceptions.HTTPError:  # a read time-out, a connection cut mid-body
        raise _failed(what, "the issuer's answer did not arrive in time") from None
    finally:
        response.close()
        response.release_conn()
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise _failed(what, "the issuer's answer is not JSON") from None


def _read_body(response: urllib3.BaseHTTPResponse, what: str, give_up_at: float) -> bytes:
    if response.status != 200:
        raise _failed(what, f"the issuer answered HTTP {response.status}")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_DOCUMENT_BYTES:
        raise _failed(what, f"the issuer's answer is larger than {MAX_DOCUMENT_BYTES} bytes")
    chunks: list[bytes] = []
    size = 0
    while True:
        # One read waits at most the socket time-out; the whole body has the one budget.
        if time.monotonic() > give_up_at:
            raise _failed(what, "the issuer's answer did not arrive in time")
        chunk = response.read1(READ_CHUNK_BYTES)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_DOCUMENT_BYTES:
            raise _failed(what, f"the issuer's answer is larger than {MAX_DOCUMENT_BYTES} bytes")
        chunks.append(chunk)


def _failed(what: str, why: str) -> AuthFailure:
    return unavailable(f"{what} could not be fetched ({why}); retry later")
