# Skills (docs/skills.md): the agent's instructions for a business's tools, served over MCP (SEP-2640).
.PHONY: skill-lint skill

skill-lint: venv-run ## check every business's skills against its tools and manifest (BUSINESS=x for one); exit 1 on any problem
	$(PY) scripts/skill_lint.py $(if $(filter command line,$(origin BUSINESS)),$(BUSINESS))

lint: skill-lint
