"""Every spaCy registration of vineparse, in one place (as spaCy 3.8 does).

Importing this module registers the factory `vine_cascade` (its default config: every setting's and the
model's default, `settings.declared_defaults` and `architectures.default_model_config`), the architectures
`vineparse.VineCascadeModel.v3` and `vineparse.MaxoutWindowBiLSTMEncoder.v1`, the callbacks
`vineparse.scipy_blas.v1` (`vineparse.blas`), `vineparse.calibrate_on_dev.v1` (`calibration.py`) and
`vineparse.ud_english_tokenizer.v1`, `vineparse.ud_multiword.v1` (`vineparse.text.contractions`), and the
tokenizer `vineparse.UDEnglishTokenizer.v1` (`vineparse.text.tokenizer`). The
package's entry points (`spacy_factories`, `spacy_architectures`, `spacy_callbacks` in setup.cfg) name objects
of this module, so a fresh interpreter finds them without importing vineparse first.
"""
import dataclasses
import inspect
from typing import Callable, Optional

from spacy.language import Language
from spacy.util import registry
from thinc.api import Model

from ..blas import scipy_blas_before_creation
from ..text.contractions import multiword_callback
from ..text.tokenizer import create_ud_english_tokenizer, ud_english_tokenizer_callback
from .architectures import build_maxout_window_bilstm_encoder, build_vine_cascade_model, default_model_config
from .calibration import calibrate_before_saving
from .component import VineCascadeParser
from .settings import CascadeSettings, declared_defaults, factory_signature

registry.architectures.register("vineparse.VineCascadeModel.v3", func=build_vine_cascade_model)
registry.architectures.register("vineparse.MaxoutWindowBiLSTMEncoder.v1", func=build_maxout_window_bilstm_encoder)
registry.callbacks.register("vineparse.scipy_blas.v1", func=scipy_blas_before_creation)
registry.callbacks.register("vineparse.calibrate_on_dev.v1", func=calibrate_before_saving)
registry.callbacks.register("vineparse.ud_english_tokenizer.v1", func=ud_english_tokenizer_callback)
registry.callbacks.register("vineparse.ud_multiword.v1", func=multiword_callback)
registry.tokenizers.register("vineparse.UDEnglishTokenizer.v1", func=create_ud_english_tokenizer)


def make_vine_cascade(nlp: Language, name: str, model: Model, scorer: Optional[Callable],
                      **settings) -> VineCascadeParser:
    """Create a `vine_cascade` component (see `VineCascadeParser`; the settings are `CascadeSettings`')."""
    return VineCascadeParser(nlp.vocab, model, name, settings=CascadeSettings(**settings), scorer=scorer)


# spaCy checks a component's config against its factory's signature: one keyword per setting, from the fields
make_vine_cascade.__signature__ = factory_signature(
    [inspect.Parameter(arg, inspect.Parameter.POSITIONAL_OR_KEYWORD) for arg in ("nlp", "name", "model")],
    [inspect.Parameter("scorer", inspect.Parameter.KEYWORD_ONLY, annotation=Optional[Callable])])
make_vine_cascade.__annotations__ = {**{f.name: f.type for f in dataclasses.fields(CascadeSettings)},
                                     "model": Model, "scorer": Optional[Callable], "return": VineCascadeParser}

Language.factory(
    "vine_cascade",
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    default_config={"model": default_model_config(), **declared_defaults(),
                    "scorer": {"@scorers": "spacy.parser_scorer.v1"}},
    default_score_weights={"dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None, "sents_p": None,
                           "sents_r": None, "sents_f": 0.0},
)(make_vine_cascade)
