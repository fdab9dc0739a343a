# Skills (docs/skills.md): the agent's instructions for a business's tools, served over MCP (SEP-2640).
.PHONY: skill-lint skill

skill-lint: venv-run ## check every business's skills against its tools and manifest (BUSINESS=x for one); exit 1 on any problem
	$(PY) scripts/skill_lint.py $(if $(filter command line,$(origin BUSINESS)),$(BUSINESS))

lint: skill-lint

# SKILL=name (default: <business>-tools); FORCE=1 replaces a SKILL.md edited since the last draft.
skill: venv-run ## draft BUSINESS's skill from its tools and manifest (src/businesses/BUSINESS/skills/); never overwrites edits
	$(PY) scripts/skill_draft.py $(BUSINESS) $(if $(SKILL),--skill $(SKILL)) $(if $(FORCE),--force)

# URL=https://... names the deployed endpoint (default: listing.yaml's url, else a {host} template).
server-json: venv ## write build/BUSINESS.server.json for the MCP Registry and agent platforms, validated against the registry's schema
	$(PY) scripts/server_json.py $(BUSINESS) $(if $(URL),--url $(URL))
