# The commands of the quick start: `make play`, `make serve` and `make test`.
# Each sets up the virtual environment .venv from a fresh clone, with what it needs and no more:
# play the package alone (the engine, the bots, the command line and the terminal game), serve
# adds the web extra, test every extra the tests and linters use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLAY := $(VENV)/.installed-play
SERVE := $(VENV)/.installed-serve
ALL := $(VENV)/.installed-all

.PHONY: play serve test check test-long lint bench bench-analysis bench-serve soak-serve soak fuzz fast pure venv clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(PLAY): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(SERVE): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[web]'
	touch $@ $(PLAY)

# torch==2.13.0 first: this machine's disk holds its CPU build, which the train extra's range then accepts.
$(ALL): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[web,cluster,rl,train,test,lint,ray]'
	touch $@ $(SERVE) $(PLAY)

venv: $(ALL)

play: $(PLAY)
	$(BIN)/biriba play $(ARGS)

# The web game: http://localhost:8000/ (ARGS="--host 0.0.0.0" to let other machines join).
serve: $(SERVE)
	$(BIN)/biriba serve $(ARGS)

# --dist loadgroup: the tests of the installed package share one built wheel on one worker.
test: $(ALL)
	$(BIN)/ruff check src tests benchmarks examples fuzz conftest.py
	$(BIN)/mypy
	$(BIN)/pytest -n 2 --dist loadgroup

# The everyday loop (175 s here): lint, types and every test but the slow parts (the browser, the cluster, the
# wheel's venvs, training, the compiled engine's build, tests marked slow); `make test` runs them all, as CI does.
check: $(ALL)
	$(BIN)/ruff check src tests benchmarks examples fuzz conftest.py
	$(BIN)/mypy
	$(BIN)/pytest -n 2 --everyday -q

# Soak runs: ten times the random deals of the property tests, and a long fuzzing of the API (half an hour or more),
# then 2,000 soak deals and 20 seconds of coverage-guided fuzzing of each parser.
test-long: $(ALL)
	BIRIBA_LONG=1 $(BIN)/pytest -n 2 tests/test_invariants.py tests/test_melds_paths.py tests/test_meld_variants.py tests/test_api_fuzz.py tests/test_envs_openspiel.py tests/test_opening.py
	$(BIN)/biriba soak --deals 2000 --seed test-long --no-progress --failures .soak/failures
	$(BIN)/pip install --quiet -e '.[fuzz]'
	$(BIN)/python fuzz/fuzz.py --seconds 20 --work .fuzz/test-long

# The engine's soak (docs/reliability.md): DEALS random and greedy deals over random tables, every invariant
# checked after every action, on every core; stopped, it resumes from its state file (the measured million's is
# kept in benchmarks/soak/).  `make fast` first: the compiled engine plays it 1.7 times as fast.
DEALS ?= 1000000
SEED ?= million
STATE ?= benchmarks/soak/$(SEED).json
soak: $(PLAY)
	mkdir -p $(dir $(STATE))
	$(BIN)/biriba soak --deals $(DEALS) --seed $(SEED) --sample 100 --state $(STATE) --failures .soak/failures $(ARGS)

# Coverage-guided fuzzing of every parser with atheris, SECONDS each (docs/reliability.md); findings in .fuzz/findings.
SECONDS ?= 600
fuzz: $(PLAY)
	$(BIN)/pip install --quiet -e '.[fuzz]'
	$(BIN)/python fuzz/fuzz.py --seconds $(SECONDS) $(ARGS)

lint: $(ALL)
	$(BIN)/ruff check src tests benchmarks examples fuzz conftest.py
	$(BIN)/ruff format --check src tests benchmarks fuzz conftest.py
	$(BIN)/mypy

bench: $(PLAY)
	$(BIN)/pip install --quiet -e '.[bench,rl]'
	$(BIN)/python benchmarks/bench.py $(ARGS)

# What each sampling budget of `biriba analyse` costs a deal, and how steady its labels are (docs/analysis.md).
bench-analysis: $(PLAY)
	$(BIN)/python benchmarks/analysis_budget.py $(ARGS)

# The web game under load: N four-seat tables of WebSocket clients, SQLite and PostgreSQL.
bench-serve: $(ALL)
	$(BIN)/python benchmarks/bench_serve.py $(ARGS)

# The web game for half an hour, tables coming and going: the server's memory, minute by minute.
soak-serve: $(ALL)
	$(BIN)/python benchmarks/soak_serve.py $(ARGS)

# The compiled engine (optional): the hottest modules as C extensions by mypyc, for faster search.
# Needs a C compiler and Python's headers; `make pure` goes back to pure Python.
fast: $(PLAY)
	$(BIN)/pip install --quiet -e '.[fast]'
	$(BIN)/python src/biriba/compiled.py build

pure: $(PLAY)
	$(BIN)/python src/biriba/compiled.py remove

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	rm -rf src/.mypy_cache src/build src/biriba/.compiled.json
	find src -name '*.so' -delete
