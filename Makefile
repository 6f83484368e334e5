# Two commands: `make run` (set up, migrate, load the demo, serve on 127.0.0.1:8000 with the
# background import worker) and
# `make test`. `make setup` does the set-up alone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python manage.py
HOST ?= 127.0.0.1:8000

.PHONY: setup run test test-unit test-browser test-llm test-postgres test-postgres-optional _test-on-current-db bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip uv

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[test]' || $(BIN)/pip install --quiet --compile -e '.[test]'
	touch $@

# Byte-compiled modules (--compile-bytecode, pip's --compile; compileall for the app's own,
# installed editable): a command started where PYTHONDONTWRITEBYTECODE=1 would otherwise spend
# about 3 s of CPU compiling Django, pandas and the app before doing anything.
setup: $(VENV)/.installed
	$(BIN)/python -m compileall -q annotator scoring config
	$(MANAGE) migrate --noinput
	$(MANAGE) load_demo

# The background import worker (manage.py db_worker) runs beside the server and stops with it.
# --no-reload: a reloading worker forks a child that a kill of its parent would leave behind.
run: setup
	@$(MANAGE) db_worker --no-reload & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker' EXIT INT TERM; \
	$(MANAGE) runserver $(HOST)

# `make test`: the unit suite on SQLite, the browser suite, the LLM judge against a real local
# llama.cpp server (scripts/with-llama-server.sh: its own .venv-llm and a tiny model; skipped
# with a notice when it cannot be had, required when GFRC_REQUIRE_LLM=1), then the unit and
# browser suites again on a throwaway PostgreSQL server (installed with apt when root and
# missing; skipped with a notice when PostgreSQL cannot be had). scripts/pytest.sh treats "no
# tests collected" as a pass.
PYTEST := PYTHON=$(BIN)/python scripts/pytest.sh
# The unit suite runs on every core (pytest-xdist); XDIST= runs it in one process.
XDIST ?= -n auto
# The browser suite runs on PostgreSQL too (about 1.5 minutes); PG_BROWSER=0 skips that.
PG_BROWSER ?= 1

test: test-unit test-browser test-llm test-postgres-optional

test-unit: $(VENV)/.installed
	$(PYTEST) -m "not browser and not llm" -q $(XDIST)

# The first run builds llama-cpp-python (about 12 minutes on two cores; the wheel is kept in
# ~/.cache/gfrc-llm/wheels), then a few minutes: the tiny model answers at about 9 tokens/s.
test-llm: $(VENV)/.installed
	scripts/with-llama-server.sh --optional env $(PYTEST) -m llm -q -p no:randomly

test-browser: $(VENV)/.installed
	scripts/ensure-chromium.sh
	DJANGO_ALLOW_ASYNC_UNSAFE=true $(PYTEST) -m browser -q -p no:randomly

# Fails when PostgreSQL is not available: for CI and anyone asking for it explicitly.
test-postgres: $(VENV)/.installed
	scripts/with-postgres.sh $(MAKE) --no-print-directory _test-on-current-db

test-postgres-optional: $(VENV)/.installed
	scripts/with-postgres.sh --optional $(MAKE) --no-print-directory _test-on-current-db

_test-on-current-db:
	@echo "== unit suite on PostgreSQL ($${DATABASE_URL%%@*}@...)"
	$(PYTEST) -m "not browser and not llm" -q $(XDIST)
	@if [ "$(PG_BROWSER)" = 1 ]; then \
	  scripts/ensure-chromium.sh && DJANGO_ALLOW_ASYNC_UNSAFE=true $(PYTEST) -m browser -q -p no:randomly; fi

# Benchmarks (bench/README.md; figures in docs/benchmarks.md): every script in bench/, on SQLite,
# and again on a throwaway PostgreSQL (durable where the figures are) when one can be had; the
# LLM judge's when a local model server can be had (its first start builds llama.cpp, about 12
# minutes). Loopback only; about 40 minutes on 2 cores. Raw numbers: /tmp/gfrc-bench-results/.
PG_BENCH := scripts/with-postgres.sh --optional
bench: $(VENV)/.installed
	$(BIN)/python bench/bench_scoring.py
	$(BIN)/python bench/bench_http.py
	$(BIN)/python bench/bench_floor.py
	$(BIN)/python bench/profile_save.py
	GFRC_PG_DURABLE=1 $(PG_BENCH) $(BIN)/python bench/bench_http.py
	GFRC_PG_DURABLE=1 $(PG_BENCH) $(BIN)/python bench/bench_floor.py
	scripts/ensure-chromium.sh && $(BIN)/python bench/bench_browser.py
	$(BIN)/python bench/bench_load.py
	GFRC_PG_DURABLE=1 $(PG_BENCH) $(BIN)/python bench/bench_load.py
	$(BIN)/python bench/bench_import.py
	$(BIN)/python bench/bench_import_scaling.py
	$(BIN)/python bench/bench_background_import.py
	$(BIN)/python bench/bench_nugget_import.py
	$(BIN)/python bench/bench_harvest_read.py
	$(BIN)/python bench/bench_harvest_read.py --format har --conversations 500
	$(BIN)/python bench/bench_compare_judges.py
	$(BIN)/python bench/bench_adjudication.py
	$(BIN)/python bench/bench_agreement.py
	$(BIN)/python bench/bench_compare_runs.py
	$(BIN)/python bench/bench_campaign_pages.py
	$(PG_BENCH) $(BIN)/python bench/bench_campaign_pages.py
	$(BIN)/python bench/bench_ranked_lists.py
	$(PG_BENCH) $(BIN)/python bench/bench_ranked_lists.py
	scripts/with-llama-server.sh --optional sh -c \
	  'if [ -n "$${GFRC_LLM_BASE_URL:-}" ]; then $(BIN)/python bench/bench_llm_judge.py; else echo "bench_llm_judge.py: no model server, skipped"; fi'

clean:
	rm -rf $(VENV) .venv-llm db.sqlite3 db.sqlite3-* staticfiles
