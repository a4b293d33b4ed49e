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

.PHONY: run test install lint typecheck checks pytest prepare clean-venv

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
	@# The place for later steps: `make run DEMO=1` (a demo cluster) hooks in here.

run: prepare
	@echo "Serving http://$(HOST):$(PORT)/ (admin at http://$(HOST):$(PORT)/admin/)"
	$(BIN)/daphne -b $(HOST) -p $(PORT) volcano_site.asgi:application

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy .

checks: install
	$(MANAGE) check
	$(MANAGE) makemigrations --check --dry-run

pytest: install
	$(BIN)/pytest

test: lint typecheck checks pytest

clean-venv:
	rm -rf $(VENV)
