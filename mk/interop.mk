# Focused test targets for the endpoint core; `make test` already runs all of them.
.PHONY: replay interop

replay: venv ## replay the saved API Gateway events (events/) through the Lambda handler
	$(PY) -m pytest -q -rs tests/replay $(PYTEST_ARGS)

interop: venv ## the official MCP client and conformance scenarios against a `make run` server
	$(PY) -m pytest -q -rs -m interop tests/interop $(PYTEST_ARGS)
