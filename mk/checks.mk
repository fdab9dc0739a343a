# The field's infrastructure checkers on the templates: checkov and cfn-lint with the serverless rules
# (cfn-lint-serverless). Their own virtualenv (.venv-checks), as SAM has .venv-sam: checkov pins its own boto3.
# Installed from PyPI once; the checks then run offline (no guideline download, no update check).
.PHONY: checks

CHECKS_VENV ?= .venv-checks
CHECKOV_VERSION ?= 3.3.30
CFN_LINT_SERVERLESS_VERSION ?= 0.3.6
# The cfn-lint that make validate pins (mk/aws.mk), so both read a template the same way.
CHECKS_CFN_LINT_VERSION ?= $(CFN_LINT_VERSION)
# template.yaml, every business's composed stack (make stacks, mk/aws.mk) and any plain CloudFormation template
# under deploy/, picked up without editing this file (expanded when the recipe runs, after make stacks).
CHECK_TEMPLATES = template.yaml $(wildcard $(STACKS_DIR)/*.template.yaml) $(wildcard deploy/*.yaml)
CHECKS_ENV := env -u PYTHONPATH BC_SKIP_MAPPING=TRUE CKV_SKIP_PACKAGE_UPDATE_CHECK=true

$(CHECKS_VENV)/.installed: mk/checks.mk mk/aws.mk
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
