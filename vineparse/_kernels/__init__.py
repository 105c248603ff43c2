"""The compiled package: every Cython module of vineparse, and the C API between them.

`vineparse.kernels` is the checked public API of the dynamic programs compiled here (first-, second- and
third-order Eisner and the vine, one sentence or a batch): it validates shapes, dtypes, scores and masks, then
calls `calls`. Every other module is internal to the library: the Python modules named below import it
directly and check or build its inputs themselves; code outside vineparse should not import `_kernels`.

Modules: what each provides, then the Python modules of vineparse that import it ("C only": none does; it is
cimported by the modules of this package, which are named bare):

  the engine and the grammars behind vineparse.kernels
    hypergraph         inside and backward passes over any grammar's edges, the `Hypergraph` base: C only
    eisner             FirstOrder, first-order Eisner on the engine or on eisner_dense's charts: C only
    eisner_dense       dense first-order charts stored by span width, for eisner: C only
    eisner2            SecondOrder, adjacent-sibling Eisner: C only
    eisner3            ThirdOrder, grand-sibling Eisner: C only
    vine               Vine, the vine parser of bounded arc length: C only
    arcs               ArcIndex, the allowed arcs and the part layout: kernels.second_order, kernels.third_order
    calls              the grammars on numpy arrays: kernels.{first_order, second_order, third_order, vine, batch}
    parallel           run_jobs, one job per sentence on OpenMP threads, and has_openmp: kernels.batch
    memory             STATUS_* codes, growable buffers, the score check, the memory limit: kernels
  the sparse cascade parser (vineparse.cascade) and the spaCy component (vineparse.pipeline)
    cascade_runtime    CascadeRuntime, Stats: cascade.cascade, cascade.parser, pipeline.settings
    thresholds         max-marginal thresholds and head caps: cascade.thresholds, cascade.structures
    features           hashed sparse part features: cascade.hashed, cascade.training, cascade.structures
    sparse_scorer      SparseScorer, the runtime's scorer on those features: cascade.parser
    label_features     feature rows of labelled arcs for the cascade's labeller: cascade.labeler
    neural_scorer      NeuralScorer, the component's scores as the runtime's scorer: pipeline.levels
    part_mlp           higher-order part scores under the component's part MLP: pipeline.parts
    roots              which words prefer the root, before a doc is cut into sentences: pipeline.parts
    biaffine           dense biaffine arc scores, one sgemm per sentence: pipeline.scorers
    label_hidden       the hidden layer of the component's label classifier: pipeline.scorers
    bilstm             the component's BiLSTM at prediction, on scipy's BLAS: pipeline.architectures
    scipy_cblas        a thinc CBlas on scipy's BLAS (also biaffine's sgemm): vineparse.blas
  lexicalized A* (vineparse.astar) and bitext expectations (vineparse.bitext)
    lexgrammar         rule indexes and a sentence's cost tables: astar.parser, astar.heuristics, astar.projections
    astar_agenda       the agenda search for the best lexicalized derivation: astar.parser
    astar_projections  the CFG and dependency projections behind the heuristics: astar.parser, astar.heuristics
    lexcky             exhaustive lexicalized CKY, the reference for A*: astar.parser
    itg                inversion transduction grammars over bispans: bitext.grammar
    hmm_align          the HMM alignment model of one direction: bitext.hmm

The .pxd files are the C API between these modules, cimported with their `noexcept nogil` functions and
methods: arcs, cascade_runtime (the Scorer interface that sparse_scorer and neural_scorer implement, over a
Workspace), eisner, eisner2, eisner3, eisner_dense, features, hypergraph, lexgrammar, memory, parallel,
part_mlp, scipy_cblas, thresholds and vine. semiring.pxd (the engine's semirings) and strided.pxd (row strides
for biaffine and label_hidden) are headers only, inlined where they are cimported, as are the C headers of
the SIMD loops: dense.h (eisner_dense), vexp.h (the semirings' batched exp), relu_dot.h (part_mlp) and
lstm_gates.h (bilstm).

Errors never leave nogil code as exceptions: every nogil core returns a code, checked once the GIL is back.
The engine, the grammars, ArcIndex, the jobs of calls and the cascade runtime return the STATUS_* codes of
memory.pxd (no structure, out of memory, too large, bad score, wrong part-vector length), which
memory.check_status and the Python faces turn into exceptions; the smaller C helpers return -1 on failure
(the scorers of cascade_runtime.pxd, features' sentence_set, the buffers of the A* projections and of the
HMM statistics), and the A* search returns its SearchStatus.
"""
import os as _os

try:
    from . import hypergraph  # noqa: F401  (fails here if the extensions were never built)
except ImportError as _err:  # pragma: no cover - depends on how vineparse was installed
    raise ImportError(
        f"vineparse's compiled kernels are missing in {_os.path.dirname(__file__)}: this is an "
        "unbuilt source tree. Install the package (`make install` or `pip install .`) and run from "
        "outside the source folder, or build in place with `pip install -e .`."
    ) from _err
