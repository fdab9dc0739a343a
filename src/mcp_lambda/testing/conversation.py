"""Scripting a conversation to record: the requests, in order, and the values their answers mint.

A business's conversation file (`tests/businesses/<business>/conversations.py`) is a dict of these lists:

    from mcp_lambda.testing.conversation import Request, initialize, rpc, session

    CONVERSATIONS = {
        "legacy_list": [
            Request("initialize", body=initialize("2025-11-25"), capture_session="session_id"),
            Request("tools_list", body=rpc("tools/list", {}, 2), headers=session()),
        ],
    }

`{{name}}` in a header or body stands for a value an earlier answer minted (a session id, a task id): the
recorder puts the real value in, and writes the placeholder back into the saved files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..wire import STATELESS_REVISION, stateless_meta

MODERN = STATELESS_REVISION


@dataclass
class Request:
    """One step of a scripted conversation: an HTTP request to /mcp, or the delivery of a queued task worker.

    Attributes:
        name: The step's file name stem (after its `NN_` number), e.g. `tools_list`.
        method: `POST`, `GET` or `DELETE`.
        body: The JSON body (a message or a batch); None for none.
        headers: Headers on top of the defaults (host, and accept/content-type on a POST); None drops a default.
        raw: A body sent as is instead of `body` (invalid JSON, say).
        capture_session: Bind the `Mcp-Session-Id` this answer mints to `{{capture_session}}`.
        capture_task: Bind the `taskId` this answer's result carries (a job's `structuredContent.job_id`) to
            `{{capture_task}}`.
        worker: Not a request: deliver the task worker invocation the earlier steps queued (see `task_worker`).
    """

    name: str
    method: str = "POST"
    body: Any = None
    headers: dict[str, str | None] = field(default_factory=dict)
    raw: str | None = None
    capture_session: str | None = None
    capture_task: str | None = None
    worker: bool = False


def task_worker(name: str = "task_worker_invocation") -> Request:
    """The step that delivers the next task worker invocation the handler queued (`lambda:InvokeFunction`)."""
    return Request(name, worker=True)


def rpc(
    method: str, params: dict[str, Any] | None = None, request_id: int | str | None = 1
) -> dict[str, Any]:
    """A JSON-RPC message; a notification when `request_id` is None."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return message


def meta(version: str = MODERN, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `_meta` a 2026-07-28 request carries (protocol version, client capabilities and info)."""
    return stateless_meta(capabilities, {"name": "replay", "version": "1.0"}, version)


def modern(
    method: str,
    params: dict[str, Any] | None = None,
    request_id: int = 1,
    capabilities: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A 2026-07-28 request: `params` plus its `_meta`."""
    return rpc(method, {**(params or {}), "_meta": meta(capabilities=capabilities)}, request_id)


def modern_headers(method: str, name: str | None = None, version: str = MODERN) -> dict[str, str | None]:
    """The headers a 2026-07-28 request repeats (`Mcp-Protocol-Version`, `Mcp-Method`, `Mcp-Name`)."""
    headers: dict[str, str | None] = {"mcp-protocol-version": version, "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    return headers


def initialize(version: str, request_id: int = 1, client: str = "doubao") -> dict[str, Any]:
    """A handshake-era `initialize` request for protocol `version`."""
    return rpc(
        "initialize",
        {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": client, "version": "1.0"}},
        request_id,
    )


def session(name: str = "session_id", version: str | None = None) -> dict[str, str | None]:
    """Headers that send the session id bound to `{{name}}` (and `Mcp-Protocol-Version` when given)."""
    headers: dict[str, str | None] = {"mcp-session-id": "{{" + name + "}}"}
    if version:
        headers["mcp-protocol-version"] = version
    return headers
