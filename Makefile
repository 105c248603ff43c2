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

# The main job: treebank statistics (the report of `vineparse stats`, then bench/treebank_stats.py for their
# plot and the kernel benchmark), then a vine -> 1 -> 2 -> 3 cascade trained on 2,000 EWT sentences
# (about two minutes) and evaluated on EWT dev with the per-level kept share and gold-arc recall.
demo: $(STAMP)
	$(BIN)/vineparse stats --json bench/out/stats.json
	$(BIN)/python bench/treebank_stats.py --plot bench/out/stats.png --json bench/out/stats_bench.json
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
	# the build folder keeps the last build's modules: a module deleted since must not reach the wheel
	find build -path '*/lib*/vineparse/*' -name '*.py' -delete 2>/dev/null || true
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

# ---- the spaCy component vine_cascade on EWT ----
# ewt-vine: convert EWT to .spacy (one sentence per doc, under the git-ignored corpora/spacy/), train
# tok2vec + tagger + vine_cascade (configs/ewt.cfg: it parses with the levels predict_orders, their thresholds
# set while training), evaluate it on test and run `spacy benchmark speed`.
# package: `spacy package` on that pipeline, an sdist and a wheel of en_vineparse_ewt under dist/.
# ewt-compare: vine_cascade against spaCy's parser, three seeds each, with the shared tok2vec as it is (setting
# cnn), COMPARE_STEPS steps each (`make -j2 ewt-compare` runs two trainings at a time; add bilstm-vine-s0
# bilstm-spacy-s0 to COMPARE_RUNS for the setting with a BiLSTM in the shared tok2vec, cnn-beam-s0 for spaCy's
# beam parser), then bench/spacy_compare.py (JSON + markdown under bench/results/): EWT test and English PUD
# (out of domain), speed of both pipelines on thinc's default ops (blis) and on vineparse.blas.ScipyBlasOps.
# budget-curve: spaCy's parser (seed 0) for 16,000 steps, evaluated every 500: the best dev score each budget
# of 2,000 / 4,000 / 8,000 / 16,000 steps would keep (bench/results/budget_curve.json).
SPACY_DATA := corpora/spacy
EWT_SPACY := $(SPACY_DATA)/en_ewt-ud-train.spacy $(SPACY_DATA)/en_ewt-ud-dev.spacy $(SPACY_DATA)/en_ewt-ud-test.spacy
PUD_SPACY := $(SPACY_DATA)/en_pud-ud-test.spacy
VINE_OUT := bench/out/ewt_vine
COMPARE := bench/out/compare8k
COMPARE_STEPS ?= 8000
COMPARE_RUNS ?= $(foreach pipe,vine spacy,$(foreach seed,0 1 2,cnn-$(pipe)-s$(seed)))
ONE_CORE := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
TRAIN_DATA = --paths.train $(SPACY_DATA)/en_ewt-ud-train.spacy --paths.dev $(SPACY_DATA)/en_ewt-ud-dev.spacy
# the config of a comparison run named setting-pipeline-sSEED
run_pipe = $(word 2,$(subst -, ,$(1)))
run_config = configs/$(if $(filter vine,$(call run_pipe,$(1))),ewt,$(if $(filter beam,$(call run_pipe,$(1))),ewt_spacy_beam,ewt_spacy_parser))$(if $(filter bilstm,$(word 1,$(subst -, ,$(1)))),_bilstm,).cfg
run_seed = $(subst s,,$(word 3,$(subst -, ,$(1))))
# `python -I -m`: the working directory (this unbuilt source tree) stays off sys.path, so the installed
# vineparse is the one imported, as with the console scripts.

.PHONY: ewt-vine ewt-compare ewt-compare-es budget-curve package

$(SPACY_DATA)/en_ewt-ud-%.spacy: | $(STAMP)
	@mkdir -p $(SPACY_DATA)
	$(BIN)/python -I -m spacy convert $(VINEPARSE_CORPORA)/ud-english-ewt/en_ewt-ud-$*.conllu $(SPACY_DATA) --converter conllu -n 1

$(PUD_SPACY): | $(STAMP)
	@mkdir -p $(SPACY_DATA)
	$(BIN)/python -I -m spacy convert $(VINEPARSE_CORPORA)/ud-pud/en_pud-ud-test.conllu $(SPACY_DATA) --converter conllu -n 1

$(VINE_OUT)/model-best: $(STAMP) $(EWT_SPACY) configs/ewt.cfg
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/ewt.cfg --output $(VINE_OUT) $(TRAIN_DATA)

ewt-vine: $(VINE_OUT)/model-best
	$(ONE_CORE) $(BIN)/python -I -m spacy evaluate $(VINE_OUT)/model-best $(SPACY_DATA)/en_ewt-ud-test.spacy \
	    --gold-preproc --output $(VINE_OUT)/test.json
	$(ONE_CORE) $(BIN)/python -I -m spacy benchmark speed $(VINE_OUT)/model-best $(SPACY_DATA)/en_ewt-ud-test.spacy

package: $(VINE_OUT)/model-best
	$(BIN)/python -m pip install --quiet wheel
	@mkdir -p dist
	$(BIN)/python -I -m spacy package $(VINE_OUT)/model-best dist --name vineparse_ewt --version 0.1.0 \
	    --build sdist,wheel --force
	@ls dist/en_vineparse_ewt-0.1.0/dist/

$(COMPARE)/%/model-best: | $(STAMP) $(EWT_SPACY)
	@mkdir -p $(COMPARE)
	$(ONE_CORE) $(BIN)/python -I -m spacy train $(call run_config,$*) --output $(COMPARE)/$* $(TRAIN_DATA) \
	    --system.seed $(call run_seed,$*) --training.max_steps $(COMPARE_STEPS) --training.eval_frequency 1000 \
	    > $(COMPARE)/$*.log 2>&1

ewt-compare: $(foreach run,$(COMPARE_RUNS),$(COMPARE)/$(run)/model-best) $(PUD_SPACY)
	$(ONE_CORE) $(BIN)/python bench/spacy_compare.py --runs $(COMPARE) --steps $(COMPARE_STEPS) \
	    --dev $(SPACY_DATA)/en_ewt-ud-dev.spacy --test $(SPACY_DATA)/en_ewt-ud-test.spacy --ood $(PUD_SPACY) \
	    --out bench/results/spacy_compare.json --markdown bench/results/spacy_compare.md

COMPARE_16K := bench/out/compare16k
$(COMPARE_16K)/%/model-best: | $(STAMP) $(EWT_SPACY)
	@mkdir -p $(COMPARE_16K)
	$(ONE_CORE) $(BIN)/python -I -m spacy train $(call run_config,$*) --output $(COMPARE_16K)/$* $(TRAIN_DATA) \
	    --system.seed $(call run_seed,$*) --training.max_steps 16000 --training.eval_frequency 500 \
	    > $(COMPARE_16K)/$*.log 2>&1

# early stopping as `spacy init config` writes it (evaluate every 200 steps, stop after 1,600 without a better dev
# score, at most 20,000 steps): the budget a user who keeps spaCy's defaults trains to; `make -j2 ewt-compare-es`
# trains three seeds of each and spaCy's beam parser once, and compares their accuracy (the pipelines' speed is
# ewt-speed's). A run trained later is added to the results with `bench/spacy_compare.py --merge`.
# ewt-compare-es-bilstm: the equal-encoder setting (a BiLSTM in the shared tok2vec, configs/*_bilstm.cfg), one
# seed of each parser trained the same way, in its own folder and result (spacy_compare_es_bilstm.json, with the
# pipelines' speed: each component's us per word beside the pipeline's words/s).
COMPARE_ES := bench/out/compare_es
COMPARE_ES_BILSTM := bench/out/compare_es_bilstm
COMPARE_ES_RUNS ?= $(foreach pipe,vine spacy,$(foreach seed,0 1 2,cnn-$(pipe)-s$(seed))) cnn-beam-s0
EARLY_STOPPING := --training.max_steps 20000 --training.patience 1600 --training.eval_frequency 200
# the training of the run named by the stem (SETTING-PIPELINE-sSEED, its config by run_config) under the folder $(1)
define es_run
$(1)/%/model-best: | $$(STAMP) $$(EWT_SPACY)
	@mkdir -p $(1)
	$$(ONE_CORE) $$(BIN)/python -I -m spacy train $$(call run_config,$$*) --output $(1)/$$* $$(TRAIN_DATA) \
	    --system.seed $$(call run_seed,$$*) $$(EARLY_STOPPING) > $(1)/$$*.log 2>&1
endef
$(foreach folder,$(COMPARE_ES) $(COMPARE_ES_BILSTM),$(eval $(call es_run,$(folder))))

ewt-compare-es: $(foreach run,$(COMPARE_ES_RUNS),$(COMPARE_ES)/$(run)/model-best) $(PUD_SPACY)
	$(ONE_CORE) $(BIN)/python bench/spacy_compare.py --runs $(COMPARE_ES) --steps early-stopping --no-speed \
	    --dev $(SPACY_DATA)/en_ewt-ud-dev.spacy --test $(SPACY_DATA)/en_ewt-ud-test.spacy --ood $(PUD_SPACY) \
	    --out bench/results/spacy_compare_es.json --markdown bench/results/spacy_compare_es.md

.PHONY: ewt-compare-es-bilstm
ewt-compare-es-bilstm: $(COMPARE_ES_BILSTM)/bilstm-vine-s0/model-best $(COMPARE_ES_BILSTM)/bilstm-spacy-s0/model-best \
    $(PUD_SPACY)
	$(ONE_CORE) $(BIN)/python bench/spacy_compare.py --runs $(COMPARE_ES_BILSTM) --steps early-stopping \
	    --dev $(SPACY_DATA)/en_ewt-ud-dev.spacy --test $(SPACY_DATA)/en_ewt-ud-test.spacy --ood $(PUD_SPACY) \
	    --out bench/results/spacy_compare_es_bilstm.json --markdown bench/results/spacy_compare_es_bilstm.md

# bench/spacy_compare.py on the vine_cascade runs under $(1), a variant of the config, beside the runs of spaCy's
# parsers in spacy_compare_es.json; results bench/results/$(2).json and .md, the variant described by $(3)
compare_es_variant = $(ONE_CORE) $(BIN)/python bench/spacy_compare.py --runs $(1) --steps early-stopping \
    --no-speed --merge --merge-from bench/results/spacy_compare_es.json --merge-pipes spacy,beam --note "$(strip $(3))" \
    --dev $(SPACY_DATA)/en_ewt-ud-dev.spacy --test $(SPACY_DATA)/en_ewt-ud-test.spacy --ood $(PUD_SPACY) \
    --out bench/results/$(2).json --markdown bench/results/$(2).md

# vine_cascade trained as ewt-compare-es trains it, with another dropout on its encoder output than the config's
# 0.2, and without the span term, as the experiment ran before it was adopted: bench/out/compare_es_dropout/RATE/
# cnn-vine-sSEED (the experiment "Dropout under early stopping").
# ewt-compare-es-dropout0: dropout 0.0 (the config's setting before; seeds ES_DROPOUT0_SEEDS) beside the runs of
# spaCy's parsers in spacy_compare_es.json. dropout-es-dev: the dev curves of seeds 3 and 4 at 0.0, 0.2 and 0.3.
COMPARE_ES_DROPOUT := bench/out/compare_es_dropout
COMPARE_ES_NOSPAN := bench/out/compare_es_nospan
ES_DROPOUT0_SEEDS ?= 0 1 2 3 4
# the recipe of a variant of configs/ewt.cfg trained as ewt-compare-es trains it, under $(1), with the overrides
# $(2): the stem is cnn-vine-sSEED, or RATE/cnn-vine-sSEED for the dropout runs ($(dropout_rate) is RATE)
es_variant = mkdir -p $(dir $(1)/$*) && $(ONE_CORE) $(BIN)/python -I -m spacy train configs/ewt.cfg \
    --output $(1)/$* $(TRAIN_DATA) --system.seed $(call run_seed,$(notdir $*)) $(EARLY_STOPPING) $(2) > $(1)/$*.log 2>&1
dropout_rate = $(patsubst %/,%,$(dir $*))

# configs/ewt.cfg as it was before its part kinds shared one projection (shared_part_roles false, label_width 128):
# the variants below, up to the shared projection, ran against it and keep its settings. ewt-compare-es-perkind:
# its runs (seeds ES_PERKIND_SEEDS) beside the runs of spaCy's parsers in spacy_compare_es.json
COMPARE_ES_PERKIND := bench/out/compare_es_perkind
PERKIND := --components.vine_cascade.model.shared_part_roles false
LABELS128 := --components.vine_cascade.model.label_width 128
ES_PERKIND_SEEDS ?= 0 1 2 3 4
$(COMPARE_ES_PERKIND)/%/model-best: | $(STAMP) $(EWT_SPACY)
	$(call es_variant,$(COMPARE_ES_PERKIND),$(PERKIND) $(LABELS128))

.PHONY: ewt-compare-es-perkind
ewt-compare-es-perkind: $(PUD_SPACY) \
    $(foreach seed,$(ES_PERKIND_SEEDS),$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best)
	$(call compare_es_variant,$(COMPARE_ES_PERKIND),spacy_compare_es_perkind,\
	    vine_cascade with a projection per part kind and label_width 128 (configs/ewt.cfg before shared_part_roles))
$(COMPARE_ES_DROPOUT)/%/model-best: | $(STAMP) $(EWT_SPACY)
	$(call es_variant,$(COMPARE_ES_DROPOUT),--components.vine_cascade.dropout $(dropout_rate) \
	    --components.vine_cascade.model.span_width 0 $(PERKIND) $(LABELS128))

.PHONY: ewt-compare-es-dropout0 dropout-es-dev
ewt-compare-es-dropout0: $(PUD_SPACY) \
    $(foreach seed,$(ES_DROPOUT0_SEEDS),$(COMPARE_ES_DROPOUT)/0.0/cnn-vine-s$(seed)/model-best)
	$(call compare_es_variant,$(COMPARE_ES_DROPOUT)/0.0,spacy_compare_es_dropout0,\
	    vine_cascade trained with dropout 0.0 on its encoder output (configs/ewt.cfg has 0.2))

# the early-stopping run of vine_cascade with dropout $(1), seed $(2) (the config's 0.2: ewt-compare-es-nospan's run)
dropout_run = $(if $(filter 0.2,$(1)),$(COMPARE_ES_NOSPAN),$(COMPARE_ES_DROPOUT)/$(1))/cnn-vine-s$(2)
dropout-es-dev: $(foreach seed,3 4,$(foreach rate,0.0 0.2 0.3,$(call dropout_run,$(rate),$(seed))/model-best))
	$(BIN)/python bench/budget_curve.py --budgets 4000,8000,12000 --out bench/results/dropout_es_dev.json \
	    $(foreach seed,3 4,$(foreach rate,0.0 0.2 0.3,--run "dropout $(rate), seed $(seed)=$(call dropout_run,$(rate),$(seed)).log"))

# the same with the span term (configs/ewt.cfg as it is but for the dropout): bench/out/compare_es_dropout_span/
# RATE/cnn-vine-sSEED; dropout-span-es-dev: the dev curves of seeds 0 and 3 at 0.3 beside the config's 0.2
COMPARE_ES_DROPOUT_SPAN := bench/out/compare_es_dropout_span
$(COMPARE_ES_DROPOUT_SPAN)/%/model-best: | $(STAMP) $(EWT_SPACY)
	$(call es_variant,$(COMPARE_ES_DROPOUT_SPAN),--components.vine_cascade.dropout $(dropout_rate) $(PERKIND) \
	    $(LABELS128))

.PHONY: dropout-span-es-dev
dropout-span-es-dev: $(foreach seed,0 3,$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best \
    $(COMPARE_ES_DROPOUT_SPAN)/0.3/cnn-vine-s$(seed)/model-best)
	$(BIN)/python bench/budget_curve.py --budgets 2000,4000,6000,8000,12000 --out bench/results/dropout_span_es_dev.json \
	    $(foreach seed,0 3,--run "dropout 0.2, seed $(seed)=$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed).log" \
	        --run "dropout 0.3, seed $(seed)=$(COMPARE_ES_DROPOUT_SPAN)/0.3/cnn-vine-s$(seed).log")

# ewt-compare-es-nospan: vine_cascade trained as ewt-compare-es trains it, without the arc scorer's span term
# (span_width 0, the config's setting before; seeds ES_NOSPAN_SEEDS), beside the runs of spaCy's parsers in
# spacy_compare_es.json; span-es-dev: the dev curves of seeds 3 and 4 with and without it; span-speed: the
# component's µs per word and the pipelines' words/s against spaCy's parser's pipeline, with and without the
# span term (short runs of seed 0), and the per-kind config's run of seed 0 last. label-span-es-dev: the dev
# curves up to 4,000 steps of seeds 0 and 1 without and with the labeller's span term (label_span; those runs
# trained for 4,000 steps).
COMPARE_ES_LABEL_SPAN := bench/out/compare_es_label_span
ES_NOSPAN_SEEDS ?= 0 1 2 3 4
$(COMPARE_ES_NOSPAN)/%/model-best: | $(STAMP) $(EWT_SPACY)
	$(call es_variant,$(COMPARE_ES_NOSPAN),--components.vine_cascade.model.span_width 0 $(PERKIND) $(LABELS128))

$(COMPARE_ES_LABEL_SPAN)/%/model-best: | $(STAMP) $(EWT_SPACY)
	@mkdir -p $(COMPARE_ES_LABEL_SPAN)
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/ewt.cfg --output $(COMPARE_ES_LABEL_SPAN)/$* $(TRAIN_DATA) \
	    --system.seed $(call run_seed,$*) --training.max_steps 4000 --training.eval_frequency 200 \
	    --components.vine_cascade.model.label_span true $(PERKIND) $(LABELS128) > $(COMPARE_ES_LABEL_SPAN)/$*.log 2>&1

# bench/component_speed.py --whole on EWT test's texts, one core, median of 7 interleaved rounds: the pipelines'
# words/s and each parser component's µs per word (the --models and --note of each target follow it)
whole_speed = $(ONE_CORE) $(BIN)/python bench/component_speed.py --docs $(SPACY_DATA)/en_ewt-ud-test.spacy --repeats 7 --whole

# span-speed's short runs, seed 0: configs/ewt.cfg before shared_part_roles with and without the span term and
# spaCy's parser for 2,000 steps, spaCy's parser for 600 too
SPEED := bench/out/speed
speed_run = mkdir -p $(SPEED) && $(ONE_CORE) $(BIN)/python -I -m spacy train $(1) --output $(SPEED)/$(2) \
    $(TRAIN_DATA) --system.seed 0 --training.max_steps $(3) --training.eval_frequency $(3) $(4) > $(SPEED)/$(2).log 2>&1
$(SPEED)/cnn-spacy-600-s0/model-best: | $(STAMP) $(EWT_SPACY)
	$(call speed_run,configs/ewt_spacy_parser.cfg,cnn-spacy-600-s0,600)
$(SPEED)/cnn-spacy-s0/model-best: | $(STAMP) $(EWT_SPACY)
	$(call speed_run,configs/ewt_spacy_parser.cfg,cnn-spacy-s0,2000)
$(SPEED)/cnn-vine-s0/model-best: | $(STAMP) $(EWT_SPACY)
	$(call speed_run,configs/ewt.cfg,cnn-vine-s0,2000,$(PERKIND) $(LABELS128))
$(SPEED)/cnn-vine-nospan-s0/model-best: | $(STAMP) $(EWT_SPACY)
	$(call speed_run,configs/ewt.cfg,cnn-vine-nospan-s0,2000,--components.vine_cascade.model.span_width 0 \
	    $(PERKIND) $(LABELS128))

.PHONY: ewt-compare-es-nospan span-es-dev span-speed label-span-es-dev
ewt-compare-es-nospan: $(PUD_SPACY) $(foreach seed,$(ES_NOSPAN_SEEDS),$(COMPARE_ES_NOSPAN)/cnn-vine-s$(seed)/model-best)
	$(call compare_es_variant,$(COMPARE_ES_NOSPAN),spacy_compare_es_nospan,\
	    vine_cascade trained without the arc scorer's span term (configs/ewt.cfg has span_width 32))

span-es-dev: $(foreach seed,3 4,$(COMPARE_ES_NOSPAN)/cnn-vine-s$(seed)/model-best \
    $(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best)
	$(BIN)/python bench/budget_curve.py --budgets 2000,4000,8000,12000 --out bench/results/span_es_dev.json \
	    $(foreach seed,3 4,--run "without the span term, seed $(seed)=$(COMPARE_ES_NOSPAN)/cnn-vine-s$(seed).log" \
	        --run "span term of width 32, seed $(seed)=$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed).log")

span-speed: $(foreach run,cnn-spacy-s0 cnn-spacy-600-s0 cnn-vine-nospan-s0 cnn-vine-s0,$(SPEED)/$(run)/model-best) \
    $(COMPARE_ES_PERKIND)/cnn-vine-s0/model-best
	$(whole_speed) \
	    --models "spaCy's parser, 2,000 steps=$(SPEED)/cnn-spacy-s0/model-best" \
	    "spaCy's parser, 600 steps=$(SPEED)/cnn-spacy-600-s0/model-best" \
	    "vine_cascade without the span term, 2,000 steps=$(SPEED)/cnn-vine-nospan-s0/model-best" \
	    "vine_cascade, 2,000 steps=$(SPEED)/cnn-vine-s0/model-best" \
	    "vine_cascade, early stopping=$(COMPARE_ES_PERKIND)/cnn-vine-s0/model-best" \
	    --note "seed 0 each; configs/ewt_spacy_parser.cfg and configs/ewt.cfg trained for the steps named, or until \
	the dev score stopped rising (the comparison's run)" --out bench/results/span_speed.json

label-span-es-dev: $(foreach seed,0 1,$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best \
    $(COMPARE_ES_LABEL_SPAN)/cnn-vine-s$(seed)/model-best)
	$(BIN)/python bench/budget_curve.py --budgets 2000,3000,4000 --out bench/results/label_span_es_dev.json \
	    $(foreach seed,0 1,--run "span term of width 32, seed $(seed)=$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed).log" \
	        --run "and the labeller's, seed $(seed)=$(COMPARE_ES_LABEL_SPAN)/cnn-vine-s$(seed).log")

# the narrow probe: configs/ewt.cfg trained as ewt-compare-es trains it, with label_width 64 and part_width 32
# (a projection of 864 columns per word instead of 1,442): what the narrower scorers cost in accuracy once trained
# until the dev score stops rising (narrow-es-dev: the dev curves of seed 3 beside the config's own run)
COMPARE_ES_NARROW := bench/out/compare_es_narrow
NARROW := --components.vine_cascade.model.label_width 64 --components.vine_cascade.model.part_width 32
$(COMPARE_ES_NARROW)/%/model-best: | $(STAMP) $(EWT_SPACY)
	$(call es_variant,$(COMPARE_ES_NARROW),$(NARROW) $(PERKIND))

# ewt-compare-es-narrow: the narrow runs (seeds ES_NARROW_SEEDS) beside the runs of spaCy's parsers in
# spacy_compare_es.json; narrow-es-dev: their dev curves beside the config's runs of the same seeds;
# narrow-speed: the component's µs per word and the pipelines' words/s, spaCy's parser's pipeline first
ES_NARROW_SEEDS ?= 3
.PHONY: ewt-compare-es-narrow narrow-es-dev narrow-speed
ewt-compare-es-narrow: $(PUD_SPACY) $(foreach seed,$(ES_NARROW_SEEDS),$(COMPARE_ES_NARROW)/cnn-vine-s$(seed)/model-best)
	$(call compare_es_variant,$(COMPARE_ES_NARROW),spacy_compare_es_narrow,\
	    vine_cascade with label_width 64 and part_width 32 (configs/ewt.cfg has 128 and 64))

narrow-es-dev: $(foreach seed,$(ES_NARROW_SEEDS),$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best \
    $(COMPARE_ES_NARROW)/cnn-vine-s$(seed)/model-best)
	$(BIN)/python bench/budget_curve.py --budgets 2000,4000,8000,12000 --out bench/results/narrow_es_dev.json \
	    $(foreach seed,$(ES_NARROW_SEEDS),--run "configs/ewt.cfg, seed $(seed)=$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed).log" \
	        --run "label_width 64, part_width 32, seed $(seed)=$(COMPARE_ES_NARROW)/cnn-vine-s$(seed).log")

narrow-speed: $(SPEED)/cnn-spacy-s0/model-best $(foreach seed,$(ES_NARROW_SEEDS),$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best \
    $(COMPARE_ES_NARROW)/cnn-vine-s$(seed)/model-best)
	$(whole_speed) \
	    --models "spaCy's parser, 2,000 steps=$(SPEED)/cnn-spacy-s0/model-best" \
	    $(foreach seed,$(ES_NARROW_SEEDS),"vine_cascade, seed $(seed)=$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best" \
	        "vine_cascade, label_width 64, part_width 32, seed $(seed)=$(COMPARE_ES_NARROW)/cnn-vine-s$(seed)/model-best") \
	    --note "vine_cascade trained until the dev score stopped rising (configs/ewt.cfg, and with label_width 64 and \
	part_width 32); spaCy's parser for 2,000 steps, which costs what it costs at any step" \
	    --out bench/results/narrow_speed.json

# each half of the narrow probe alone (part_width 32; label_width 64), to tell which of the two costs accuracy
COMPARE_ES_PARTS32 := bench/out/compare_es_parts32
COMPARE_ES_LABELS64 := bench/out/compare_es_labels64
$(COMPARE_ES_PARTS32)/%/model-best: | $(STAMP) $(EWT_SPACY)
	$(call es_variant,$(COMPARE_ES_PARTS32),--components.vine_cascade.model.part_width 32 $(PERKIND) $(LABELS128))
$(COMPARE_ES_LABELS64)/%/model-best: | $(STAMP) $(EWT_SPACY)
	$(call es_variant,$(COMPARE_ES_LABELS64),--components.vine_cascade.model.label_width 64 $(PERKIND))

# ewt-compare-es-widths: those runs (seeds ES_WIDTHS_SEEDS) beside the runs of spaCy's parsers in
# spacy_compare_es.json; widths-es-dev: their dev curves beside the config's runs of the same seeds;
# widths-speed: the component's µs per word and the pipelines' words/s, spaCy's parser's pipeline first
ES_WIDTHS_SEEDS ?= 3
widths_runs = $(foreach seed,$(ES_WIDTHS_SEEDS),$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best \
    $(COMPARE_ES_PARTS32)/cnn-vine-s$(seed)/model-best $(COMPARE_ES_LABELS64)/cnn-vine-s$(seed)/model-best)
.PHONY: ewt-compare-es-widths widths-es-dev widths-speed
ewt-compare-es-widths: $(PUD_SPACY) $(widths_runs)
	$(call compare_es_variant,$(COMPARE_ES_PARTS32),spacy_compare_es_parts32,\
	    vine_cascade with part_width 32 (configs/ewt.cfg has 64))
	$(call compare_es_variant,$(COMPARE_ES_LABELS64),spacy_compare_es_labels64,\
	    vine_cascade with label_width 64 (configs/ewt.cfg has 128))

widths-es-dev: $(widths_runs)
	$(BIN)/python bench/budget_curve.py --budgets 2000,4000,8000,12000 --out bench/results/widths_es_dev.json \
	    $(foreach seed,$(ES_WIDTHS_SEEDS),--run "configs/ewt.cfg, seed $(seed)=$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed).log" \
	        --run "part_width 32, seed $(seed)=$(COMPARE_ES_PARTS32)/cnn-vine-s$(seed).log" \
	        --run "label_width 64, seed $(seed)=$(COMPARE_ES_LABELS64)/cnn-vine-s$(seed).log")

widths-speed: $(SPEED)/cnn-spacy-s0/model-best $(widths_runs) \
    $(foreach seed,$(ES_WIDTHS_SEEDS),$(COMPARE_ES_NARROW)/cnn-vine-s$(seed)/model-best)
	$(whole_speed) \
	    --models "spaCy's parser, 2,000 steps=$(SPEED)/cnn-spacy-s0/model-best" \
	    $(foreach seed,$(ES_WIDTHS_SEEDS),"vine_cascade, seed $(seed)=$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best" \
	        "vine_cascade, part_width 32, seed $(seed)=$(COMPARE_ES_PARTS32)/cnn-vine-s$(seed)/model-best" \
	        "vine_cascade, label_width 64, seed $(seed)=$(COMPARE_ES_LABELS64)/cnn-vine-s$(seed)/model-best" \
	        "vine_cascade, label_width 64, part_width 32, seed $(seed)=$(COMPARE_ES_NARROW)/cnn-vine-s$(seed)/model-best") \
	    --note "vine_cascade trained until the dev score stopped rising (configs/ewt.cfg, and with part_width 32, \
	label_width 64 or both); spaCy's parser for 2,000 steps, which costs what it costs at any step" \
	    --out bench/results/widths_speed.json

# the other way: part scorers twice as wide (part_width 128), seeds ES_PARTS128_SEEDS, beside the runs of spaCy's
# parsers in spacy_compare_es.json (whose vine_cascade runs of the same seeds the seed table pairs them with);
# parts128-es-dev: the dev curves of seeds ES_PARTS128_DEV_SEEDS beside the config's runs
COMPARE_ES_PARTS128 := bench/out/compare_es_parts128
ES_PARTS128_SEEDS ?= 0 1 2 3 4
ES_PARTS128_DEV_SEEDS ?= 0 3
$(COMPARE_ES_PARTS128)/%/model-best: | $(STAMP) $(EWT_SPACY)
	$(call es_variant,$(COMPARE_ES_PARTS128),--components.vine_cascade.model.part_width 128 $(PERKIND) \
	    $(LABELS128))
.PHONY: ewt-compare-es-parts128 parts128-es-dev
ewt-compare-es-parts128: $(PUD_SPACY) $(foreach seed,$(ES_PARTS128_SEEDS),$(COMPARE_ES_PARTS128)/cnn-vine-s$(seed)/model-best)
	$(call compare_es_variant,$(COMPARE_ES_PARTS128),spacy_compare_es_parts128,\
	    vine_cascade with part_width 128 (configs/ewt.cfg has 64))
parts128-es-dev: $(foreach seed,$(ES_PARTS128_DEV_SEEDS),$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best \
    $(COMPARE_ES_PARTS128)/cnn-vine-s$(seed)/model-best)
	$(BIN)/python bench/budget_curve.py --budgets 2000,4000,8000,12000 --out bench/results/parts128_es_dev.json \
	    $(foreach seed,$(ES_PARTS128_DEV_SEEDS),--run "configs/ewt.cfg, seed $(seed)=$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed).log" \
	        --run "part_width 128, seed $(seed)=$(COMPARE_ES_PARTS128)/cnn-vine-s$(seed).log")

# the part kinds reading one projection of each word per role (shared_part_roles: 4 x part_width columns instead
# of 10 x), the setting of configs/ewt.cfg since, alone (with label_width 128; seeds ES_SHARED_SEEDS) beside the
# runs of spaCy's parsers in spacy_compare_es.json; with label_width 64 it is the config, whose runs are
# ewt-compare-es's. shared-es-dev: the dev curves of seeds ES_SHARED_SEEDS, the config before and after beside
# it; shared-speed: the component's µs per word and the pipelines' words/s against spaCy's parser's, the config
# before and after and label_width 64 alone (ewt-compare-es-widths) beside them
COMPARE_ES_SHARED := bench/out/compare_es_shared
ES_SHARED_SEEDS ?= 3
$(COMPARE_ES_SHARED)/%/model-best: | $(STAMP) $(EWT_SPACY)
	$(call es_variant,$(COMPARE_ES_SHARED),--components.vine_cascade.model.shared_part_roles true $(LABELS128))
shared_runs = $(foreach seed,$(ES_SHARED_SEEDS),$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best \
    $(COMPARE_ES_SHARED)/cnn-vine-s$(seed)/model-best $(COMPARE_ES)/cnn-vine-s$(seed)/model-best)
.PHONY: ewt-compare-es-shared shared-es-dev shared-speed
ewt-compare-es-shared: $(PUD_SPACY) $(shared_runs)
	$(call compare_es_variant,$(COMPARE_ES_SHARED),spacy_compare_es_shared,\
	    vine_cascade with one part projection shared by the three part kinds and label_width 128)
shared-es-dev: $(shared_runs)
	$(BIN)/python bench/budget_curve.py --budgets 2000,4000,8000,12000 --out bench/results/shared_es_dev.json \
	    $(foreach seed,$(ES_SHARED_SEEDS),--run "configs/ewt.cfg, seed $(seed)=$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed).log" \
	        --run "shared part roles, seed $(seed)=$(COMPARE_ES_SHARED)/cnn-vine-s$(seed).log" \
	        --run "shared part roles, label_width 64, seed $(seed)=$(COMPARE_ES)/cnn-vine-s$(seed).log")
shared-speed: $(SPEED)/cnn-spacy-s0/model-best $(shared_runs) \
    $(foreach seed,$(ES_SHARED_SEEDS),$(COMPARE_ES_LABELS64)/cnn-vine-s$(seed)/model-best)
	$(whole_speed) \
	    --models "spaCy's parser, 2,000 steps=$(SPEED)/cnn-spacy-s0/model-best" \
	    $(foreach seed,$(ES_SHARED_SEEDS),"vine_cascade, seed $(seed)=$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best" \
	        "vine_cascade, label_width 64, seed $(seed)=$(COMPARE_ES_LABELS64)/cnn-vine-s$(seed)/model-best" \
	        "vine_cascade, shared part roles, seed $(seed)=$(COMPARE_ES_SHARED)/cnn-vine-s$(seed)/model-best" \
	        "vine_cascade, shared part roles, label_width 64, seed $(seed)=$(COMPARE_ES)/cnn-vine-s$(seed)/model-best") \
	    --note "vine_cascade trained until the dev score stopped rising (configs/ewt.cfg before shared_part_roles, \
	with label_width 64, with shared_part_roles, with both: configs/ewt.cfg since); spaCy's parser for 2,000 steps, \
	which costs what it costs at any step" \
	    --out bench/results/shared_speed.json

# Settings that change training only (the trained model parses at the config's cost), each beside the runs of
# spaCy's parsers in spacy_compare_es.json (whose vine_cascade runs of the same seeds the seed tables pair them
# with). $(call training_variant,NAME,SEEDS_VARIABLE,SEEDS,OVERRIDES,NOTE): bench/out/compare_es_NAME/
# cnn-vine-sSEED trained as ewt-compare-es trains the config, with OVERRIDES; ewt-compare-es-NAME compares the
# seeds SEEDS_VARIABLE (default SEEDS) into bench/results/spacy_compare_es_NAME.json, the variant described by NOTE.
define training_variant
$(2) ?= $(3)
bench/out/compare_es_$(1)/%/model-best: | $$(STAMP) $$(EWT_SPACY)
	$$(call es_variant,bench/out/compare_es_$(1),$(4))
.PHONY: ewt-compare-es-$(1)
ewt-compare-es-$(1): $$(PUD_SPACY) $$(foreach seed,$$($(2)),bench/out/compare_es_$(1)/cnn-vine-s$$(seed)/model-best)
	$$(call compare_es_variant,bench/out/compare_es_$(1),spacy_compare_es_$(1),$(5))
endef
# the component's own parameters at twice the optimizer's learning rate (0.002, Dozat & Manning's rate; the shared
# tok2vec and the tagger keep 0.001)
$(eval $(call training_variant,lr2,ES_LR2_SEEDS,1 2,--components.vine_cascade.learn_rate_scale 2.0,\
    vine_cascade with learn_rate_scale 2.0 (configs/ewt.cfg has 1.0)))
# the structured losses (the cascade's and the last level's hinge) weighted 0.3 against the arc CRF instead of 0.1
$(eval $(call training_variant,sw03,ES_SW03_SEEDS,1 3,--components.vine_cascade.structured_weight 0.3,\
    vine_cascade with structured_weight 0.3 (configs/ewt.cfg has 0.1)))
# Adam's beta2 0.9 for the component's own parameters (Dozat & Manning's; the tok2vec and the tagger keep 0.999)
$(eval $(call training_variant,b2,ES_B2_SEEDS,1 2,--components.vine_cascade.adam_beta2 0.9,\
    vine_cascade with adam_beta2 0.9 (configs/ewt.cfg: the optimizer's 0.999)))
# the label cross-entropy weighted 1.0 against the arc loss instead of 2.0
$(eval $(call training_variant,lw1,ES_LW1_SEEDS,1 2,--components.vine_cascade.label_weight 1.0,\
    vine_cascade with label_weight 1.0 (configs/ewt.cfg has 2.0)))
# an embedding of each token's tag, from the tagger's predicted tags (annotating in training), added to the tok2vec's
# vectors the component reads (a variable: the overrides hold commas)
TAG_EMBEDDING := --components.vine_cascade.model.tag_rows 128 --training.annotating_components '["tok2vec","tagger"]'
$(eval $(call training_variant,tags,ES_TAGS_SEEDS,1 2,$$(TAG_EMBEDDING),\
    vine_cascade with tag_rows 128: the tagger's tags embedded and added to the tok2vec's vectors (configs/ewt.cfg: 0)))
# dropout 0.2 on the scorers' hidden layers while training (the arc projection, the part projection, the labeller's
# hidden layer; configs/ewt.cfg: none), the scorer dropout of graph parsers (Dozat & Manning's MLP dropout)
$(eval $(call training_variant,sdrop,ES_SDROP_SEEDS,1 2,--components.vine_cascade.scorer_dropout 0.2,\
    vine_cascade with scorer_dropout 0.2 (configs/ewt.cfg: 0.0)))
# the arc scorer's span term twice as wide (span_width 64; configs/ewt.cfg has 32): an architecture change, the
# one context feature that raised dev on every seed, made wider (a projection of 32 more columns and O(n^2) more
# per sentence)
$(eval $(call training_variant,span64,ES_SPAN64_SEEDS,1 2,--components.vine_cascade.model.span_width 64,\
    vine_cascade with span_width 64 (configs/ewt.cfg has 32)))
# the span term's mean weighted, each word between by a weight learned from its projection (span_weighted;
# configs/ewt.cfg: the plain mean): O(k) more per word
$(eval $(call training_variant,spanw,ES_SPANW_SEEDS,0 1 2 3 4,--components.vine_cascade.model.span_weighted true,\
    vine_cascade with span_weighted true: the span term's words weighted (configs/ewt.cfg: the plain mean)))
# what the weights cost: spaCy's parser's pipeline, then vine_cascade with configs/ewt.cfg and with span_weighted,
# each trained for 2,000 steps of seed 0 so that the weights are the only difference, and the early-stopping run
# of seed 1 with span_weighted (one core, one run)
$(SPEED)/cnn-vine-config-s0/model-best: | $(STAMP) $(EWT_SPACY)
	$(call speed_run,configs/ewt.cfg,cnn-vine-config-s0,2000)
$(SPEED)/cnn-vine-spanw-s0/model-best: | $(STAMP) $(EWT_SPACY)
	$(call speed_run,configs/ewt.cfg,cnn-vine-spanw-s0,2000,--components.vine_cascade.model.span_weighted true)
.PHONY: spanw-speed
spanw-speed: $(foreach run,cnn-spacy-s0 cnn-vine-config-s0 cnn-vine-spanw-s0,$(SPEED)/$(run)/model-best) \
    bench/out/compare_es_spanw/cnn-vine-s1/model-best
	$(whole_speed) \
	    --models "spaCy's parser, 2,000 steps=$(SPEED)/cnn-spacy-s0/model-best" \
	    "vine_cascade, 2,000 steps=$(SPEED)/cnn-vine-config-s0/model-best" \
	    "vine_cascade, span_weighted, 2,000 steps=$(SPEED)/cnn-vine-spanw-s0/model-best" \
	    "vine_cascade, span_weighted, early stopping, seed 1=bench/out/compare_es_spanw/cnn-vine-s1/model-best" \
	    --note "configs/ewt.cfg with and without span_weighted and configs/ewt_spacy_parser.cfg, each trained for \
	2,000 steps of seed 0, and configs/ewt.cfg with span_weighted trained until the dev score stopped rising \
	(seed 1)" --out bench/results/spanw_speed.json
# what the tag embedding costs: spaCy's parser's pipeline, then vine_cascade with the config's architecture (its
# label_weight 1.0 run of seed 1, a setting of training only) and with tag_rows 128, seed 1 (one core, one run)
.PHONY: tags-speed
tags-speed: $(SPEED)/cnn-spacy-s0/model-best bench/out/compare_es_lw1/cnn-vine-s1/model-best \
    bench/out/compare_es_tags/cnn-vine-s1/model-best
	$(whole_speed) \
	    --models "spaCy's parser, 2,000 steps=$(SPEED)/cnn-spacy-s0/model-best" \
	    "vine_cascade, configs/ewt.cfg's architecture, seed 1=bench/out/compare_es_lw1/cnn-vine-s1/model-best" \
	    "vine_cascade, tag_rows 128, seed 1=bench/out/compare_es_tags/cnn-vine-s1/model-best" \
	    --note "vine_cascade trained until the dev score stopped rising: the architecture of configs/ewt.cfg (its \
	label_weight 1.0 run, a setting of training only) and with tag_rows 128; spaCy's parser for 2,000 steps, which \
	costs what it costs at any step" --out bench/results/tags_speed.json

# the README's words/s: spaCy's parser's pipeline, then the comparison's vine_cascade run of seed 0, the config
# before shared_part_roles between them (each pipeline from text, one core)
.PHONY: ewt-speed
ewt-speed: $(SPEED)/cnn-spacy-s0/model-best $(COMPARE_ES_PERKIND)/cnn-vine-s0/model-best $(COMPARE_ES)/cnn-vine-s0/model-best
	$(whole_speed) \
	    --models "spaCy's parser, 2,000 steps=$(SPEED)/cnn-spacy-s0/model-best" \
	    "vine_cascade before shared_part_roles, early stopping=$(COMPARE_ES_PERKIND)/cnn-vine-s0/model-best" \
	    "vine_cascade, early stopping=$(COMPARE_ES)/cnn-vine-s0/model-best" \
	    --note "seed 0 each; vine_cascade trained until the dev score stopped rising (the comparison's runs of \
	configs/ewt.cfg, before and since shared_part_roles), spaCy's parser for 2,000 steps, which costs what it costs \
	at any step" --out bench/results/ewt_speed.json

# where the component's time goes in the pipeline from text, stage by stage: the seed-0 run of configs/ewt.cfg
# before shared_part_roles
.PHONY: component-profile
component-profile: $(COMPARE_ES_PERKIND)/cnn-vine-s0/model-best
	$(ONE_CORE) $(BIN)/python bench/component_profile.py --docs $(SPACY_DATA)/en_ewt-ud-test.spacy --model $< \
	    --out bench/results/component_profile.json

# the two decoders (map, mbr) on dev, with the runs of configs/ewt.cfg before shared_part_roles
# (bench/results/decoders_es_dev.json)
ES_DECODER_SEEDS ?= 0 1 2 3
.PHONY: decoders-es-dev
decoders-es-dev: $(foreach seed,$(ES_DECODER_SEEDS),$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best)
	$(ONE_CORE) $(BIN)/python bench/decoders.py --docs $(SPACY_DATA)/en_ewt-ud-dev.spacy --models $^ \
	    --out bench/results/decoders_es_dev.json

# every trained level (vine -> 1 -> 2 -> 3) against the config's first -> third order, on dev, with the runs of
# configs/ewt.cfg before shared_part_roles (bench/results/orders_es_dev.json)
ES_ORDERS_SEEDS ?= 0 1 2 3
.PHONY: orders-es-dev
orders-es-dev: $(foreach seed,$(ES_ORDERS_SEEDS),$(COMPARE_ES_PERKIND)/cnn-vine-s$(seed)/model-best)
	$(ONE_CORE) $(BIN)/python bench/orders_dev.py --docs $(SPACY_DATA)/en_ewt-ud-dev.spacy --base-orders 0,1,2,3 \
	    --recall 0.995,0.97,0.95 --orders 1,3 --cut-recall 0.95 --models $^ --out bench/results/orders_es_dev.json

budget-curve: $(COMPARE_16K)/cnn-spacy-s0/model-best
	$(BIN)/python bench/budget_curve.py --run "spaCy's parser, seed 0=$(COMPARE_16K)/cnn-spacy-s0.log" \
	    --out bench/results/budget_curve.json

# ---- confidences and whole documents ----
# calibration: expected calibration error, reliability diagram and coverage of vine_cascade's head
# probabilities on EWT test and PUD (the comparison's seed-0 pipeline); bench/calibration.py --beam PATH adds
# spaCy's beam parser's scores.
# documents: vine_cascade, spaCy's parser and spaCy's senter + parser trained on EWT's documents (DOC_STEPS steps),
# vine_cascade's sentence-start threshold calibrated on EWT dev documents, and vine_cascade after spaCy's
# rule-based sentencizer; then EWT test and PUD parsed as documents.
.PHONY: calibration documents
DOCS := bench/out/documents
DOC_STEPS ?= 2000
UD := corpora/ud

$(UD)/%/split.json: | $(STAMP)
	$(BIN)/python bench/ud_data.py --out $(UD) --treebanks $*

calibration: $(COMPARE)/cnn-vine-s0/model-best $(PUD_SPACY)
	$(ONE_CORE) $(BIN)/python bench/calibration.py --pipeline $(COMPARE)/cnn-vine-s0/model-best \
	    --out bench/results/calibration.json --plot bench/results/calibration.png

$(DOCS)/%/model-best: | $(STAMP) $(UD)/en_ewt/split.json $(EWT_SPACY)
	@mkdir -p $(DOCS)
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/$(if $(filter vine,$*),ewt,$(if $(filter senter,$*),ewt_spacy_senter,ewt_spacy_parser)).cfg \
	    --output $(DOCS)/$* --paths.train $(UD)/en_ewt/train_docs.spacy --corpora.train.gold_preproc false \
	    --paths.dev $(SPACY_DATA)/en_ewt-ud-dev.spacy --training.max_steps $(DOC_STEPS) --training.eval_frequency 1000 \
	    > $(DOCS)/$*.log 2>&1

$(DOCS)/vine/model-calibrated: $(DOCS)/vine/model-best
	$(ONE_CORE) $(BIN)/python -I -m vineparse.pipeline calibrate $< $(UD)/en_ewt/dev_docs.spacy --output $@

$(DOCS)/vine-sentencizer: $(DOCS)/vine/model-calibrated
	$(BIN)/python -I -c "import spacy, sys; nlp = spacy.load(sys.argv[1]); nlp.add_pipe('sentencizer', first=True); \
	    nlp.to_disk(sys.argv[2])" $< $@

documents: $(DOCS)/vine/model-calibrated $(DOCS)/vine-sentencizer $(DOCS)/spacy/model-best $(DOCS)/senter/model-best
	$(ONE_CORE) $(BIN)/python bench/documents.py --pipeline vine=$(DOCS)/vine/model-calibrated \
	    --pipeline vine_sentencizer=$(DOCS)/vine-sentencizer --pipeline spacy=$(DOCS)/spacy/model-best \
	    --pipeline senter=$(DOCS)/senter/model-best --out bench/results/documents.json

# ---- the paper's languages ----
# multilingual: bench/ud_data.py's splits of the six languages, spaCy's parser and vine_cascade trained on each
# (configs/ud_spacy_parser.cfg, configs/ud.cfg: same budget and early stopping; German and Portuguese also
# without pseudo-projective lifting), the EWT comparison's seed-0 runs for English, then bench/multilingual.py
# (the sparse cascade by gold UPOS, and the neural table). Runs are named TREEBANK-PARSER-sSEED;
# `make multilingual MULTI_SEEDS="0 1"` also trains seed 1 of both parsers on every treebank.
.PHONY: multilingual
MULTI := bench/out/multilingual
TREEBANKS := pt_bosque pt_bosque_small bg_btb de_gsd sv_talbanken zh_gsd
MULTI_SEEDS ?= 0
MULTI_RUNS := $(foreach tb,$(TREEBANKS),$(foreach seed,$(MULTI_SEEDS),$(tb)-spacy-s$(seed) $(tb)-vine-s$(seed))) \
    de_gsd-vine-flat-s0 pt_bosque-vine-flat-s0
# trained on a dev file less a tenth: vine_cascade's encoder output gets the training dropout (0.1) that spaCy's
# parser gets, instead of configs/ud.cfg's 0.0 (chosen on EWT's full train set); chosen on the held-out tenths of
# Chinese and German (docs/ud.md)
SMALL_DATA := pt_bosque_small bg_btb de_gsd sv_talbanken zh_gsd
multi_tb = $(word 1,$(subst -, ,$(1)))
multi_seed = $(subst s,,$(lastword $(subst -, ,$(1))))
multi_lang = $$($(BIN)/python -c "import json; print(json.load(open('$(UD)/$(call multi_tb,$(1))/split.json'))['lang'])")

$(MULTI)/%/model-best: | $(STAMP) $(foreach tb,$(TREEBANKS) en_ewt,$(UD)/$(tb)/split.json)
	@mkdir -p $(MULTI)
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/$(if $(findstring -vine,$*),ud,ud_spacy_parser).cfg --output $(MULTI)/$* \
	    --paths.train $(UD)/$(call multi_tb,$*)/train.spacy --paths.dev $(UD)/$(call multi_tb,$*)/dev.spacy \
	    --nlp.lang $(call multi_lang,$*) --system.seed $(call multi_seed,$*) \
	    $(if $(findstring -flat,$*),--components.vine_cascade.pseudo_projective false) \
	    $(if $(findstring -mst,$*),--components.vine_cascade.pseudo_projective false \
	        --components.vine_cascade.arc_loss crf_nonprojective) \
	    $(if $(and $(findstring -vine,$*),$(filter $(call multi_tb,$*),$(SMALL_DATA))),--components.vine_cascade.dropout 0.1) \
	    > $(MULTI)/$*.log 2>&1

multilingual: $(foreach run,$(MULTI_RUNS),$(MULTI)/$(run)/model-best) $(COMPARE)/cnn-vine-s0/model-best $(COMPARE)/cnn-spacy-s0/model-best
	$(ONE_CORE) $(BIN)/python bench/multilingual.py --runs $(MULTI) --ewt-runs $(COMPARE) \
	    --out bench/results/multilingual.json --plot bench/results/multilingual.png

# cascade-gap: NoPrune-3 - VineCascade-3 on each test set split into pruning and training (bench/cascade_gap.py),
# on the sparse systems bench/multilingual.py trains and keeps under $(MULTI)/sparse/ (trained here if missing).
.PHONY: cascade-gap
CASCADE_GAP_TREEBANKS := en_ewt $(TREEBANKS)
$(MULTI)/sparse/%.json: | $(STAMP) $(UD)/%/split.json
	@mkdir -p $(MULTI)/sparse/$*
	$(ONE_CORE) $(BIN)/python bench/cascade.py --corpus ud:$* --tag upos --systems multilingual --epochs 5 \
	    --repeats 3 --models $(MULTI)/sparse/$* --out $@ --plot $(@:.json=.png) > $(MULTI)/sparse/$*.log 2>&1

# multilingual-sparse-seeds: the sparse systems of every treebank trained again with seeds 1 and 2, their UAS and
# NoPrune-3 - VineCascade-3 added to multilingual.json (bench/multilingual.py --sparse-seeds)
.PHONY: multilingual-sparse-seeds
multilingual-sparse-seeds: $(foreach tb,$(CASCADE_GAP_TREEBANKS),$(MULTI)/sparse/$(tb).json)
	$(ONE_CORE) $(BIN)/python bench/multilingual.py --runs $(MULTI) --sparse-seeds 1,2 \
	    --out bench/results/multilingual.json --plot bench/results/multilingual.png

# multilingual-nonprojective-seeds: German's and Portuguese's non-projective arcs over the seeds: both parsers'
# further seeds kept under $(MULTI), and the sparse seeds with their LAS gain from lifting
# (bench/multilingual.py --nonprojective-seeds)
.PHONY: multilingual-nonprojective-seeds
multilingual-nonprojective-seeds: multilingual-sparse-seeds
	$(ONE_CORE) $(BIN)/python bench/multilingual.py --runs $(MULTI) --treebanks de_gsd,pt_bosque \
	    --nonprojective-seeds --out bench/results/multilingual.json --plot bench/results/multilingual.png

cascade-gap: $(foreach tb,$(CASCADE_GAP_TREEBANKS),$(MULTI)/sparse/$(tb).json)
	$(foreach tb,$(CASCADE_GAP_TREEBANKS),$(ONE_CORE) $(BIN)/python bench/cascade_gap.py --test $(UD)/$(tb)/test.conllu \
	    --models $(MULTI)/sparse/$(tb) --label $(tb) --out bench/results/cascade_gap.json &&) true

# reparse: vine_cascade trained with the matrix-tree arc loss (runs TREEBANK-vine-mst-s0; checkpoints chosen on
# the cascade's trees, as for the other runs) on German and Portuguese, parsed with each reparse bonus on dev
# and test beside the projective runs without lifting (bench/reparse.py; the bonus is chosen on dev).
.PHONY: reparse
REPARSE_TREEBANKS := de_gsd pt_bosque
# vine-lowering: the sparse cascade's lowering model (words and labels) on vine_cascade's parses, trained without
# lifting (flat) and with decorated labels (lifted), German and Portuguese -> bench/results/vine_lowering.json
.PHONY: vine-lowering
vine-lowering: $(foreach tb,$(REPARSE_TREEBANKS),$(MULTI)/$(tb)-vine-flat-s0/model-best $(MULTI)/$(tb)-vine-s0/model-best)
	$(foreach tb,$(REPARSE_TREEBANKS),$(ONE_CORE) $(BIN)/python bench/vine_lowering.py --treebank $(tb) \
	    --run flat=$(MULTI)/$(tb)-vine-flat-s0 --run lifted=$(MULTI)/$(tb)-vine-s0 --out bench/results/vine_lowering.json &&) true

# vine-lowering-seeds: the same on German with seeds 3 and 4 of vine_cascade with and without lifting (the
# lifted runs are the multilingual seeds) -> bench/results/vine_lowering.json (runs lifted-sK, flat-sK)
.PHONY: vine-lowering-seeds
vine-lowering-seeds: $(foreach seed,3 4,$(MULTI)/de_gsd-vine-flat-s$(seed)/model-best $(MULTI)/de_gsd-vine-s$(seed)/model-best)
	$(ONE_CORE) $(BIN)/python bench/vine_lowering.py --treebank de_gsd \
	    $(foreach seed,3 4,--run flat-s$(seed)=$(MULTI)/de_gsd-vine-flat-s$(seed) \
	        --run lifted-s$(seed)=$(MULTI)/de_gsd-vine-s$(seed)) --out bench/results/vine_lowering.json

# nonprojective-losses: where the sparse cascade and vine_cascade lose the crossing arcs of German and Portuguese
# test, and the most LAS lifting can add there -> bench/results/nonprojective_losses.json
.PHONY: nonprojective-losses
nonprojective-losses: $(foreach tb,$(REPARSE_TREEBANKS),$(MULTI)/$(tb)-vine-s0/model-best $(MULTI)/sparse/$(tb).json)
	$(foreach tb,$(REPARSE_TREEBANKS),$(ONE_CORE) $(BIN)/python bench/nonprojective_losses.py --treebank $(tb) &&) true

reparse: $(foreach tb,$(REPARSE_TREEBANKS),$(MULTI)/$(tb)-vine-mst-s0/model-best $(MULTI)/$(tb)-vine-flat-s0/model-best)
	$(foreach tb,$(REPARSE_TREEBANKS),$(ONE_CORE) $(BIN)/python bench/reparse.py --treebank $(tb) \
	    --run mst=$(MULTI)/$(tb)-vine-mst-s0 --run flat=$(MULTI)/$(tb)-vine-flat-s0 &&) true

# ---- threads ----
# bench-threads: words/s with 1, 2 and 4 Python threads sharing one loaded model (a sparse cascade trained on
# EWT here, and the comparison's seed-0 pipeline); bench-bounds: time per token of a 2,000-token preset
# sentence against 20-word ones, for that pipeline and for one trained on 300 sentences.
.PHONY: bench-threads bench-bounds
bench-threads: $(COMPARE)/cnn-vine-s0/model-best
	$(BIN)/python bench/threads.py --pipeline $< --out bench/results/threads.json

$(SPACY_DATA)/en_ewt-ud-train300.spacy: $(SPACY_DATA)/en_ewt-ud-train.spacy
	$(BIN)/python -c "import spacy; from spacy.tokens import DocBin; docs = list(DocBin().from_disk('$<').get_docs(spacy.blank('en').vocab))[:300]; DocBin(docs=docs).to_disk('$@')"

bench/out/ewt_vine300/model-last: $(SPACY_DATA)/en_ewt-ud-train300.spacy | $(STAMP)
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/ewt.cfg --output bench/out/ewt_vine300 \
	    --paths.train $< --paths.dev $(SPACY_DATA)/en_ewt-ud-dev.spacy --training.max_steps 300 --training.eval_frequency 100

bench-bounds: $(COMPARE)/cnn-vine-s0/model-best bench/out/ewt_vine300/model-last
	$(BIN)/python bench/bounds.py --pipeline trained=$< --pipeline 300-sentences=bench/out/ewt_vine300/model-last \
	    --out bench/results/bounds.json

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
