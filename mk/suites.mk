# The test suites of clients nobody here wrote: the official conformance suite and Inspector (Node tools), the
# interop and replay targets, and the agent frameworks (`make test` runs them all).

# The Node tools the interop and conformance tests drive: Node 22, the MCP Inspector CLI and the official
# conformance suite, pinned in dev/mcp_lambda_tools/suites/mcp_tools.py and installed from npm into ~/.cache/mcp-tools
# (MCP_TOOLS_CACHE), one folder per package and version. The scripts also install them on first use.
.PHONY: tools-install

tools-install: ## install the pinned Node 22, MCP Inspector and conformance suite from npm (once)
	@command -v npm >/dev/null || { echo "tools-install: npm (Node 20+) is required to fetch the pinned Node 22, MCP Inspector and conformance suite" >&2; exit 1; }
	@$(PYTHON) -m mcp_lambda_tools.suites.mcp_tools install >/dev/null

test: tools-install

conformance: tools-install

interop: tools-install

.PHONY: conformance

conformance: venv ## run the official MCP conformance suite (2026-07-28 and 2025-11-25) against the fixtures
	$(PY) -m mcp_lambda_tools.suites.conformance

# Focused test targets for the endpoint core; `make test` already runs all of them.
.PHONY: replay interop

replay: venv ## replay the saved API Gateway events (events/) through the Lambda handler
	$(PY) -m pytest -q -rs tests/replay $(PYTEST_ARGS)

interop: venv ## the official MCP client and conformance scenarios against a `make run` server
	$(PY) -m pytest -q -rs -m interop tests/interop $(PYTEST_ARGS)

# The agent-framework suite (tests/agents, docs/agents.md): the MCP clients and agent frameworks it drives, pinned
# and installed apart from the dev venv. Two Python venvs under .venv-agents (langchain-mcp-adapters requires mcp
# 1.x, the other frameworks mcp 2.x) and an npm prefix under .cache (the TypeScript SDKs 1.x and 2.x, mcp-remote).
.PHONY: agents agents-install

AGENTS_VENV ?= $(CURDIR)/.venv-agents
AGENTS_NODE ?= $(CURDIR)/.cache/agents-node
AGENTS_GROUPS := mcp2 langchain
export MCP_AGENTS_VENV := $(AGENTS_VENV)
export MCP_AGENTS_NODE := $(AGENTS_NODE)
# The prefix may be shared by clones (a linked .cache): its stamp names the lock file it was installed from.
AGENTS_NODE_STAMP := $(AGENTS_NODE)/.installed-$(shell cksum < tests/agents/package-lock.json | cut -d' ' -f1)

$(AGENTS_VENV)/%/.installed: tests/agents/requirements-%.txt
	rm -rf $(AGENTS_VENV)/$*
	$(PYTHON) -m venv $(AGENTS_VENV)/$*
	env -u PYTHONPATH $(AGENTS_VENV)/$*/bin/pip install --quiet --upgrade pip
	env -u PYTHONPATH $(AGENTS_VENV)/$*/bin/pip install --quiet -r $<
	touch $@

$(AGENTS_NODE_STAMP): tests/agents/package.json tests/agents/package-lock.json
	@command -v npm >/dev/null || { echo "agents-install: npm (Node 20+) is required for the TypeScript clients" >&2; exit 1; }
	mkdir -p $(AGENTS_NODE)
	cp tests/agents/package.json tests/agents/package-lock.json $(AGENTS_NODE)/
	cd $(AGENTS_NODE) && npm ci --no-audit --no-fund --loglevel=error
	rm -f $(AGENTS_NODE)/.installed-*
	touch $@

agents-install: $(foreach group,$(AGENTS_GROUPS),$(AGENTS_VENV)/$(group)/.installed) $(AGENTS_NODE_STAMP) ## install the clients and agent frameworks tests/agents drives (pinned)

agents: venv agents-install ## the agent-framework suite: 8 real MCP clients and agent frameworks against a make-run server
	$(PY) -m pytest -q -rs tests/agents $(PYTEST_ARGS)

test: agents-install
