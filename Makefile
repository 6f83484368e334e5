# Two commands: `make run` (set up, migrate, load the demo, serve on 127.0.0.1:8000) and
# `make test`. `make setup` does the set-up alone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python manage.py
HOST ?= 127.0.0.1:8000

.PHONY: setup run test test-unit test-browser test-postgres bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip uv

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e '.[test]' || $(BIN)/pip install --quiet -e '.[test]'
	touch $@

setup: $(VENV)/.installed
	$(MANAGE) migrate --noinput
	$(MANAGE) load_demo

run: setup
	$(MANAGE) runserver $(HOST)

test: test-unit test-browser

test-unit: $(VENV)/.installed
	$(BIN)/python -m pytest -m "not browser" -q

test-browser: $(VENV)/.installed
	scripts/ensure-chromium.sh
	DJANGO_ALLOW_ASYNC_UNSAFE=true $(BIN)/python -m pytest -m browser -q -p no:randomly

clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-* staticfiles
