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

.PHONY: demo test bench bench-astar cascade-experiments install clean

# The main job: treebank statistics, then a vine -> 1 -> 2 -> 3 cascade trained on 2,000 EWT sentences
# (about two minutes) and evaluated on EWT dev with the per-level kept share and gold-arc recall.
demo: $(STAMP)
	$(BIN)/vineparse stats --plot bench/out/stats.png --json bench/out/stats.json
	$(BIN)/vineparse train --train ewt-train --dev ewt-dev --limit 2000 --epochs 2 --out bench/out/demo.msgpack
	$(BIN)/vineparse evaluate bench/out/demo.msgpack --treebank ewt-dev --json bench/out/demo.json

test: $(STAMP)
	$(BIN)/pytest -q tests

# The kernel benchmark (issue 18); SuPar's DependencyCRF is timed in its own virtual environment when it exists
# (make supar-venv). bench-results writes the committed bench/results/kernels.json, waiting for a quiet machine
# (load < 1.5, up to 45 minutes) before it measures thread scaling.
.PHONY: bench-results supar-venv
SUPAR_VENV ?= ../supar-venv
SUPAR_ARG = $(if $(wildcard $(SUPAR_VENV)/bin/python),--supar $(SUPAR_VENV)/bin/python)

bench: $(STAMP)
	$(BIN)/python bench/kernels.py $(SUPAR_ARG) --out bench/out/kernels.json --plot bench/out/kernels.png

bench-results: $(STAMP)
	$(BIN)/python bench/kernels.py $(SUPAR_ARG) --quiet-load 1.5 --wait-minutes 45 \
	    --out bench/results/kernels.json --plot bench/results/kernels.png

supar-venv:
	$(PYTHON) -m venv $(SUPAR_VENV)
	$(SUPAR_VENV)/bin/python -m pip install --quiet torch==2.13.0 numpy supar

# Issue 4's experiments: NoPrune vs VineCascade per order, baselines, complexity plots (about 30 minutes here).
cascade-experiments: $(STAMP)
	$(BIN)/python bench/cascade.py --corpus ptb --epochs 5 --noprune-epochs 5 --baseline-epochs 5 \
	    --recall 0.99 --vine-recall 0.998 --noprune-limit 1500
	$(BIN)/python bench/cascade.py --corpus ewt --epochs 5 --noprune-epochs 5 --baseline-epochs 5 \
	    --recall 0.99 --vine-recall 0.998 --noprune-limit 3000

# Issue 6: every heuristic x model on the PTB sample (about 10 minutes here).
bench-astar: $(STAMP)
	$(BIN)/python bench/astar.py --out bench/out/astar.json --table bench/out/astar.md --plot bench/out/astar.png

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

# ---- the spaCy component vine_cascade on EWT (issue 5) ----
# ewt-vine: convert EWT to .spacy (one sentence per doc, under the git-ignored corpora/spacy/), train
# tok2vec + tagger + vine_cascade (configs/ewt.cfg), set the pruning thresholds on dev, evaluate on test and
# run `spacy benchmark speed`. ewt-compare: the same budget with spaCy's own parser
# (configs/ewt_spacy_parser.cfg), then bench/spacy_compare.py (JSON + markdown table under bench/out/).
SPACY_DATA := corpora/spacy
EWT_SPACY := $(SPACY_DATA)/en_ewt-ud-train.spacy $(SPACY_DATA)/en_ewt-ud-dev.spacy $(SPACY_DATA)/en_ewt-ud-test.spacy
VINE_OUT := bench/out/ewt_vine
SPACY_OUT := bench/out/ewt_spacy_parser
ONE_CORE := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
# `python -I -m`: the working directory (this unbuilt source tree) stays off sys.path, so the installed
# vineparse is the one imported, as with the console scripts.

.PHONY: ewt-vine ewt-compare

$(SPACY_DATA)/en_ewt-ud-%.spacy: | $(STAMP)
	@mkdir -p $(SPACY_DATA)
	$(BIN)/python -I -m spacy convert $(VINEPARSE_CORPORA)/ud-english-ewt/en_ewt-ud-$*.conllu $(SPACY_DATA) --converter conllu -n 1

$(VINE_OUT)/model-calibrated: $(STAMP) $(EWT_SPACY) configs/ewt.cfg
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/ewt.cfg --output $(VINE_OUT) \
	    --paths.train $(SPACY_DATA)/en_ewt-ud-train.spacy --paths.dev $(SPACY_DATA)/en_ewt-ud-dev.spacy
	$(ONE_CORE) $(BIN)/python -I -m vineparse.pipeline calibrate $(VINE_OUT)/model-best \
	    $(SPACY_DATA)/en_ewt-ud-dev.spacy --max-heads 4 --output $(VINE_OUT)/model-calibrated

$(SPACY_OUT)/model-best: $(STAMP) $(EWT_SPACY) configs/ewt_spacy_parser.cfg
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/ewt_spacy_parser.cfg --output $(SPACY_OUT) \
	    --paths.train $(SPACY_DATA)/en_ewt-ud-train.spacy --paths.dev $(SPACY_DATA)/en_ewt-ud-dev.spacy

ewt-vine: $(VINE_OUT)/model-calibrated
	$(ONE_CORE) $(BIN)/python -I -m spacy evaluate $(VINE_OUT)/model-calibrated $(SPACY_DATA)/en_ewt-ud-test.spacy \
	    --gold-preproc --output $(VINE_OUT)/test.json
	$(ONE_CORE) $(BIN)/python -I -m spacy benchmark speed $(VINE_OUT)/model-calibrated $(SPACY_DATA)/en_ewt-ud-test.spacy

ewt-compare: $(VINE_OUT)/model-calibrated $(SPACY_OUT)/model-best
	$(ONE_CORE) $(BIN)/python bench/spacy_compare.py --vine $(VINE_OUT)/model-calibrated --spacy $(SPACY_OUT)/model-best \
	    --dev $(SPACY_DATA)/en_ewt-ud-dev.spacy --test $(SPACY_DATA)/en_ewt-ud-test.spacy \
	    --out bench/out/spacy_compare.json --markdown bench/out/spacy_compare.md
