"""Every spaCy registration of vineparse, in one place (as spaCy 3.8 does).

Importing this module registers the factory `vine_cascade`, the architectures
`vineparse.VineCascadeModel.v2` and `vineparse.MaxoutWindowBiLSTMEncoder.v1` and the callback
`vineparse.scipy_blas.v1` (`vineparse.blas`). The package's entry points (`spacy_factories`,
`spacy_architectures`, `spacy_callbacks` in setup.cfg) name objects of this module, so a fresh
interpreter finds them without importing vineparse first.
"""
from typing import Callable, List, Optional, Union

from spacy.language import Language
from spacy.util import registry
from thinc.api import Config, Model

from ..blas import scipy_blas_before_creation
from .architectures import build_maxout_window_bilstm_encoder, build_vine_cascade_model
from .component import DEFAULT_MODEL_CONFIG, VineCascadeParser

registry.architectures.register("vineparse.VineCascadeModel.v2", func=build_vine_cascade_model)
registry.architectures.register("vineparse.MaxoutWindowBiLSTMEncoder.v1", func=build_maxout_window_bilstm_encoder)
registry.callbacks.register("vineparse.scipy_blas.v1", func=scipy_blas_before_creation)


@Language.factory(
    "vine_cascade",
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    default_config={"model": Config().from_str(DEFAULT_MODEL_CONFIG)["model"], "orders": [0, 1, 2, 3],
                    "band": 5, "alphas": None, "recall": 0.995, "threshold_interval": 50, "held_out": 0.05,
                    "learn_held_out": True,
                    "arc_loss": "crf",
                    "train_alpha": 0.5, "witnesses": 2,
                    "structured_weight": 1.0, "max_heads": 8, "max_order": None, "seed": 0,
                    "learn_rate_scale": 1.0, "direct_max_length": 5, "decoder": "map", "label_weight": 1.0,
                    "dropout": None, "split_margin": 0.0,
                    "scorer": {"@scorers": "spacy.parser_scorer.v1"}},
    default_score_weights={"dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None, "sents_p": None,
                           "sents_r": None, "sents_f": 0.0},
)
def make_vine_cascade(nlp: Language, name: str, model: Model, orders: List[int], band: int,
                      alphas: Optional[List[float]], recall: Union[float, List[float]], threshold_interval: int, held_out: float,
                      learn_held_out: bool, arc_loss: str,
                      train_alpha: float, witnesses: int,
                      structured_weight: float, max_heads: Optional[int], max_order: Optional[int], seed: int,
                      learn_rate_scale: float, direct_max_length: int, decoder: str, label_weight: float,
                      dropout: Optional[float], split_margin: float,
                      scorer: Optional[Callable]) -> VineCascadeParser:
    """Create a `vine_cascade` component (see `VineCascadeParser` for the settings)."""
    return VineCascadeParser(nlp.vocab, model, name, orders=orders, band=band, alphas=alphas, recall=recall,
                             threshold_interval=threshold_interval, held_out=held_out,
                             learn_held_out=learn_held_out, arc_loss=arc_loss,
                             train_alpha=train_alpha,
                             witnesses=witnesses, structured_weight=structured_weight,
                             max_heads=max_heads, max_order=max_order, seed=seed,
                             learn_rate_scale=learn_rate_scale, direct_max_length=direct_max_length, decoder=decoder,
                             label_weight=label_weight, dropout=dropout, split_margin=split_margin,
                             scorer=scorer)
