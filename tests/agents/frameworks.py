"""The clients and agent frameworks the suite drives, and how each one's driver is started."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLIENTS = Path(__file__).resolve().parent / "clients"
VENVS = Path(os.environ.get("MCP_AGENTS_VENV") or REPO / ".venv-agents")
NODE_PREFIX = Path(os.environ.get("MCP_AGENTS_NODE") or REPO / ".cache" / "agents-node")


@dataclass(frozen=True)
class Framework:
    """One client or agent framework as the suite drives it."""

    name: str
    transport: str  # what the client speaks to: "http" (the make-run server) or "stdio" (a process it starts)
    # How to start the driver; URL stands for the server's address.
    command: tuple[str, ...]


def _python(group: str, driver: str) -> tuple[str, ...]:
    return (str(VENVS / group / "bin" / "python"), str(CLIENTS / driver), "URL")


def _node(sdk: str, transport: str, *target: str) -> tuple[str, ...]:
    return ("node", str(CLIENTS / "ts_client.mjs"), sdk, transport, *target)


# `make stdio` as a desktop client's config entry names it.
MAKE_STDIO = ("make", "-s", "--no-print-directory", "-C", str(REPO), "stdio", "BUSINESS=demo")

FRAMEWORKS = (
    Framework("typescript-sdk-1", "http", _node("v1", "http", "URL")),
    Framework("typescript-sdk-2", "http", _node("v2", "http", "URL")),
    Framework("typescript-sdk-1-stdio", "stdio", _node("v1", "stdio", *MAKE_STDIO)),
    Framework("typescript-sdk-2-stdio", "stdio", _node("v2", "stdio", *MAKE_STDIO)),
    # A desktop app's entry `{"command": "npx", "args": ["mcp-remote", URL]}`: the app speaks stdio to mcp-remote,
    # mcp-remote speaks HTTP to the server (the app's client is the TypeScript SDK 1.x).
    Framework(
        "mcp-remote",
        "http",
        _node("v1", "stdio", str(NODE_PREFIX / "node_modules" / ".bin" / "mcp-remote"), "URL"),
    ),
    Framework("python-sdk", "http", _python("mcp2", "drive_mcp.py")),
    Framework("fastmcp", "http", _python("mcp2", "drive_fastmcp.py")),
    Framework("openai-agents", "http", _python("mcp2", "drive_openai_agents.py")),
    Framework("langchain", "http", _python("langchain", "drive_langchain.py")),
    Framework("pydantic-ai", "http", _python("mcp2", "drive_pydantic_ai.py")),
)
