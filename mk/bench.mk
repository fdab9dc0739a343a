# Benchmarks (bench/; docs/performance.md): `make bench` (the Makefile) runs the in-process latency bench, and
# each target below adds its rows.
.PHONY: bench-manifest bench-protection bench-quotas

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
