# The two commands a newcomer needs (README): `make quickstart` and `make test`.
# Each sets up what it needs: a virtualenv in .venv, the cdktf CLI in .tools (tests only).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CDKTF_CLI_VERSION := 0.21.0

export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export CHECKPOINT_DISABLE := 1

.PHONY: quickstart test clean

## Validate and synthesize the bundled quickstart spec into cdktf.out/.
quickstart: $(VENV)/.installed
	$(BIN)/hyperpod-teams validate examples/quickstart/teams.yaml
	$(BIN)/hyperpod-teams synth examples/quickstart/teams.yaml --out cdktf.out

## Install everything the tests need and run them (offline terraform and cdktf CLI included).
test: $(VENV)/.installed-dev .tools/node_modules/.bin/cdktf
	HYPERPOD_TEAMS_AWS_PROVIDER_DIR="$${HYPERPOD_TEAMS_AWS_PROVIDER_DIR:-$$(.ci/find-aws-provider)}" \
	HYPERPOD_TEAMS_CDKTF_CLI="$(CURDIR)/.tools/node_modules/.bin/cdktf" \
	$(BIN)/python -m pytest $(PYTEST_ARGS)

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[entra]'
	touch $@

# The tests' third-party identity-provider plugin is installed beside the project, as a user's
# own plugin package would be: the tests find it through its entry point only.
$(VENV)/.installed-dev: pyproject.toml tests/third_party_plugin/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]' -e tests/third_party_plugin
	touch $@ $(VENV)/.installed

.tools/node_modules/.bin/cdktf:
	npm install --prefix .tools --no-audit --no-fund --silent cdktf-cli@$(CDKTF_CLI_VERSION)

clean:
	rm -rf $(VENV) .tools cdktf.out build *.egg-info
