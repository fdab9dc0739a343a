# A post-deploy smoke check (docs/deploy.md#smoke-check-a-deployed-stack). TOKEN reaches the script on stdin
# (printf is a shell builtin), so it never shows in a process list.
.PHONY: smoke

SMOKE_OPTIONS = $(if $(URL),--url "$(URL)",--stack "$(STACK)") $(if $(ORIGIN),--origin "$(ORIGIN)") \
	$(if $(TOOL),--tool "$(TOOL)") $(if $(ARGS),--args '$(ARGS)') $(if $(TASK_TOOL),--task-tool "$(TASK_TOOL)") \
	$(if $(TASK_ARGS),--task-args '$(TASK_ARGS)') $(if $(TASK_TIMEOUT),--task-timeout "$(TASK_TIMEOUT)")

smoke: venv-run ## check a deployed endpoint as a client would: URL=https://.../mcp or STACK=name [TOKEN ORIGIN TOOL ARGS TASK_TOOL TASK_ARGS]
	@[ -n "$(URL)$(STACK)" ] || { echo "smoke: URL or STACK is required, e.g. make smoke URL=https://abc.execute-api.eu-west-1.amazonaws.com/mcp" >&2; exit 2; }
	@$(if $(TOKEN),printf '%s' "$$TOKEN" | )$(PY) scripts/smoke.py $(SMOKE_OPTIONS) $(if $(TOKEN),--token-stdin)
