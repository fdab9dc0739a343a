"""The development tools, importable by purpose (never shipped: `make build` stages src/ only).

A test imports a tool's functions from here (`from mcp_lambda_tools.build.package_check import problems`),
  make
runs each as a module (`$(PY) -m mcp_lambda_tools.build.package_check`). The packages, by purpose:

- `build`: make build: stage one business's Lambda code, compile its manifest, skills and tool schemas, check
  the package and its size.
- `deploy`: make deploy and after: compose a business's stack, smoke-check and roll back a deployed endpoint,
  the deploy matrix, server.json.
- `scaffold`: make new-business and make skill: write a new business from templates/, draft its skill.
- `lint`: make lint and the business checks: the import graph, manifests, skills.
- `suites`: the suites and local services: the official conformance suite, the Node tools, make fleet, make
  token, make events.
- `docs`: generated documentation: the settings tables of docs/configuration.md.

Where each script of the old flat `scripts/` folder went (a branch that adds a script there moves it the same
way; `package_prune.py` came in with issue 37's merge):

scripts/package_stage.py         -> python -m mcp_lambda_tools.build.package_stage
scripts/package_check.py         -> python -m mcp_lambda_tools.build.package_check
scripts/package_deps.py          -> python -m mcp_lambda_tools.build.package_deps
scripts/package_size.py          -> python -m mcp_lambda_tools.build.package_size
scripts/manifest_compile.py      -> python -m mcp_lambda_tools.build.manifest_compile
scripts/skills_compile.py        -> python -m mcp_lambda_tools.build.skills_compile
scripts/tool_schemas_compile.py  -> python -m mcp_lambda_tools.build.tool_schemas_compile
scripts/stack_compose.py         -> python -m mcp_lambda_tools.deploy.stack_compose
scripts/smoke.py                 -> python -m mcp_lambda_tools.deploy.smoke
scripts/smoke_client.py          -> python -m mcp_lambda_tools.deploy.smoke_client
scripts/rollback_alias.py        -> python -m mcp_lambda_tools.deploy.rollback_alias
scripts/businesses_matrix.py     -> python -m mcp_lambda_tools.deploy.businesses_matrix
scripts/server_json.py           -> python -m mcp_lambda_tools.deploy.server_json
scripts/new_business.py          -> python -m mcp_lambda_tools.scaffold.new_business
scripts/skill_draft.py           -> python -m mcp_lambda_tools.scaffold.skill_draft
scripts/import_graph.py          -> python -m mcp_lambda_tools.lint.import_graph
scripts/manifest_lint.py         -> python -m mcp_lambda_tools.lint.manifest_lint
scripts/skill_lint.py            -> python -m mcp_lambda_tools.lint.skill_lint
scripts/conformance.py           -> python -m mcp_lambda_tools.suites.conformance
scripts/fleet.py                 -> python -m mcp_lambda_tools.suites.fleet
scripts/mcp_tools.py             -> python -m mcp_lambda_tools.suites.mcp_tools
scripts/local_token.py           -> python -m mcp_lambda_tools.suites.local_token
scripts/record_events.py         -> python -m mcp_lambda_tools.suites.record_events
scripts/mcp-conformance          -> dev/mcp_lambda_tools/suites/mcp-conformance
scripts/mcp-inspect              -> dev/mcp_lambda_tools/suites/mcp-inspect
scripts/settings_table.py        -> python -m mcp_lambda_tools.docs.settings_table
scripts/package_prune.py         -> python -m mcp_lambda_tools.build.package_prune
scripts/scaffold/                -> dev/mcp_lambda_tools/scaffold/templates/
"""
