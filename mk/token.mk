# A local OAuth set-up for AUTH_MODE=jwt (docs/auth.md): the tests' authorization server, and a token from it.
.PHONY: oauth-up token

OAUTH_PORT ?= 9000
TOKEN_SUBJECT ?= alice

oauth-up: venv-run ## run the local OAuth/OIDC issuer at http://127.0.0.1:OAUTH_PORT (default 9000) in the foreground
	@$(MAKE) -s --no-print-directory $(OAUTH_DIR)/.installed-$(OAUTH_MOCK_VERSION)
	$(PY) -m mcp_lambda_dev.services oauth --port $(OAUTH_PORT)

# Only the token reaches stdout, so TOKEN=$$(make -s token) works.
token: venv-run ## print an access token for the make run server at HOST:PORT from its issuer (TOKEN_SUBJECT, TOKEN_SCOPE)
	@$(PY) scripts/local_token.py http://$(HOST):$(PORT)/mcp --subject "$(TOKEN_SUBJECT)" $(if $(TOKEN_SCOPE),--scope "$(TOKEN_SCOPE)")
