"""vineparse.blas: thinc ops whose matrix products run on scipy's BLAS."""
import numpy as np
import pytest
from thinc.api import NumpyOps, get_current_ops, registry, set_current_ops

from vineparse._kernels.scipy_cblas import cblas_axpy, cblas_gemm
from vineparse.blas import ScipyBlasOps, use_scipy_blas


@pytest.mark.parametrize("trans_a", [False, True])
@pytest.mark.parametrize("trans_b", [False, True])
@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 5, 2), (17, 9, 33), (64, 96, 130)])
def test_the_cblas_sgemm_is_the_row_major_product(trans_a, trans_b, shape):
    m, k, n = shape
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    A = rng.normal(size=(k, m) if trans_a else (m, k)).astype("f")
    B = rng.normal(size=(n, k) if trans_b else (k, n)).astype("f")
    expected = (A.T if trans_a else A).astype("f8") @ (B.T if trans_b else B).astype("f8")
    for ops in (ScipyBlasOps(), NumpyOps()):                  # thinc's own CBlas is the reference convention
        got = cblas_gemm(ops.cblas(), A, B, trans_a, trans_b)
        assert got.shape == (m, n)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_the_cblas_saxpy_adds_a_scaled_vector():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=37).astype("f"), rng.normal(size=37).astype("f")
    np.testing.assert_allclose(cblas_axpy(ScipyBlasOps().cblas(), 0.5, X, Y), Y + 0.5 * X, rtol=1e-6)
    with pytest.raises(ValueError, match="X has 3 values, Y 2"):
        cblas_axpy(ScipyBlasOps().cblas(), 1.0, np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="inner dimensions differ"):
        cblas_gemm(ScipyBlasOps().cblas(), np.ones((2, 3)), np.ones((2, 3)))


def test_ops_gemm_matches_numpy_ops_and_is_registered():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(7, 5)).astype("f"), rng.normal(size=(7, 4)).astype("f")
    ops = ScipyBlasOps()
    np.testing.assert_allclose(ops.gemm(x, y, trans1=True), x.T @ y, rtol=1e-5, atol=1e-5)
    assert not ops.use_blis and ops.name == "scipy_blas"
    assert registry.ops.get("ScipyBlasOps") is ScipyBlasOps


def test_spacys_parser_parses_alike_on_either_ops():
    """spaCy's parser calls the CBlas sgemm and saxpy from C: the same weights give the same parses."""
    import spacy
    from spacy.training import Example

    previous = get_current_ops()
    words = "the quick brown fox jumps over the lazy dog".split()
    heads, deps = [3, 3, 3, 4, 4, 4, 8, 8, 5], ["det", "amod", "amod", "nsubj", "ROOT", "prep", "det", "amod", "pobj"]
    parses = []
    try:
        for ops in (NumpyOps(), ScipyBlasOps()):
            set_current_ops(ops)
            nlp = spacy.blank("en")
            nlp.add_pipe("parser", config={"min_action_freq": 1})
            if parses:
                nlp.from_bytes(trained)
            else:
                example = Example.from_dict(nlp.make_doc(" ".join(words)), {"heads": heads, "deps": deps})
                optimizer = nlp.initialize(lambda: [example])
                for _ in range(20):
                    nlp.update([example], sgd=optimizer)
                trained = nlp.to_bytes()
            assert isinstance(nlp.get_pipe("parser").model.ops, type(ops))
            texts = [" ".join(words), "the dog jumps over the quick fox", "a lazy brown dog"]
            parses.append([[t.head.i for t in doc] for doc in nlp.pipe(texts)])
    finally:
        set_current_ops(previous)
    assert parses[0] == parses[1]


def test_use_scipy_blas_sets_the_current_ops():
    previous = get_current_ops()
    try:
        assert isinstance(use_scipy_blas(), ScipyBlasOps)
        assert isinstance(get_current_ops(), ScipyBlasOps)
    finally:
        set_current_ops(previous)


def test_the_before_creation_callback_builds_the_pipeline_on_scipy_blas():
    import spacy
    from thinc.api import Config

    import vineparse.pipeline  # noqa: F401  registers vineparse.scipy_blas.v1
    config = Config().from_str("""
        [nlp]
        lang = "en"
        pipeline = ["parser"]
        before_creation = {"@callbacks": "vineparse.scipy_blas.v1"}
        [components]
        [components.parser]
        factory = "parser"
    """)
    previous = get_current_ops()
    try:
        set_current_ops(NumpyOps())
        nlp = spacy.util.load_model_from_config(config, auto_fill=True)
        assert isinstance(nlp.get_pipe("parser").model.ops, ScipyBlasOps)

        class OtherOps(NumpyOps):               # stands for a GPU or another backend chosen on purpose
            name = "other"
        set_current_ops(OtherOps())
        nlp = spacy.util.load_model_from_config(config, auto_fill=True)
        assert type(nlp.get_pipe("parser").model.ops) is OtherOps
    finally:
        set_current_ops(previous)
