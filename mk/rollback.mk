# The emergency rollback of a function's alias (docs/pipeline.md#rolling-back). STACK counts only when given (on
# the command line or in the environment): mk/aws.mk's default, mcp-$(BUSINESS), must not roll back by accident.
.PHONY: rollback

ROLLBACK_STACK = $(if $(filter file,$(origin STACK)),,$(STACK))
ROLLBACK_OPTIONS = $(if $(FUNCTION),--function "$(FUNCTION)",--stack "$(ROLLBACK_STACK)") \
	$(if $(ALIAS),--alias "$(ALIAS)") $(if $(TO),--to "$(TO)") $(if $(AFTER),--published-after "$(AFTER)")

rollback: venv-run ## point a function's alias back at its previous version: STACK=name or FUNCTION=name [ALIAS=live TO=n AFTER=time]
	@[ -n "$(FUNCTION)$(ROLLBACK_STACK)" ] || { echo "rollback: STACK or FUNCTION is required, e.g. make rollback STACK=mcp-demo" >&2; exit 2; }
	@$(PY) scripts/rollback_alias.py $(ROLLBACK_OPTIONS)
