# `make demo` and `make test` (the README's) create .venv if missing and (re)install vineparse when a source changed.
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
.PHONY: demo test install clean docs dist wheel-missing bench bench-results supar-venv cascade-experiments bench-astar \
    ewt-vine package ewt-compare ewt-compare-es ewt-compare-es-bilstm ewt-speed multilingual multilingual-seeds \
    bench-threads bench-bounds bench-astar-backoff bench-labels soak bench-scale bench-bitext calibration raw-text
# The main job: treebank statistics, a vine -> 1 -> 2 -> 3 cascade on 2,000 EWT sentences evaluated on dev, then what
# a spaCy user runs: a small vine_cascade pipeline trained on 60 EWT documents as raw text (configs/ewt.cfg, 400
# steps) parses the paragraphs of corpora/demo.txt into sentences and labelled arcs (CoNLL-U on stdout).
DEMO := bench/out/demo
demo: $(STAMP)
	$(BIN)/vineparse stats --json bench/out/stats.json
	$(BIN)/python bench/treebank_stats.py --plot bench/out/stats.png --json bench/out/stats_bench.json
	$(BIN)/vineparse train --train ewt-train --dev ewt-dev --limit 2000 --epochs 2 --out bench/out/demo.msgpack
	$(BIN)/vineparse evaluate bench/out/demo.msgpack --treebank ewt-dev --json bench/out/demo.json
	@mkdir -p $(DEMO)
	$(BIN)/vineparse convert-docs $(VINEPARSE_CORPORA)/ud-english-ewt/en_ewt-ud-train.conllu $(DEMO)/train.spacy \
	    --limit 60 --sentences
	$(BIN)/vineparse convert-docs $(VINEPARSE_CORPORA)/ud-english-ewt/en_ewt-ud-dev.conllu $(DEMO)/dev.spacy --limit 15
	$(BIN)/python -I -m spacy train configs/ewt.cfg --output $(DEMO)/pipeline --paths.train $(DEMO)/train.spacy \
	    --paths.dev $(DEMO)/dev.spacy --training.max_steps 400 --training.eval_frequency 200
	$(BIN)/vineparse parse-text $(DEMO)/pipeline/model-best corpora/demo.txt
test: $(STAMP)
	$(BIN)/pytest -q tests
install: $(STAMP)
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
# Tests run against the built wheel (dist/, also for tests/test_release.py and `make dist`), not the source tree.
$(STAMP): $(BIN)/python $(SOURCES) $(if $(wildcard dist/vineparse-*.whl),,wheel-missing)
	rm -f dist/vineparse-*.whl
	# the build folder keeps the last build's modules: a module deleted since must not reach the wheel
	find build -path '*/lib*/vineparse/*' -name '*.py' -delete 2>/dev/null || true
	for so in build/lib*/vineparse/_kernels/*.so; do name=$$(basename "$$so"); \
	    [ ! -e "$$so" ] || [ -e "vineparse/_kernels/$${name%%.*}.pyx" ] || rm "$$so"; done
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
# The docs site: the tables rendered from bench/results/, then `mkdocs build --strict` into build/site/.
DOCS_TOOLS := "mkdocs>=1.6,<2" "mkdocstrings[python]>=0.27,<2"
docs: | $(BIN)/python
	$(BIN)/python -I -c "import mkdocs, mkdocstrings_handlers.python" 2>/dev/null || \
	    $(BIN)/python -m pip install --quiet $(DOCS_TOOLS)
	$(BIN)/python bench/render_docs.py
	$(BIN)/python -I -m mkdocs build --strict
clean:
	rm -rf build dist *.egg-info vineparse/_kernels/*.c vineparse/_kernels/*.so bench/out docs/results/*.png $(STAMP)

# ---- kernels, the sparse cascade, A* ----
# bench(-results): the kernels (SuPar in its own venv, make supar-venv; -results waits for a quiet machine);
# cascade-experiments: VineCascade-k against its baselines (1.5 hours); bench-astar: every A* heuristic x model.
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
cascade-experiments: $(STAMP)
	$(BIN)/python bench/cascade.py --corpus ewt --models bench/out/models_ewt --out bench/results/cascade_ewt.json
	$(BIN)/python bench/cascade.py --corpus ptb --models bench/out/models_ptb --out bench/results/cascade_ptb.json
bench-astar: $(STAMP)
	$(BIN)/python bench/astar.py --out bench/out/astar.json --table bench/out/astar.md --plot bench/out/astar.png

# ---- the spaCy component vine_cascade on EWT (configs/ewt.cfg; the others written from it by make_configs.py) ----
# ewt-vine: EWT as .spacy (one sentence per doc), trained, evaluated, timed; package: `spacy package` on it, into
# dist/. Runs are SETTING-PIPELINE-sSEED (`make -j2`: two at a time; `python -I -m`: the installed vineparse).
SPACY_DATA := corpora/spacy
EWT_SPACY := $(SPACY_DATA)/en_ewt-ud-train.spacy $(SPACY_DATA)/en_ewt-ud-dev.spacy $(SPACY_DATA)/en_ewt-ud-test.spacy
PUD_SPACY := $(SPACY_DATA)/en_pud-ud-test.spacy
VINE_OUT := bench/out/ewt_vine
ONE_CORE := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
# the gold-segmented comparisons (the configs' route is raw text): gold sentences, no space-after flag (as ud.cfg)
TRAIN_DATA = --paths.train $(SPACY_DATA)/en_ewt-ud-train.spacy --paths.dev $(SPACY_DATA)/en_ewt-ud-dev.spacy \
    $(shell $(PYTHON) configs/make_configs.py --gold-overrides)
COMPARE_TO = $(ONE_CORE) $(BIN)/python bench/spacy_compare.py --test $(SPACY_DATA)/en_ewt-ud-test.spacy \
    --ood $(PUD_SPACY) --out bench/results
run_config = configs/$(if $(filter vine,$(word 2,$(subst -, ,$(1)))),ewt,$(if $(filter beam,$(word 2,$(subst -, ,$(1)))),ewt_spacy_beam,ewt_spacy_parser))$(if $(filter bilstm,$(word 1,$(subst -, ,$(1)))),_bilstm,).cfg
run_seed = $(subst s,,$(word 3,$(subst -, ,$(1))))

$(SPACY_DATA)/%.spacy: | $(STAMP)
	@mkdir -p $(SPACY_DATA)
	$(BIN)/python -I -m spacy convert $(VINEPARSE_CORPORA)/$(if $(findstring pud,$*),ud-pud,ud-english-ewt)/$*.conllu \
	    $(SPACY_DATA) --converter conllu -n 1
$(VINE_OUT)/model-best: $(STAMP) $(EWT_SPACY) configs/ewt.cfg
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/ewt.cfg --output $(VINE_OUT) $(TRAIN_DATA)
ewt-vine: $(VINE_OUT)/model-best
	$(ONE_CORE) $(BIN)/python -I -m spacy evaluate $< $(SPACY_DATA)/en_ewt-ud-test.spacy --gold-preproc \
	    --output $(VINE_OUT)/test.json
	$(ONE_CORE) $(BIN)/python -I -m spacy benchmark speed $< $(SPACY_DATA)/en_ewt-ud-test.spacy
package: $(VINE_OUT)/model-best
	$(BIN)/python -m pip install --quiet wheel
	@mkdir -p dist
	$(BIN)/python -I -m spacy package $< dist --name vineparse_ewt --version 0.1.0 --build sdist,wheel --force
# the training of the runs under the folder $(1) with the extra arguments $(2)
define train_runs
$(1)/%/model-best: | $$(STAMP) $$(EWT_SPACY)
	@mkdir -p $(1)
	$$(ONE_CORE) $$(BIN)/python -I -m spacy train $$(call run_config,$$*) --output $(1)/$$* $$(TRAIN_DATA) \
	    --system.seed $$(call run_seed,$$*) $(2) > $(1)/$$*.log 2>&1
endef
# ewt-compare: 3 seeds of each parser, 8,000 steps (seed 0: what calibration, threads, bounds, multilingual measure)
COMPARE := bench/out/compare8k
COMPARE_STEPS ?= 8000
$(eval $(call train_runs,$(COMPARE),--training.max_steps $(COMPARE_STEPS) --training.eval_frequency 1000 \
    --training.patience 0))
ewt-compare: $(foreach run,$(foreach pipe,vine spacy,$(foreach s,0 1 2,cnn-$(pipe)-s$(s))),$(COMPARE)/$(run)/model-best) $(PUD_SPACY)
	$(COMPARE_TO)/spacy_compare.json --runs $(COMPARE) --steps $(COMPARE_STEPS)
# the configs' budget, spaCy's default early stopping: ewt-compare-es, the record (spacy_compare_es.json);
# ewt-compare-es-bilstm, the equal-encoder setting (a BiLSTM in the shared tok2vec), one seed each, with their speed
COMPARE_ES := bench/out/compare_es
COMPARE_ES_BILSTM := bench/out/compare_es_bilstm
COMPARE_ES_RUNS ?= $(foreach pipe,vine spacy,$(foreach seed,0 1 2,cnn-$(pipe)-s$(seed))) cnn-beam-s0
$(foreach folder,$(COMPARE_ES) $(COMPARE_ES_BILSTM),$(eval $(call train_runs,$(folder))))
ewt-compare-es: $(foreach run,$(COMPARE_ES_RUNS),$(COMPARE_ES)/$(run)/model-best) $(PUD_SPACY)
	$(COMPARE_TO)/spacy_compare_es.json --runs $(COMPARE_ES) --steps early-stopping --no-speed
ewt-compare-es-bilstm: $(foreach pipe,vine spacy,$(COMPARE_ES_BILSTM)/bilstm-$(pipe)-s0/model-best) $(PUD_SPACY)
	$(COMPARE_TO)/spacy_compare_es_bilstm.json --runs $(COMPARE_ES_BILSTM) --steps early-stopping
# the README's words/s: spaCy's parser's pipeline (2,000 steps: it costs the same at any step), the record's seed 0
SPEED := bench/out/speed
$(eval $(call train_runs,$(SPEED),--training.max_steps 2000 --training.eval_frequency 2000))
ewt-speed: $(SPEED)/cnn-spacy-s0/model-best $(COMPARE_ES)/cnn-vine-s0/model-best
	$(ONE_CORE) $(BIN)/python bench/component_speed.py --docs $(SPACY_DATA)/en_ewt-ud-test.spacy --repeats 7 \
	    --models "spaCy's parser, 2,000 steps=$<" "vine_cascade, early stopping=$(COMPARE_ES)/cnn-vine-s0/model-best" \
	    --note "seed 0 each; spaCy's parser for 2,000 steps: it costs the same at any step" --out bench/results/ewt_speed.json
# ---- confidences and raw text ----
# calibration: how well vine_cascade's head probabilities are calibrated on EWT test and PUD (seed-0 pipeline).
# raw-text: EWT's documents on their raw text (`vineparse convert-docs`: paragraph breaks, line wraps) and each of
# their sentences alone (`--sentences`), vine_cascade (configs/ewt.cfg), spaCy's parser and spaCy's senter + parser
# trained on them at the configs' budget, then bench/raw_text.py: EWT test and English PUD from UD's raw .txt,
# scored by the CoNLL 2018 evaluation, and vine_cascade's pipeline on EWT test's gold tokens; then the same three
# on Bosque (Portuguese).
DOC_DATA := corpora/docs
RAW_SEED ?= 0
RAW_TAG := $(if $(filter-out 0,$(RAW_SEED)),_s$(RAW_SEED))
RAW := bench/out/raw_text$(RAW_TAG)
UD := corpora/ud
.PRECIOUS: $(UD)/%/split.json
$(UD)/%/split.json: | $(STAMP)
	$(BIN)/python bench/ud_data.py --out $(UD) --treebanks $*
calibration: $(COMPARE)/cnn-vine-s0/model-best $(PUD_SPACY)
	$(ONE_CORE) $(BIN)/python bench/calibration.py --pipeline $(COMPARE)/cnn-vine-s0/model-best \
	    --out bench/results/calibration.json --plot bench/results/calibration.png
PT := $(VINEPARSE_CORPORA)/ud-multi/pt_bosque/pt_bosque-ud
$(DOC_DATA)/%.spacy: | $(STAMP)
	@mkdir -p $(DOC_DATA)
	$(BIN)/vineparse convert-docs $(if $(findstring pt_,$*),$(PT)-$(lastword $(subst -, ,$*)).conllu --lang pt,\
	    $(VINEPARSE_CORPORA)/ud-english-ewt/$*.conllu) $(if $(filter %-train,$*),--sentences) $@
RAW_RUNS := vine spacy senter
$(RAW_RUNS:%=$(RAW)/%/model-best): $(RAW)/%/model-best: \
    | $(STAMP) $(DOC_DATA)/en_ewt-ud-train.spacy $(DOC_DATA)/en_ewt-ud-dev.spacy
	@mkdir -p $(RAW)
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/$(if $(filter vine,$*),ewt,ewt_spacy_$(if $(filter senter,$*),senter,parser)).cfg \
	    --system.seed $(RAW_SEED) --output $(RAW)/$* > $(RAW)/$*.log 2>&1
# Portuguese (Bosque): configs/ud*.cfg at their budget on its documents and their sentences, its contractions and
# clitics learned from train
$(RAW_RUNS:%=$(RAW)/pt-%/model-best): $(RAW)/pt-%/model-best: \
    | $(STAMP) $(DOC_DATA)/pt_bosque-ud-train.spacy $(DOC_DATA)/pt_bosque-ud-dev.spacy
	@mkdir -p $(RAW)
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/$(if $(filter vine,$*),ud,ud_spacy_$(if $(filter senter,$*),senter,parser)).cfg \
	    --system.seed $(RAW_SEED) --output $(RAW)/pt-$* \
	    --nlp.lang pt --paths.train $(DOC_DATA)/pt_bosque-ud-train.spacy --paths.dev $(DOC_DATA)/pt_bosque-ud-dev.spacy \
	    --corpora.train.gold_preproc false --corpora.dev.gold_preproc false \
	    --initialize.before_init '{"@callbacks": "vineparse.ud_multiword.v1", "path": "$(PT)-train.conllu"}' \
	    > $(RAW)/pt-$*.log 2>&1
raw-text: $(foreach run,$(RAW_RUNS) $(RAW_RUNS:%=pt-%),$(RAW)/$(run)/model-best)
	$(ONE_CORE) $(BIN)/python bench/raw_text.py --pipeline vine_cascade=$(RAW)/vine/model-best \
	    --pipeline "spaCy parser=$(RAW)/spacy/model-best" --pipeline "spaCy senter + parser=$(RAW)/senter/model-best" \
	    --gold-tokens $(SPACY_DATA)/en_ewt-ud-test.spacy --repeats 5 --out bench/results/raw_text$(RAW_TAG).json \
	    --note "seed $(RAW_SEED), the configs' budget (early stopping), on EWT train's documents and sentences"
	$(ONE_CORE) $(BIN)/python bench/raw_text.py --pipeline vine_cascade=$(RAW)/pt-vine/model-best \
	    --pipeline "spaCy parser=$(RAW)/pt-spacy/model-best" --pipeline "spaCy senter + parser=$(RAW)/pt-senter/model-best" \
	    --treebank pt_bosque_test=$(PT)-test.conllu --repeats 7 --out bench/results/raw_text_pt$(RAW_TAG).json \
	    --note "seed $(RAW_SEED), the configs' budget (early stopping within 6,000 steps), on Bosque train's documents and sentences"

# ---- the paper's languages ----
# multilingual: spaCy's parser and vine_cascade (configs/ud*.cfg; -flat: without lifting) on six languages, then the
# sparse cascade (bench/multilingual.py). MULTI_SEEDS="0 1": seed 1 too. SMALL_DATA (dev less a tenth): dropout 0.1.
MULTI := bench/out/multilingual
TREEBANKS := pt_bosque pt_bosque_small bg_btb de_gsd sv_talbanken zh_gsd
MULTI_SEEDS ?= 0
MULTI_RUNS := $(foreach tb,$(TREEBANKS),$(foreach seed,$(MULTI_SEEDS),$(tb)-spacy-s$(seed) $(tb)-vine-s$(seed))) \
    de_gsd-vine-flat-s0 pt_bosque-vine-flat-s0
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
	    $(if $(and $(findstring -vine,$*),$(filter $(call multi_tb,$*),$(SMALL_DATA))),--components.vine_cascade.dropout 0.1) \
	    > $(MULTI)/$*.log 2>&1
MULTILINGUAL = $(ONE_CORE) $(BIN)/python bench/multilingual.py --runs $(MULTI) --out bench/results/multilingual.json \
    --plot bench/results/multilingual.png
multilingual: $(foreach run,$(MULTI_RUNS),$(MULTI)/$(run)/model-best) $(COMPARE)/cnn-vine-s0/model-best $(COMPARE)/cnn-spacy-s0/model-best
	$(MULTILINGUAL) --ewt-runs $(COMPARE)
# multilingual-seeds: the sparse systems again with seeds 1 and 2; German's and Portuguese's crossing arcs by seed
$(MULTI)/sparse/%.json: | $(STAMP) $(UD)/%/split.json
	@mkdir -p $(MULTI)/sparse/$*
	$(ONE_CORE) $(BIN)/python bench/cascade.py --corpus ud:$* --tag upos --systems multilingual --epochs 5 \
	    --repeats 3 --models $(MULTI)/sparse/$* --out $@ --plot $(@:.json=.png) > $(MULTI)/sparse/$*.log 2>&1
multilingual-seeds: $(foreach tb,en_ewt $(TREEBANKS),$(MULTI)/sparse/$(tb).json)
	$(MULTILINGUAL) --sparse-seeds 1,2
	$(MULTILINGUAL) --treebanks de_gsd,pt_bosque --nonprojective-seeds
# ---- threads, bounds, hardening, scale, bitext (docs/robustness.md, astar.md, cascade.md, scale.md, bitext.md) ----
# bench-threads: 1, 2 and 4 threads sharing one model; bench-bounds: time per token of a 2,000-token sentence
# against 20-word ones (the comparison's pipeline, one trained on 300 sentences); soak: RSS over time.
bench-threads: $(COMPARE)/cnn-vine-s0/model-best
	$(BIN)/python bench/threads.py --pipeline $< --out bench/results/threads.json
bench/out/ewt_vine300/model-last: | $(STAMP) $(EWT_SPACY)
	$(ONE_CORE) $(BIN)/python -I -m spacy train configs/ewt.cfg --output bench/out/ewt_vine300 $(TRAIN_DATA) \
	    --corpora.train.limit 300 --training.max_steps 300 --training.eval_frequency 100
bench-bounds: $(COMPARE)/cnn-vine-s0/model-best bench/out/ewt_vine300/model-last
	$(BIN)/python bench/bounds.py --pipeline trained=$< --pipeline 300-sentences=bench/out/ewt_vine300/model-last \
	    --out bench/results/bounds.json
bench-astar-backoff: $(STAMP)
	$(ONE_CORE) $(BIN)/python bench/astar_backoff.py --out bench/results/astar_backoff.json
bench-labels: $(STAMP)
	$(ONE_CORE) $(BIN)/python bench/labels.py --out bench/results/labels.json
soak: $(STAMP)
	$(ONE_CORE) $(BIN)/python bench/soak.py --out bench/results/soak.json --plot bench/results/soak.png
bench-scale: $(STAMP)
	$(ONE_CORE) $(BIN)/python bench/scale.py --out bench/results/scale.json
bench-bitext: $(STAMP)
	$(BIN)/python bench/bitext_aligners.py --out bench/results/bitext_aligners.json
	$(BIN)/python bench/bitext.py --out bench/results/bitext.json --plots bench/results
