# The two commands of the README: `make demo` and `make test`. Both create .venv
# if it is missing and (re)install vineparse into it whenever a source changed.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.vineparse-installed
SOURCES := setup.py setup.cfg pyproject.toml $(shell find vineparse -name '*.py' -o -name '*.pyx' -o -name '*.pxd' -o -name '*.h')

# The installed package cannot see the repository, so point it at the shared treebanks if they are there.
ifeq ($(VINEPARSE_CORPORA),)
ifneq ($(wildcard ../shared/corpora),)
export VINEPARSE_CORPORA := $(abspath ../shared/corpora)
endif
endif

.PHONY: demo test bench bench-astar cascade-experiments install clean docs dist wheel-missing

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

# Issues 4 and 13: VineCascade-k against fairly trained NoPrune-k, FirstOnly-3 and Local-3 (same epochs and update
# rule), speed by length bucket, thread scaling (about 1.5 hours here; trained systems are kept under bench/out/).
cascade-experiments: $(STAMP)
	$(BIN)/python bench/cascade.py --corpus ewt --models bench/out/models_ewt --out bench/results/cascade_ewt.json
	$(BIN)/python bench/cascade.py --corpus ptb --models bench/out/models_ptb --out bench/results/cascade_ptb.json

# Issue 6: every heuristic x model on the PTB sample (about 10 minutes here).
bench-astar: $(STAMP)
	$(BIN)/python bench/astar.py --out bench/out/astar.json --table bench/out/astar.md --plot bench/out/astar.png

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The package is installed, not used from the source tree: tests run against the built wheel
# (through the venv's console scripts, which do not put the source tree on sys.path). The wheel is built
# once (build isolation, every extension compiled) and kept in dist/: tests/test_release.py installs that
# same file into a clean virtual environment, and `make dist` ships it.
# (A missing wheel, after `make clean` or a deleted dist/, also rebuilds it.)
$(STAMP): $(BIN)/python $(SOURCES) $(if $(wildcard dist/vineparse-*.whl),,wheel-missing)
	rm -f dist/vineparse-*.whl
	$(BIN)/python -m pip wheel --quiet --no-deps . -w dist
	$(BIN)/python -m pip uninstall --quiet --yes vineparse
	$(BIN)/python -m pip install --quiet "$$(ls dist/vineparse-*.whl)[test,plots]"
	@touch $(STAMP)

wheel-missing:

# A release: the wheel of `make install` and an sdist, both under dist/ (`pip install dist/vineparse-*.whl`).
dist: $(STAMP)
	$(BIN)/python -I -c "import build.__main__" 2>/dev/null || $(BIN)/python -m pip install --quiet build
	rm -f dist/vineparse-*.tar.gz
	$(BIN)/python -I -m build --sdist --outdir dist .
	@ls -l dist/vineparse-*

# The docs site (mkdocs.yml, docs/): the result tables and plots rendered from bench/results/ first
# (bench/render_docs.py), then `mkdocs build --strict` into build/site/. Needs only the venv's Python, not
# an installed vineparse (the API reference is read from the .py files); installs the `docs` extra's tools
# (setup.cfg) into the venv when they are missing.
DOCS_TOOLS := "mkdocs>=1.6,<2" "mkdocstrings[python]>=0.27,<2"
docs: | $(BIN)/python
	$(BIN)/python -I -c "import mkdocs, mkdocstrings_handlers.python" 2>/dev/null || \
	    $(BIN)/python -m pip install --quiet $(DOCS_TOOLS)
	$(BIN)/python bench/render_docs.py
	$(BIN)/python -I -m mkdocs build --strict

clean:
	rm -rf build dist *.egg-info vineparse/_kernels/*.c vineparse/_kernels/*.so bench/out docs/results/*.png $(STAMP)

# ---- the spaCy component vine_cascade on EWT (issues 5, 14) ----
# ewt-vine: convert EWT to .spacy (one sentence per doc, under the git-ignored corpora/spacy/), train
# tok2vec + tagger + vine_cascade (configs/ewt.cfg; the pruning thresholds are set while training), keep the
# cascade levels CALIBRATE_ORDERS and calibrate them on dev for CALIBRATE_RECALL (model-calibrated), evaluate
# that on test and run `spacy benchmark speed`.
# package: `spacy package` on that pipeline, an sdist and a wheel of en_vineparse_ewt under dist/.
# ewt-compare: three seeds each of vine_cascade and of spaCy's own parser, with the shared tok2vec as it is
# (setting cnn) and with a BiLSTM in it (setting bilstm), COMPARE_STEPS steps each (`make -j2 ewt-compare` runs
# two trainings at a time), then bench/spacy_compare.py (JSON + markdown under bench/results/), which
# cuts each vine_cascade to CALIBRATE_ORDERS and calibrates it on dev for CALIBRATE_RECALL (per pruning level)
# first (both chosen on dev: bench/results/orders_dev.json, orders_13_dev.json), and times both pipelines
# on thinc's default ops (blis) and on vineparse.blas.ScipyBlasOps (OpenBLAS).
SPACY_DATA := corpora/spacy
EWT_SPACY := $(SPACY_DATA)/en_ewt-ud-train.spacy $(SPACY_DATA)/en_ewt-ud-dev.spacy $(SPACY_DATA)/en_ewt-ud-test.spacy
VINE_OUT := bench/out/ewt_vine
COMPARE := bench/out/compare
COMPARE_STEPS ?= 2000
CALIBRATE_RECALL ?= 0.95
CALIBRATE_ORDERS ?= 1,3
COMPARE_RUNS := $(foreach setting,cnn bilstm,$(foreach pipe,vine spacy,$(foreach seed,0 1 2,$(setting)-$(pipe)-s$(seed))))
ONE_CORE := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
TRAIN_DATA = --paths.train $(SPACY_DATA)/en_ewt-ud-train.spacy --paths.dev $(SPACY_DATA)/en_ewt-ud-dev.spacy
# the config of a comparison run named setting-pipeline-sSEED
run_config = configs/$(if $(filter vine,$(word 2,$(subst -, ,$(1)))),ewt,ewt_spacy_parser)$(if $(filter bilstm,$(word 1,$(subst -, ,$(1)))),_bilstm,).cfg
run_seed = $(subst s,,$(word 3,$(subst -, ,$(1))))
# `python -I -m`: the working directory (this unbuilt source tree) stays off sys.path, so the installed
# vineparse is the one imported, as with the console scripts.

.PHONY: ewt-vine ewt-compare package

$(SPACY_DATA)/en_ewt-ud-%.spacy: | $(STAMP)
	@mkdir -p $(SPACY_DATA)
	$(BIN)/python -I -m spacy convert $(VINEPARSE_CORPORA)/ud-english-ewt/en_ewt-ud-$*.conllu $(SPACY_DATA) --converter conllu -n 1

$(VINE_OUT)/model-best: $(STAMP) $(EWT_SPACY) configs/ewt.cfg
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/ewt.cfg --output $(VINE_OUT) $(TRAIN_DATA)

$(VINE_OUT)/model-calibrated: $(VINE_OUT)/model-best
	$(ONE_CORE) $(BIN)/python -I -m vineparse.pipeline calibrate $(VINE_OUT)/model-best \
	    $(SPACY_DATA)/en_ewt-ud-dev.spacy --orders $(CALIBRATE_ORDERS) --recall $(CALIBRATE_RECALL) --output $@

ewt-vine: $(VINE_OUT)/model-calibrated
	$(ONE_CORE) $(BIN)/python -I -m spacy evaluate $(VINE_OUT)/model-calibrated $(SPACY_DATA)/en_ewt-ud-test.spacy \
	    --gold-preproc --output $(VINE_OUT)/test.json
	$(ONE_CORE) $(BIN)/python -I -m spacy benchmark speed $(VINE_OUT)/model-calibrated $(SPACY_DATA)/en_ewt-ud-test.spacy

package: $(VINE_OUT)/model-calibrated
	$(BIN)/python -m pip install --quiet wheel
	@mkdir -p dist
	$(BIN)/python -I -m spacy package $(VINE_OUT)/model-calibrated dist --name vineparse_ewt --version 0.1.0 \
	    --build sdist,wheel --force
	@ls dist/en_vineparse_ewt-0.1.0/dist/

$(COMPARE)/%/model-best: | $(STAMP) $(EWT_SPACY)
	@mkdir -p $(COMPARE)
	$(ONE_CORE) $(BIN)/python -I -m spacy train $(call run_config,$*) --output $(COMPARE)/$* $(TRAIN_DATA) \
	    --system.seed $(call run_seed,$*) --training.max_steps $(COMPARE_STEPS) --training.eval_frequency 1000 \
	    > $(COMPARE)/$*.log 2>&1

ewt-compare: $(foreach run,$(COMPARE_RUNS),$(COMPARE)/$(run)/model-best)
	$(ONE_CORE) $(BIN)/python bench/spacy_compare.py --runs $(COMPARE) --steps $(COMPARE_STEPS) --orders $(CALIBRATE_ORDERS) \
	    --recall $(CALIBRATE_RECALL) \
	    --dev $(SPACY_DATA)/en_ewt-ud-dev.spacy --test $(SPACY_DATA)/en_ewt-ud-test.spacy \
	    --out bench/results/spacy_compare.json --markdown bench/results/spacy_compare.md

# ---- hardening (issue 15) ----
# bench-astar-backoff: A* with the back-off grammar on EWT test (8-26 words) and the PTB test range, both models
# (about 10 minutes here). bench-labels: a full EWT cascade with its labeller, UAS and LAS on test (5-10 minutes).
# soak: RSS over 200,000 sentences through nlp.pipe, CascadeParser and the parse CLI, one after the other on one
# core (about 10 minutes here).
.PHONY: bench-astar-backoff bench-labels soak

bench-astar-backoff: $(STAMP)
	$(ONE_CORE) $(BIN)/python bench/astar_backoff.py --out bench/results/astar_backoff.json

bench-labels: $(STAMP)
	$(ONE_CORE) $(BIN)/python bench/labels.py --out bench/results/labels.json

soak: $(STAMP)
	$(ONE_CORE) $(BIN)/python bench/soak.py --out bench/results/soak.json --plot bench/results/soak.png

# ---- corpus scale on Dask (issue 16) ----
# bench-scale: parse_corpus on 1 and 2 local workers against the plain single-process loop, EWT train repeated to
# 200,000 sentences (about 8 minutes on a quiet 2-core machine; trains the cascade first if bench/out/scale has
# none). bench-scale-smoke: the same on 5% of the input, to bench/out/.
.PHONY: bench-scale bench-scale-smoke

bench-scale: $(STAMP)
	$(ONE_CORE) $(BIN)/python bench/scale.py --out bench/results/scale.json

bench-scale-smoke: $(STAMP)
	$(ONE_CORE) $(BIN)/python bench/scale.py --fraction 0.05 --out bench/out/scale_smoke.json

# ---- bitext expectations with randomized pruning (issues 7, 17) ----
# bench-bitext: where M' comes from (aligners compared on PUD), then speed, bias against tic-tac-toe and
# full-corpus throughput for both grammars (about an hour on a busy 2-core machine; results under bench/results/).
.PHONY: bench-bitext
bench-bitext: $(STAMP)
	$(BIN)/python bench/bitext_aligners.py --out bench/results/bitext_aligners.json
	$(BIN)/python bench/bitext.py --out bench/results/bitext.json --plots bench/results
