.PHONY: conformance

conformance: venv ## run the official MCP conformance suite (2026-07-28 and 2025-11-25) against the fixtures
	$(PY) scripts/conformance.py
