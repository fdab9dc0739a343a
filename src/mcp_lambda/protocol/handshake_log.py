"""The one log line of a client's handshake (`initialize`, `server/discover`): the protocol revision it uses.

Operators read it to see which revisions their clients speak (a client stuck on an old one, a new one arriving).
Client-supplied text (its name and version, the revision it asked for) is cut to a bounded length; the log
formatter escapes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..observability import ToolLogger, log_event

MAX_CLIENT_TEXT = 64


def log_handshake(
    logger: ToolLogger | None,
    event: str,
    protocol_version: str,
    client_info: Any,
    **fields: Any,
) -> None:
    """Write the handshake's line: `event` with `protocol_version`, the client's name and version, and `fields`.

    Args:
        logger: The server's logger; None writes nothing.
        event: `mcp_initialized` or `mcp_discovered`.
        protocol_version: The revision the server answers with (negotiated by initialize, the request's own for
            server/discover).
        client_info: The client's `clientInfo` as it sent it (anything: only string name/version are kept).
        **fields: More fields (e.g. `requested_version`).
    """
    if logger is None:
        return
    line: dict[str, Any] = {"event": event, "protocol_version": protocol_version}
    info = client_info if isinstance(client_info, Mapping) else {}
    for key, name in (("name", "client_name"), ("version", "client_version")):
        value = info.get(key)
        if isinstance(value, str):
            line[name] = value[:MAX_CLIENT_TEXT]
    for key, value in fields.items():
        line[key] = value[:MAX_CLIENT_TEXT] if isinstance(value, str) else value
    log_event(logger, "info", event, line)
