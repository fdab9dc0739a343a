# One Makefile for the whole template. Per-area targets live in mk/*.mk and are included below.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 3000
HOST ?= 127.0.0.1
BUSINESS ?= demo
WORKERS ?= 1
# src/ is what Lambda runs; dev/ (local server, simulator projection, fixture businesses) never ships.
export PYTHONPATH := $(CURDIR)/src:$(CURDIR)/dev:$(CURDIR)

.DEFAULT_GOAL := help
.PHONY: help venv venv-run run stdio test unit lint fmt bench events new-business clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | sort | expand -t 20

# Two stages: what running needs (make run, simulate, manifest-lint), then the development tools on top. Each
# business's own pins (src/businesses/<name>/requirements.txt) are installed too: its code imports them.
BUSINESS_REQUIREMENTS := $(wildcard src/businesses/*/requirements.txt)
$(VENV)/.installed-run: pyproject.toml $(BUSINESS_REQUIREMENTS)
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e . $(addprefix -r ,$(BUSINESS_REQUIREMENTS))
	touch $@

$(VENV)/.installed: $(VENV)/.installed-run
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $@

venv-run: $(VENV)/.installed-run ## create the virtualenv with the runtime dependencies only
venv: $(VENV)/.installed ## create the virtualenv and install everything (tests, linters, RELOAD=1)

run: $(if $(RELOAD),venv,venv-run) ## serve BUSINESS at http://HOST:PORT/mcp through the Lambda handler; RELOAD=1 restarts on changes; WORKERS=n; SCOPES=a,b grants every request those scopes; INVOKE_PORT, INVENTORY_PORT (default PORT+1, PORT+2; 0: any)
	BUSINESS=$(BUSINESS) $(PY) -m mcp_lambda_dev.local.server --host $(HOST) --port $(PORT) --workers $(WORKERS) $(if $(RELOAD),--reload) $(if $(SCOPES),--scopes "$(SCOPES)") $(if $(INVOKE_PORT),--invoke-port $(INVOKE_PORT)) $(if $(INVENTORY_PORT),--inventory-port $(INVENTORY_PORT))

# stdout is the protocol stream: the venv step's output goes to stderr and nothing here echoes a command.
# Like `make run`, it needs the runtime dependencies only; the first start says why it takes a while.
stdio: ## serve BUSINESS over stdio (JSON-RPC lines on stdout, logs on stderr), as desktop clients start it
	@[ -f $(VENV)/.installed-run ] || echo "stdio: installing the runtime dependencies into $(VENV) (first start only, about a minute)" >&2
	@$(MAKE) --no-print-directory venv-run >&2
	@BUSINESS=$(BUSINESS) exec $(PY) -m mcp_lambda_dev.stdio

# -rs: every skipped test is listed with its reason (each says what would make it run).
test: venv ## install what the tests need and run the whole suite
	$(PY) -m pytest -q -rs $(PYTEST_ARGS)

unit: venv ## fast unit tests only
	$(PY) -m pytest -q -rs tests/unit $(PYTEST_ARGS)

lint: venv ## ruff + mypy (strict over every business) + the import-graph check (layers, no cycles) + make validate and make checks (every business's stack)
	$(VENV)/bin/ruff check src dev tests scripts bench
	$(VENV)/bin/ruff format --check src dev tests scripts bench
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy --strict src/businesses
	$(PY) scripts/import_graph.py src

fmt: venv ## format the code
	$(VENV)/bin/ruff format src dev tests scripts bench
	$(VENV)/bin/ruff check --fix src dev tests scripts bench

bench: venv ## in-process latency through the Lambda handler vs a bare FastAPI+Mangum floor
	$(PY) bench/bench.py

events: venv ## record tests/businesses/BUSINESS/conversations.py to events/BUSINESS/ (its replay test compares with them)
	$(PY) scripts/record_events.py $(BUSINESS)

new-business: venv-run ## scaffold src/businesses/NAME, manifest/NAME.yaml, tests/businesses/NAME/ and events/NAME/
	@[ -n "$(NAME)" ] || { echo "new-business: NAME is required, e.g. make new-business NAME=shop" >&2; exit 2; }
	$(PY) scripts/new_business.py "$(NAME)"

clean: ## remove caches and build output
	rm -rf .pytest_cache .mypy_cache .ruff_cache .aws-sam build

-include mk/*.mk
