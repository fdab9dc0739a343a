"""McpServer: one endpoint, two eras. Routes each request by its channel (HTTP: the MCP-Protocol-Version header)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..tools import Business
from .legacy import LegacyEra
from .modern import ModernEra
from .scope import Inbound, Outbound
from .task_extension import TaskApi

if TYPE_CHECKING:
    pass


def server_info_of(business: Business) -> dict[str, Any]:
    info: dict[str, Any] = {"name": business.name, "version": business.version}
    if business.title:
        info["title"] = business.title
    return info


class McpServer:
    """The protocol layer's single entry: `handle(inbound) -> outbound`, whatever the revision."""

    def __init__(
        self,
        legacy: LegacyEra,
        modern: ModernEra,
        tasks: TaskApi | None = None,
        field_scopes: tuple[str, ...] = (),
    ) -> None:
        self.legacy = legacy
        self.modern = modern
        self.tasks = tasks  # None when no tool of the business may run as a task
        # The scopes the manifest's fields require (`requires_scope`): the metadata offers them beside the tools'.
        self.field_scopes = field_scopes

    async def run_task(self, task_id: str, run: int, invocation_id: str | None = None) -> dict[str, Any]:
        """A task worker invocation (the internal event, never an HTTP request)."""
        if self.tasks is None:
            return {"taskId": task_id, "run": run, "ran": False, "status": "unknown"}
        return await self.tasks.work(task_id, run, invocation_id)

    async def handle(self, inbound: Inbound) -> Outbound:
        # HTTP: the MCP-Protocol-Version header; stdio: the body's `_meta` envelope.
        legacy = not inbound.channel.routes_modern(inbound)
        if inbound.http_method == "POST":
            return await (self.legacy.post(inbound) if legacy else self.modern.post(inbound))
        if not legacy:
            return await self.modern.reject_method(inbound)
        if inbound.http_method == "GET":
            return await self.legacy.get(inbound)
        if inbound.http_method == "DELETE":
            return await self.legacy.delete(inbound)
        return Outbound(405, headers={"allow": "POST, GET, DELETE"})
