# Manifests: lint (one file or all of manifest/) and the local simulator (our `dbx simulator eval`).
.PHONY: manifest-lint manifest-lint-all simulate bench-manifest

manifest-lint: venv-run ## lint MANIFEST=path (default: every manifest/*.yaml); exit 1 on any problem
	$(PY) scripts/manifest_lint.py $(MANIFEST)

manifest-lint-all: venv-run
	$(PY) scripts/manifest_lint.py

# ARGS is JSON; it reaches the script through the environment so its quotes survive the shell.
simulate: export SIMULATE_ARGS = $(or $(ARGS),{})
simulate: export SIMULATE_TOOL_CALL_ID = $(TOOL_CALL_ID)
simulate: venv-run ## call TOOL of BUSINESS with ARGS='{"k": "v"}' through the handler; FORMAT=json; TOOL_CALL_ID=x retries it
	@[ -n "$(TOOL)" ] || { echo "simulate: TOOL is required, e.g. make simulate TOOL=search_products ARGS='{\"keyword\": \"cup\"}'" >&2; exit 2; }
	@$(PY) -m mcp_lambda_dev.simulate --business "$(BUSINESS)" --tool "$(TOOL)" --args "$$SIMULATE_ARGS" --format "$(or $(FORMAT),text)" --tool-call-id "$$SIMULATE_TOOL_CALL_ID"

test: manifest-lint-all

bench-manifest: venv ## cost of the run-time manifest check per demo result
	$(PY) bench/manifest.py

bench: bench-manifest
