# Set-up and the project's main jobs. `make run` and `make test` are the README's two commands.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup browser run test lint typecheck unit bench clean

# Browser tests drive Debian's Chromium (never a downloaded browser build).
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium fonts-noto-cjk

browser: $(CHROMIUM)

run: setup
	$(BIN)/wmq score --rules xiaomingtang "偎:十十十 吃:八九十 碰:贰贰贰 碰:柒柒柒 碰:二二二 碰:拾拾拾 手:七 胡:七"

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: setup
	$(BIN)/mypy --strict src

unit: setup
	$(BIN)/python -m pytest

test: lint typecheck browser unit

bench: setup
	$(BIN)/python bench/score.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
