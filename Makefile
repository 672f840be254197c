# The two commands of the quick start: `make play` and `make test`.
# Each sets up its own virtual environment in .venv from a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play serve test test-long lint bench bench-serve fast pure venv clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,lint,ray]'
	touch $(STAMP)

venv: $(STAMP)

play: $(STAMP)
	$(BIN)/biriba play $(ARGS)

# The web game: http://localhost:8000/ (ARGS="--host 0.0.0.0" to let other machines join).
serve: $(STAMP)
	$(BIN)/biriba serve $(ARGS)

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks conftest.py
	$(BIN)/mypy
	$(BIN)/pytest -n 2

# Soak runs: ten times the random deals of the property tests (half an hour or more).
test-long: $(STAMP)
	BIRIBA_LONG=1 $(BIN)/pytest -n 2 tests/test_invariants.py tests/test_melds_paths.py tests/test_meld_variants.py

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks conftest.py
	$(BIN)/ruff format --check src tests benchmarks conftest.py
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/bench.py $(ARGS)

# The web game under load: N four-seat tables of WebSocket clients, SQLite and PostgreSQL.
bench-serve: $(STAMP)
	$(BIN)/python benchmarks/bench_serve.py $(ARGS)

# The compiled engine (optional): the hottest modules as C extensions by mypyc, for faster search.
# Needs a C compiler and Python's headers; `make pure` goes back to pure Python.
fast: $(STAMP)
	$(BIN)/pip install --quiet -e '.[fast]'
	$(BIN)/python src/biriba/compiled.py build

pure: $(STAMP)
	$(BIN)/python src/biriba/compiled.py remove

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	rm -rf src/.mypy_cache src/build src/biriba/.compiled.json
	find src -name '*.so' -delete
