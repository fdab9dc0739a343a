# The Node tools the interop and conformance tests drive: Node 22, the MCP Inspector CLI and the official
# conformance suite, pinned in scripts/mcp_tools.py and installed from npm into ~/.cache/mcp-tools
# (MCP_TOOLS_CACHE), one folder per package and version. The scripts also install them on first use.
.PHONY: tools-install

tools-install: ## install the pinned Node 22, MCP Inspector and conformance suite from npm (once)
	@command -v npm >/dev/null || { echo "tools-install: npm (Node 20+) is required to fetch the pinned Node 22, MCP Inspector and conformance suite" >&2; exit 1; }
	@$(PYTHON) scripts/mcp_tools.py install >/dev/null

test: tools-install

conformance: tools-install

interop: tools-install
