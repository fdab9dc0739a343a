# Quotas: what a quota-checked tools/call costs through the handler (`make bench` runs it too).
.PHONY: bench-quotas

bench-quotas: venv ## cost of a quota-checked tools/call, memory store and DynamoDB Local, as ratios to the same tool without one
	$(PY) bench/quotas.py

bench: bench-quotas
