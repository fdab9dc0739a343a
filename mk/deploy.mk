# AWS SAM: validate, build and deploy. SAM CLI and cfn-lint live in their own virtualenv (.venv-sam)
# because aws-sam-cli pins its own boto3 and would fight the runtime's dependencies in .venv.
.PHONY: validate build deploy sam

SAM_VENV ?= .venv-sam
SAM := $(SAM_VENV)/bin/sam
SAM_CLI_VERSION ?= 1.170.0
CFN_LINT_VERSION ?= 1.58.0
LAMBDA_PYTHON ?= 3.13.0
STACK ?= mcp-$(BUSINESS)
SAM_REGION ?= us-east-1
BUILD_DIR := .aws-sam/build
# The function's architecture is template.yaml's (arm64) unless ARCH is given: make build ARCH=x86_64 builds an
# x86_64 function with x86_64 wheels (what make sam-local runs on an x86_64 host; mk/samlocal.mk).
ARCH_OPTION = $(if $(ARCH),--architecture $(ARCH))
# make build stages the function's code for one business here (scripts/package_stage.py): <business>/ and
# <business>.template.yaml, template.yaml with CodeUri pointing at it.
STAGE_DIR := .aws-sam/stage
# The main Makefile exports PYTHONPATH=src:dev:. for the app; SAM's own Python (and the pip that sam build runs)
# must not see it. The region only satisfies boto3: validate needs neither credentials nor network.
SAM_ENV := env -u PYTHONPATH SAM_CLI_TELEMETRY=0

$(SAM_VENV)/.installed: mk/deploy.mk
	$(PYTHON) -m venv $(SAM_VENV)
	$(SAM_ENV) $(SAM_VENV)/bin/pip install --quiet --upgrade pip
	$(SAM_ENV) $(SAM_VENV)/bin/pip install --quiet 'aws-sam-cli==$(SAM_CLI_VERSION)' 'cfn-lint==$(CFN_LINT_VERSION)'
	touch $@

# Each business's stack: template.yaml composed with its src/businesses/<name>/stack.yaml (scripts/stack_compose.py),
# one template per business that has a fragment; make validate and make checks check them beside template.yaml.
STACKS_DIR := .aws-sam/stacks
.PHONY: stacks
stacks: venv-run ## compose every business's stack (template.yaml + its stack.yaml) into .aws-sam/stacks/
	rm -rf $(STACKS_DIR)
	$(PY) scripts/stack_compose.py --all $(STACKS_DIR)

validate: $(SAM_VENV)/.installed stacks ## sam validate --lint + cfn-lint on template.yaml, every business's stack and deploy/*.yaml (offline, no AWS credentials)
	@for template in template.yaml $(wildcard $(STACKS_DIR)/*.template.yaml); do \
	  echo "sam validate --lint $$template"; \
	  $(SAM_ENV) AWS_DEFAULT_REGION=$(SAM_REGION) $(SAM) validate --lint --template $$template || exit 1; \
	done
	$(SAM_ENV) $(SAM_VENV)/bin/cfn-lint template.yaml $(wildcard $(STACKS_DIR)/*.template.yaml) $(wildcard deploy/*.yaml)

# What the function never imports, removed from the package: pydantic's v1 compatibility layer (FastAPI only
# probes for it), the public test kit (mcp_lambda.testing), and the C sources and type stubs some wheels ship
# beside their compiled modules.
PRUNE := pydantic/v1 mcp_lambda/testing
PACKAGE_LIMIT_MB ?= 16
# What scripts/package_deps.py installed beyond the framework (PyJWT when the deploy parameters say AuthMode=jwt,
# the business's own requirements.txt) and the business's budget: package_size.py reports from it and make
# deploy refuses AuthMode=jwt for a package built without PyJWT.
BUILD_RECORD := $(BUILD_DIR)/package.json
export DEPLOY_PARAMS

# Builds BUSINESS's function with a local python3.13 (no Docker): its code alone is staged (the framework without
# its development-only modules, businesses/<BUSINESS>/, requirements.txt) with its stack (template.yaml composed
# with businesses/<BUSINESS>/stack.yaml) and built. PyJWT follows the stack's AuthMode (samconfig.toml's
# parameter_overrides, then DEPLOY_PARAMS), the business's own pins (businesses/<BUSINESS>/requirements.txt) are
# installed into its package, and the framework's and the business's parts are sized apart. Its manifest is compiled to
# JSON next to the code (MANIFEST_DIR=/var/task/manifest), so the function needs no PyYAML, and its tool input
# schemas to businesses/<BUSINESS>/_tool_schemas.json (tools/list needs no JSON-schema generation); then
# scripts/package_check.py fails the build if another business, a development-only module or a module importing
# yaml is in the package, and the package size is printed.
# sam build ships no .pyc, and /var/task is read-only: each cold start compiles every module it imports (about
# half its import time). PYC=1 compiles them at build time instead, with the runtime's Python: ~45 % less cold
# start for ~9 MB more package (SnapStart makes it moot: imports happen once, before the snapshot).
build: $(SAM_VENV)/.installed venv-run ## sam build BUSINESS's function and stack for python3.13/arm64 without Docker (pyenv's 3.13 or python3.13 on PATH); DEPLOY_PARAMS as for deploy, PYC=1 to precompile, ARCH=x86_64
	@[ -z "$(JWT)" ] || { echo "build: JWT=1 is gone: PyJWT ships when the stack's AuthMode is jwt" \
	  "(make build BUSINESS=$(BUSINESS) DEPLOY_PARAMS=\"AuthMode=jwt ...\", or samconfig.toml)" >&2; exit 2; }
	rm -f $(BUILD_RECORD)
	$(PY) scripts/package_stage.py $(BUSINESS) $(STAGE_DIR) $(ARCH_OPTION)
	@py="$$(pyenv prefix $(LAMBDA_PYTHON) 2>/dev/null)/bin/python3.13"; \
	[ -x "$$py" ] || py="$$(command -v python3.13 || true)"; \
	[ -n "$$py" ] || { echo "build: Python 3.13 not found; run 'pyenv install $(LAMBDA_PYTHON)'" \
	  "(sam build needs python3.13 on PATH to match the Lambda runtime)" >&2; exit 1; }; \
	echo "build: using $$py"; \
	PATH="$$(dirname "$$py"):$$PATH" $(SAM_ENV) $(SAM) build --template $(STAGE_DIR)/$(BUSINESS).template.yaml \
	  --config-file $(CURDIR)/samconfig.toml --build-dir $(BUILD_DIR)
	rm -rf $(BUILD_DIR)/McpFunction/manifest
	$(PY) scripts/manifest_compile.py $(BUILD_DIR)/McpFunction/manifest manifest/$(BUSINESS).yaml
	$(PY) scripts/tool_schemas_compile.py $(BUILD_DIR)/McpFunction
	$(PY) scripts/skill_lint.py $(BUSINESS)
	$(PY) scripts/skills_compile.py $(BUILD_DIR)/McpFunction
	$(PY) scripts/package_deps.py $(BUSINESS) $(BUILD_DIR)/McpFunction $(BUILD_RECORD) $(ARCH_OPTION)
	cd $(BUILD_DIR)/McpFunction && rm -rf $(PRUNE) && find . \( -name '*.c' -o -name '*.pyi' \) -delete
	$(PY) scripts/package_prune.py $(BUILD_DIR)/McpFunction
	$(if $(PYC),@py="$$(pyenv prefix $(LAMBDA_PYTHON) 2>/dev/null)/bin/python3.13"; \
	  [ -x "$$py" ] || py="$$(command -v python3.13)"; \
	  $(SAM_ENV) "$$py" -m compileall -q -j 0 --invalidation-mode unchecked-hash $(BUILD_DIR)/McpFunction)
	$(PY) scripts/package_check.py $(BUILD_DIR)/McpFunction --business $(BUSINESS)
	$(PY) scripts/package_size.py $(BUILD_DIR)/McpFunction --record $(BUILD_RECORD) $(if $(PYC),,--limit-mb $(PACKAGE_LIMIT_MB))

# ARTIFACT_BUCKET and CFN_ROLE_ARN (both optional) are the pipeline's: the bucket and the CloudFormation execution
# role of deploy/github-oidc.yaml (docs/pipeline.md). Without them SAM uses its managed bucket and your credentials.
deploy: ## sam deploy BUSINESS=x as stack mcp-x (run make build BUSINESS=x first; needs AWS credentials); ARTIFACT_BUCKET, CFN_ROLE_ARN
	@[ -d src/businesses/$(BUSINESS) ] || { echo "deploy: src/businesses/$(BUSINESS) does not exist" >&2; exit 1; }
	@[ -f $(BUILD_DIR)/McpFunction/manifest/$(BUSINESS).json ] || { \
	  echo "deploy: the build is not for $(BUSINESS); run 'make build BUSINESS=$(BUSINESS)' first" >&2; exit 1; }
	@$(PY) scripts/package_check.py $(BUILD_DIR)/McpFunction --business $(BUSINESS) >/dev/null || { \
	  echo "deploy: run 'make build BUSINESS=$(BUSINESS)' first" >&2; exit 1; }
	@$(PY) scripts/package_deps.py $(BUILD_RECORD) --check-deploy || { \
	  echo "deploy: the build cannot serve this stack's configuration" >&2; exit 1; }
	eval "set -- $$($(PY) scripts/package_deps.py --overrides)"; \
	$(SAM_ENV) $(SAM) deploy --template-file $(BUILD_DIR)/template.yaml --stack-name $(STACK) \
	  --parameter-overrides BusinessName=$(BUSINESS) "$$@" \
	  $(if $(ARTIFACT_BUCKET),--s3-bucket "$(ARTIFACT_BUCKET)" --s3-prefix "$(STACK)",--resolve-s3) \
	  $(if $(CFN_ROLE_ARN),--role-arn "$(CFN_ROLE_ARN)") \
	  --capabilities CAPABILITY_IAM --no-fail-on-empty-changeset $(DEPLOY_ARGS)

# SAM CLI lives in .venv-sam (not on PATH): run any sam command through it, e.g. make sam ARGS="local invoke ...".
sam: $(SAM_VENV)/.installed ## run the pinned SAM CLI: make sam ARGS="logs --stack-name mcp-demo --tail"
	@$(SAM_ENV) $(SAM) $(ARGS)

test: validate
# Every business's composed stack passes sam validate in make lint too, beside make checks' checkov and rules.
lint: validate

# A post-deploy smoke check (docs/deploy.md#smoke-check-a-deployed-stack). TOKEN reaches the script on stdin
# (printf is a shell builtin), so it never shows in a process list.
.PHONY: smoke

SMOKE_OPTIONS = $(if $(URL),--url "$(URL)",--stack "$(STACK)") $(if $(ORIGIN),--origin "$(ORIGIN)") \
	$(if $(TOOL),--tool "$(TOOL)") $(if $(ARGS),--args '$(ARGS)') $(if $(TASK_TOOL),--task-tool "$(TASK_TOOL)") \
	$(if $(TASK_ARGS),--task-args '$(TASK_ARGS)') $(if $(TASK_TIMEOUT),--task-timeout "$(TASK_TIMEOUT)")

smoke: venv-run ## check a deployed endpoint as a client would: URL=https://.../mcp or STACK=name [TOKEN ORIGIN TOOL ARGS TASK_TOOL TASK_ARGS]
	@[ -n "$(URL)$(STACK)" ] || { echo "smoke: URL or STACK is required, e.g. make smoke URL=https://abc.execute-api.eu-west-1.amazonaws.com/mcp" >&2; exit 2; }
	@$(if $(TOKEN),printf '%s' "$$TOKEN" | )$(PY) scripts/smoke.py $(SMOKE_OPTIONS) $(if $(TOKEN),--token-stdin)

# The emergency rollback of a function's alias (docs/pipeline.md#rolling-back). STACK counts only when given (on
# the command line or in the environment): mk/deploy.mk's default, mcp-$(BUSINESS), must not roll back by accident.
.PHONY: rollback

ROLLBACK_STACK = $(if $(filter file,$(origin STACK)),,$(STACK))
ROLLBACK_OPTIONS = $(if $(FUNCTION),--function "$(FUNCTION)",--stack "$(ROLLBACK_STACK)") \
	$(if $(ALIAS),--alias "$(ALIAS)") $(if $(TO),--to "$(TO)") $(if $(AFTER),--published-after "$(AFTER)")

rollback: venv-run ## point a function's alias back at its previous version: STACK=name or FUNCTION=name [ALIAS=live TO=n AFTER=time]
	@[ -n "$(FUNCTION)$(ROLLBACK_STACK)" ] || { echo "rollback: STACK or FUNCTION is required, e.g. make rollback STACK=mcp-demo" >&2; exit 2; }
	@$(PY) scripts/rollback_alias.py $(ROLLBACK_OPTIONS)
