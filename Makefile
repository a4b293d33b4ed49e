# The README's two commands: `make run` and `make test`. Everything else is a helper.
# Works on a fresh machine with Python 3.11: the virtualenv is created and filled on demand,
# and refilled only when pyproject.toml changes (the stamp file is keyed on its hash).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python manage.py
STAMP := $(VENV)/.installed-$(shell sha256sum pyproject.toml | cut -c1-16)
HOST ?= 127.0.0.1
PORT ?= 8000
TLS_PORT ?= 8443

.PHONY: run test install lint typecheck checks pytest prepare clean-venv chromium messages compilemessages

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $@

# Everything `run` needs before the server starts: schema, the admin account, demo data.
prepare: install
	$(MANAGE) migrate --noinput
	$(MANAGE) ensure_admin
	$(MANAGE) tls_certificate --interface $(HOST) >/dev/null
	@if [ -n "$(DEMO)" ]; then $(MANAGE) demo_cluster $(if $(SIZE),--size $(SIZE)); fi

# The server runs the embedded scheduler loop (controller, sessions, simulated kubelet).
# DEMO=1: a demo cluster, a stream of jobs and a ten times faster simulated clock.
# SIZE=xl (with DEMO=1): the same on issue 34's XL cluster of 20,000 nodes.
run: prepare
	@echo "Serving http://$(HOST):$(PORT)/ (admin at http://$(HOST):$(PORT)/admin/)"
	@echo "and https://$(HOST):$(TLS_PORT)/ for kubectl (kubeconfig: profile page or manage.py kubeconfig)"
	VOLCANO_EMBEDDED_SCHEDULER=1 VOLCANO_TLS_URL=https://$(HOST):$(TLS_PORT) \
	$(if $(DEMO),VOLCANO_DEMO_STREAM=1 VOLCANO_SIM_SPEED=$${VOLCANO_SIM_SPEED:-10}) \
	$(if $(SIZE),VOLCANO_DEMO_SIZE=$(SIZE)) \
	$(MANAGE) serve --host $(HOST) --port $(PORT) \
	  --endpoint "$$($(MANAGE) tls_certificate --interface $(HOST) --endpoint $(TLS_PORT))"

# Translations (README: Translations): collect the marked strings into the .po, translate the
# new entries, then compile the .mo that is committed beside it.
messages: install
	$(MANAGE) makemessages -l zh_Hans --ignore=.venv --ignore=tests --ignore=bench --ignore=docs

compilemessages: install
	$(MANAGE) compilemessages --ignore=.venv

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy .

checks: install
	$(MANAGE) check
	$(MANAGE) makemigrations --check --dry-run

# The browser tests (tests/browser) drive Debian's Chromium through Playwright, which never
# downloads a browser here. Root with apt-get installs it; anyone else gets the tests skipped,
# each naming the missing /usr/bin/chromium.
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -q chromium >/dev/null 2>&1 \
	      || { apt-get update -q >/dev/null && apt-get install -y -q chromium; } \
	      || echo "apt-get could not install chromium: the browser tests will skip"; \
	  else \
	    echo "/usr/bin/chromium is missing (apt-get install chromium as root): the browser tests will skip"; \
	  fi; \
	fi

# The browser tests run in a pytest of their own, beside the rest: Playwright's sync API runs
# on greenlets, and a greenlet left for the garbage collector can crash the interpreter long
# after its test (a segfault in an unrelated test), so nothing else shares their process; and
# they mostly wait on a live server and a browser, so the two take little more than the
# longer one. Their output follows the rest's; the target fails if either fails.
#
# The rest runs in PYTEST_WORKERS processes (pytest-xdist, each with its own test database):
# most of its time is spent waiting on servers, kubectl and simulated clocks, so two workers
# halve it even on two cores (3,593 tests: 839 s in one process, 398 s in two, 505 s in four).
PYTEST_WORKERS ?= 2
pytest: install chromium
	@log=$$(mktemp); data=$$(mktemp -d); \
	VOLCANO_DATA_DIR=$$data $(BIN)/pytest -m browser > $$log 2>&1 & browser=$$!; \
	$(BIN)/pytest -n $(PYTEST_WORKERS) -m "not browser"; rest=$$?; \
	wait $$browser; seen=$$?; \
	echo "== the browser tests (run beside the rest) =="; cat $$log; rm -rf $$log $$data; \
	test $$rest = 0 && test $$seen = 0

test: lint typecheck checks pytest

clean-venv:
	rm -rf $(VENV)
