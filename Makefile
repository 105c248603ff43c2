# The two commands of the README: `make demo` and `make test`. Both create .venv
# if it is missing and (re)install vineparse into it whenever a source changed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.vineparse-installed
SOURCES := setup.py setup.cfg pyproject.toml $(shell find vineparse -name '*.py' -o -name '*.pyx' -o -name '*.pxd' -o -name '*.h')

# The installed package cannot see the repository, so point it at the shared treebanks if they are there.
ifeq ($(VINEPARSE_CORPORA),)
ifneq ($(wildcard ../shared/corpora),)
export VINEPARSE_CORPORA := $(abspath ../shared/corpora)
endif
endif

.PHONY: demo test bench cascade-experiments install clean

demo: $(STAMP)
	$(BIN)/vineparse stats --plot bench/out/stats.png --json bench/out/stats.json

test: $(STAMP)
	$(BIN)/pytest -q tests

bench: $(STAMP)
	$(BIN)/python bench/kernels.py --out bench/out/kernels.json --plot bench/out/kernels.png

# Issue 4's experiments: NoPrune vs VineCascade per order, baselines, complexity plots (about an hour here).
cascade-experiments: $(STAMP)
	$(BIN)/python bench/cascade.py --corpus ptb --epochs 4 --recall 0.99 --noprune-limit 1500
	$(BIN)/python bench/cascade.py --corpus ewt --epochs 3 --recall 0.99 --noprune-limit 3000

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The package is installed, not used from the source tree: tests run against the built wheel
# (through the venv's console scripts, which do not put the source tree on sys.path).
$(STAMP): $(BIN)/python $(SOURCES)
	$(BIN)/python -m pip install --quiet ".[test,plots]"
	@touch $(STAMP)

clean:
	rm -rf build dist *.egg-info vineparse/_kernels/*.c vineparse/_kernels/*.so bench/out
