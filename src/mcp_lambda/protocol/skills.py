"""The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): `skills/list`, `skills/get`,
`resources/directory/read`, and the `skill://` files as resources (listed and read beside the business's own).

The server declares the extension (with `directoryRead`) under `capabilities.extensions`: in `server/discover` at
2026-07-28, in the `initialize` result of a session revision (where hosts negotiate extensions too). A session
client that does not follow extensions still gets the skill files as plain resources (`resources/list` names each
`SKILL.md` after its skill) (docs/skills.md).
"""

from __future__ import annotations

import base64
from typing import Any

from ..skills import SkillCatalog
from ..skills.catalog import is_text
from ..wire import INVALID_PARAMS
from .jsonrpc import RpcError
from .pagination import listing
from .params import required_string
from .scope import CallScope, Handler

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
# SEP-2640: at 2026-07-28 these results carry ttlMs/cacheScope as tools/list does (GetSkillResult too).
SKILLS_CACHEABLE_METHODS = frozenset({"skills/list", "skills/get", "resources/directory/read"})


class SkillMethods:
    """The extension's methods over one business's catalog."""

    def __init__(self, catalog: SkillCatalog, page_size: int) -> None:
        self.catalog = catalog
        self._page_size = page_size

    def capability(self) -> dict[str, Any]:
        """The extension's settings under `capabilities.extensions` (inline, per SEP-2133)."""
        return {"directoryRead": True}

    def handlers(self) -> dict[str, Handler]:
        return {
            "skills/list": self.skills_list,
            "skills/get": self.skills_get,
            "resources/directory/read": self.directory_read,
        }

    def serves(self, uri: str) -> bool:
        """Whether `uri` is a skill file this server serves (resources/read answers it here)."""
        return self.catalog.file(uri) is not None

    def resources(self) -> list[dict[str, Any]]:
        return self.catalog.resources()

    async def skills_list(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        # One entry per skill, never split: a page holds whole entries.
        return listing("skills", self.catalog.skills, params, self._page_size, lambda skill: skill.entry())

    async def skills_get(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        uri = required_string(params, "uri")
        skill = self.catalog.skill(uri)
        if skill is None:
            raise RpcError(
                INVALID_PARAMS,
                f"Unknown skill: {uri} (a skill is named by its SKILL.md URI)",
                data={"uri": uri},
            )
        return {"skill": skill.entry()}

    async def directory_read(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        uri = required_string(params, "uri")
        children = self.catalog.children(uri)
        if children is None:
            raise RpcError(INVALID_PARAMS, f"Not a directory resource: {uri}", data={"uri": uri})
        return listing("resources", children, params, self._page_size, dict)

    def read(self, uri: str) -> dict[str, Any]:
        """`resources/read` of a skill file: the bytes as bundled, text for text types, else a base64 blob."""
        found = self.catalog.file(uri)
        if found is None:
            raise RpcError(INVALID_PARAMS, f"Resource not found: {uri}", data={"uri": uri})
        _, file = found
        content: dict[str, Any] = {"uri": uri, "mimeType": file.mime_type}
        text = _text_of(file.data) if is_text(file.mime_type) else None
        if text is not None:
            content["text"] = text
        else:
            content["blob"] = base64.b64encode(file.data).decode("ascii")
        return {"contents": [content]}


def _text_of(data: bytes) -> str | None:
    """The bytes as UTF-8 text; None when they are not (served as a blob: the digest covers the bytes either way)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
