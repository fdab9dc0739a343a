# What a business author runs on a business: the manifest lint and the simulator, the skills lint and draft, the
# MCP Registry listing.

# Manifests: lint (one file or all of manifest/) and the local simulator (our `dbx simulator eval`).
.PHONY: manifest-lint manifest-lint-all simulate

manifest-lint: venv-run ## lint MANIFEST=path (default: every manifest/*.yaml); exit 1 on any problem
	$(PY) scripts/manifest_lint.py $(MANIFEST)

manifest-lint-all: venv-run
	$(PY) scripts/manifest_lint.py

# ARGS is JSON; it reaches the script through the environment so its quotes survive the shell.
simulate: export SIMULATE_ARGS = $(or $(ARGS),{})
simulate: export SIMULATE_TOOL_CALL_ID = $(TOOL_CALL_ID)
simulate: venv-run ## call TOOL of BUSINESS with ARGS='{"k": "v"}' through the handler; FORMAT=json; TOOL_CALL_ID=x retries it; SCOPES=a,b grants scopes
	@[ -n "$(TOOL)" ] || { echo "simulate: TOOL is required, e.g. make simulate TOOL=search_products ARGS='{\"keyword\": \"cup\"}'" >&2; exit 2; }
	@$(PY) -m mcp_lambda_dev.simulate --business "$(BUSINESS)" --tool "$(TOOL)" --args "$$SIMULATE_ARGS" --format "$(or $(FORMAT),text)" --tool-call-id "$$SIMULATE_TOOL_CALL_ID" --scopes "$(SCOPES)"

test: manifest-lint-all

# Skills (docs/skills.md): the agent's instructions for a business's tools, served over MCP (SEP-2640).
.PHONY: skill-lint skill

skill-lint: venv-run ## check every business's skills against its tools and manifest (BUSINESS=x for one); exit 1 on any problem
	$(PY) scripts/skill_lint.py $(if $(filter command line,$(origin BUSINESS)),$(BUSINESS))

lint: skill-lint

# The tools' input schemas against what agents' planners handle (docs/tools.md, "Schema lint"); errors fail.
.PHONY: schema-lint contract-diff
schema-lint: venv-run ## lint the tools' input schemas of BUSINESS (default: every business in src/): rule, tool, argument, fix
	$(PY) scripts/schema_lint.py $(if $(filter command line,$(origin BUSINESS)),$(BUSINESS))

lint: schema-lint

# BASE is a git ref (default main); the pipeline's pull-request check passes the target branch (docs/pipeline.md).
contract-diff: venv-run ## compare BUSINESS's published contract with BASE=ref (default main); exit 1 on a breaking change unless its major version was raised
	$(PY) scripts/contract_diff.py $(BUSINESS) --base $(or $(BASE),main)

# SKILL=name (default: <business>-tools); FORCE=1 replaces a SKILL.md edited since the last draft.
skill: venv-run ## draft BUSINESS's skill from its tools and manifest (src/businesses/BUSINESS/skills/); never overwrites edits
	$(PY) scripts/skill_draft.py $(BUSINESS) $(if $(SKILL),--skill $(SKILL)) $(if $(FORCE),--force)

# URL=https://... names the deployed endpoint (default: listing.yaml's url, else a {host} template).
server-json: venv ## write build/BUSINESS.server.json for the MCP Registry and agent platforms, validated against the registry's schema
	$(PY) scripts/server_json.py $(BUSINESS) $(if $(URL),--url $(URL))
