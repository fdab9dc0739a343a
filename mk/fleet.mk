# The deployed fleet on one machine: DynamoDB Local with the template's tables and SERVERS `make run` servers
# (separate processes, like Lambda containers) sharing sessions, exactly-once records, tasks, breakers and quotas.
.PHONY: fleet

SERVERS ?= 2
FLEET_PORT ?= 8080

fleet: services-install venv-run ## run SERVERS (default 2) servers of BUSINESS on DynamoDB Local from FLEET_PORT (default 8080): one fleet, shared state
	$(PY) scripts/fleet.py --business $(BUSINESS) --servers $(SERVERS) --port $(FLEET_PORT)
