# trackerlab — the two commands are `make report` (render every report) and `make test`.
# Both create .venv from pyproject.toml on first use; later runs only check a stamp file.

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.trackerlab-installed
PROFILE ?= default
ARGS ?=
PYTEST_ARGS ?= -n 2
# This machine's pip config lists optional local indexes; drop pip's notes about them.
PIP_NOISE := is ignored: it is neither a file nor a directory

.PHONY: report test test-fast lab lint typecheck bench check-java env

env: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "trackerlab: Python 3.11 or newer is needed, found " + sys.version.split()[0])'
	@$(BIN)/python -m pip --version >/dev/null 2>&1 || $(PYTHON) -m venv --clear $(VENV) \
	  || { echo "trackerlab: '$(PYTHON) -m venv' failed; install the venv module (Debian/Ubuntu: apt-get install python3-venv)"; exit 1; }
	@echo "trackerlab: installing dependencies into $(VENV) (first run only; pyspark is a 450 MB download)"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]' 2>&1 | { grep -v "$(PIP_NOISE)" || true; }
	@touch $(STAMP)

check-java:
	@$(PYTHON) lib/trackerlab/core/java_runtime.py

## make report [PROFILE=smoke|default|large] [ARGS='--only overview'] [SWEEP=0]
# The Spark sweep of the same profile runs first (resumable: finished grid points are kept,
# so a second run only starts Spark to find nothing left to do); spark_sweeps reads its Parquet.
# SWEEP=0 skips it, and the notebook then falls back to a small single-process grid.
SWEEP ?= 1
report: $(STAMP) check-java
	@if [ "$(SWEEP)" != 0 ]; then $(BIN)/trackerlab sweep --profile $(PROFILE); fi
	@$(BIN)/trackerlab report --profile $(PROFILE) $(ARGS)

## make test [PYTEST_ARGS='-k profiles']
test: $(STAMP) check-java
	@$(BIN)/python -m pytest $(PYTEST_ARGS)

## make test-fast [PYTEST_ARGS='-k plan']: every test but Spark, real JVMs, brokers, browsers
# and the slow ones (tests/tiers.py); a test there that starts java, mvn, go or a browser fails.
test-fast: $(STAMP)
	@TRACKERLAB_FAST=1 $(BIN)/python -m pytest -m "not (spark or jvm or broker or browser or slow)" $(PYTEST_ARGS)

## make lab [LAB_ARGS='--no-browser --port 8889']: JupyterLab on the same environment,
# rooted at the repository (notebooks/ to edit, reports/ executed), opening the capacity
# planner notebook (run it for its interactive form). As root it adds --allow-root.
LAB_ARGS ?=
LAB_NOTEBOOK := notebooks/capacity_planner.ipynb
LAB_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
lab: $(STAMP)
	@echo "trackerlab: opening $(LAB_NOTEBOOK) (Run > Run All Cells, then use the form at its end; executed reports are in reports/)"
	@exec $(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" $(LAB_ROOT) $(LAB_ARGS) $(LAB_NOTEBOOK)

lint: $(STAMP)
	@$(BIN)/ruff check lib tests && $(BIN)/ruff format --check lib tests && $(BIN)/python -m mypy

## make typecheck: mypy over lib/ alone ([tool.mypy] in pyproject.toml; `make lint` runs it too)
typecheck: $(STAMP)
	@$(BIN)/python -m mypy
