# Benchmarks (bench/; docs/performance.md): `make bench` (the Makefile) runs the in-process latency bench, and
# each target below adds its rows. `make bench-smoke` runs every one of them once at a tiny size (CI runs it, so
# a bench cannot break unseen); its figures mean nothing.
.PHONY: bench-manifest bench-protection bench-quotas bench-peers bench-hotspots bench-instructions bench-smoke

# The peers (the official MCP Python SDK, awslabs' mcp-lambda-handler) live in a venv of their own, built from
# PyPI by the bench targets: never in .venv, never in the package.
BENCH_VENV ?= .venv-bench
# Our runtime dependencies go into $(BENCH_VENV)/ours (what the package holds, no development tools) so that we
# run beside the peers on the same interpreter with nothing more than the function has.
$(BENCH_VENV)/.installed: bench/requirements-peers.txt src/requirements.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	PYTHONPATH= $(BENCH_VENV)/bin/pip install --quiet --upgrade pip
	PYTHONPATH= $(BENCH_VENV)/bin/pip install --quiet -r bench/requirements-peers.txt
	rm -rf $(BENCH_VENV)/ours
	PYTHONPATH= $(BENCH_VENV)/bin/pip install --quiet --target $(BENCH_VENV)/ours -r src/requirements.txt
	touch $@

bench: services-install

bench-manifest: venv ## cost of the run-time manifest check per demo result
	$(PY) bench/manifest.py

bench: bench-manifest

bench-protection: services-install venv ## cost of the downstream circuit breaker per call: memory, DynamoDB Local cached and uncached
	$(PY) bench/protection.py

bench: bench-protection

bench-quotas: venv ## cost of a quota-checked tools/call, memory store and DynamoDB Local, as ratios to the same tool without one
	$(PY) bench/quotas.py

bench: bench-quotas

bench-peers: venv $(BENCH_VENV)/.installed ## us beside the official SDK (sync, async) and awslabs' handler: cold, warm list/call, RSS; writes the table into docs/performance.md
	$(PY) bench/peers.py --peers-python $(BENCH_VENV)/bin/python --write docs/performance.md

bench: bench-peers

bench-instructions: venv ## instructions per warm request under callgrind, ours beside the floor: the same count on any machine (CASES=call,products: some; A/B a change with it)
	$(PY) bench/instructions.py $(if $(CASES),--cases $(CASES))

bench: bench-instructions

bench-hotspots: venv ## where a warm tools/call's time goes: cProfile's top frames beside the floor's ratio (METHOD=tools/list, ERA=legacy)
	$(PY) bench/hotspots.py --method $(or $(METHOD),tools/call) --era $(or $(ERA),modern)

bench-smoke: services-install venv $(BENCH_VENV)/.installed ## every bench once at a tiny size (CI): proves they run, measures nothing
	$(PY) bench/bench.py --calls 50 --cold-runs 1 --dynamodb-calls 5
	$(PY) bench/manifest.py --runs 10
	$(PY) bench/protection.py --calls 5
	$(PY) bench/quotas.py --calls 50 --dynamodb-calls 5
	$(PY) bench/hotspots.py --calls 20 --top 3
	$(PY) bench/peers.py --peers-python $(BENCH_VENV)/bin/python --calls 20 --cold-runs 1
	$(PY) bench/instructions.py --dry-run --calls 1 --cases floor
