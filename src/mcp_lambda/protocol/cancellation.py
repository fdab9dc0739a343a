"""`notifications/cancelled` for an in-flight call of a session: recorded in the session store, so the call sees it
on whichever container runs it (the notification usually reaches another one).

The era records the cancelled request's id in the session (`SessionStore.cancel_request`); the running call's
`ctx.cancelled()` and every wait of its `ctx.http` ask `CancelledRequest`, which reads the session at most every
`CANCEL_CHECK_SECONDS`. The answer of a cancelled call is still sent (HTTP has no way not to), and the client
ignores it, as the spec says it should.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..deadlines import CANCEL_CHECK_SECONDS
from ..stores.sessions import SessionStore, SessionStoreUnavailable

MAX_REQUEST_KEY = 200  # a longer request id is never one a client cancels sensibly: ignored
# json.dumps(value, ensure_ascii=False), its encoder made once: json.dumps makes one per call given an option,
# and every request of a session asks (its cancellation probe is made with the call).
_JSON_TEXT = json.JSONEncoder(ensure_ascii=False).encode


def request_key(request_id: Any) -> str | None:
    """The JSON text of a request id (so 1 and "1" differ), or None when it cannot name a request."""
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    key = _JSON_TEXT(request_id)
    return key if len(key) <= MAX_REQUEST_KEY else None


class CancelledRequest:
    """Whether the client cancelled the request `request_id` of session `session_id` (a callable probe).

    Reads the session at most every `check_interval` seconds (a tool may ask in a tight loop); a store hiccup keeps
    the last answer; once cancelled, always cancelled.
    """

    def __init__(
        self,
        sessions: SessionStore,
        session_id: str,
        request_id: Any,
        check_interval: float = CANCEL_CHECK_SECONDS,
    ) -> None:
        self.sessions = sessions
        self.session_id = session_id
        self.key = request_key(request_id)
        self.check_interval = check_interval
        self._checked = float("-inf")
        self._cancelled = False

    def __call__(self) -> bool:
        now = time.monotonic()
        if self._cancelled or self.key is None or now - self._checked < self.check_interval:
            return self._cancelled
        self._checked = now
        try:
            session = self.sessions.get(self.session_id)
        except SessionStoreUnavailable:
            return self._cancelled
        self._cancelled = session is None or self.key in session.cancelled_requests
        return self._cancelled
