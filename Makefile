# Set-up and the project's main jobs. `make run` and `make test` are the README's two commands.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ENV_STAMP := $(VENV)/.installed-env

.PHONY: setup env web browser node services run cluster test lint typecheck unit bench clean

# Browser tests drive Debian's Chromium (never a downloaded browser build).
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The browser UI's libraries (Preact), from the npm registry at the versions of the lock file,
# into src/weimaque/web/node_modules, which `wmq serve` serves as they are: no build step.
WEB := src/weimaque/web
WEB_STAMP := $(WEB)/node_modules/.installed
NPM := /usr/bin/npm

$(NPM):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends nodejs npm

$(WEB_STAMP): $(WEB)/package.json $(WEB)/package-lock.json | $(NPM)
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
	touch $(WEB_STAMP)

web: $(WEB_STAMP)

setup: $(STAMP) $(WEB_STAMP)

# The optional extra `env` (PettingZoo, Gymnasium, OpenSpiel, Ray: docs/env.md, docs/scale.md);
# the type checks and the tests cover it.
$(ENV_STAMP): $(STAMP) $(WEB_STAMP)
	$(BIN)/pip install --quiet -e '.[dev,env]'
	touch $(ENV_STAMP)

env: $(ENV_STAMP)

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk

browser: $(CHROMIUM)

# The server's parts for a store on PostgreSQL and a cluster (weimaque.deploy): Debian's
# PostgreSQL, Redis and HAProxy, which the tests run unprivileged, each in a folder of its own.
POSTGRES := $(or $(firstword $(wildcard /usr/lib/postgresql/*/bin/postgres)),/usr/lib/postgresql/bin/postgres)
SERVICES := $(POSTGRES) /usr/bin/redis-server /usr/sbin/haproxy

$(SERVICES) &:
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends postgresql redis-server haproxy

services: $(SERVICES)

# The example JavaScript bot (examples/bots/simple_bot.js) is played by the tests under node.
NODE := /usr/bin/node

$(NODE):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nodejs

node: $(NODE)

# The main job: the browser game on http://127.0.0.1:8000/ with an SQLite file (./weimaque.db).
run: setup
	$(BIN)/wmq serve --host 127.0.0.1 --port 8000

# The same game from a local cluster (docs/scale.md): PostgreSQL, Redis, two `wmq serve` and
# HAProxy on http://127.0.0.1:8000/, in a temporary folder; Ctrl-C stops all of it.
cluster: setup services
	$(BIN)/wmq cluster --servers 2 --port 8000

lint: setup
	$(BIN)/ruff check src tests bench research
	$(BIN)/ruff format --check src tests bench research
	$(BIN)/lint-imports --no-cache

typecheck: env
	$(BIN)/mypy --strict src

# The tests run on four workers, or one per core where there are more: most of them wait on
# real servers and browsers, so two cores keep four busy. A module's tests share one worker
# (its server and browser).
WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 4 ] && echo $$n || echo 4)

unit: env
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadscope --durations=15

test: lint typecheck browser node services unit

bench: setup
	$(BIN)/python bench/score.py
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) $(WEB)/node_modules build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
