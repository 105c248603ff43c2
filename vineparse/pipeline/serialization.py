"""Saving and loading `vine_cascade`: its settings (JSON) and model (thinc msgpack) by srsly, with a format
version; a file that cannot be read (truncated, another kind of file, another version) raises a ValueError
naming the file and what was expected, instead of msgpack's or JSON's bare message.

A pipeline saved before a setting was retired (`settings.RETIRED`, `architectures.RETIRED`) names it in its
config.cfg, which spaCy refuses ("unexpected argument"); `upgrade_config` (`python -m vineparse.pipeline
upgrade PIPELINE`) takes out those at the value whose behaviour was kept, and refuses the others.
"""
from pathlib import Path
from typing import Callable

import srsly
from spacy import util
from spacy.errors import Errors
from thinc.api import Config

from . import architectures, settings

FORMAT_VERSION = 3      # 3: thinc scorer layers


class ModelFileError(ValueError):
    """A saved vine_cascade component that cannot be read."""


def _read(what: str, source: str, read: Callable):
    try:
        return read()
    except ModelFileError:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as err:
        raise ModelFileError(f"cannot read the vine_cascade {what} from {source}: {err} (a truncated or "
                             f"damaged file, or not a vine_cascade {what})") from None


def check_cfg(cfg, source: str) -> dict:
    if not isinstance(cfg, dict):
        raise ModelFileError(f"the vine_cascade settings in {source} are not a JSON object")
    version = cfg.get("format_version")
    if version != FORMAT_VERSION:
        raise ModelFileError(f"{source}: this vine_cascade component was saved with format version {version}, "
                             f"but this vineparse reads version {FORMAT_VERSION}: retrain it or use a matching "
                             f"vineparse")
    return cfg


def load_model(component, data: bytes, source: str) -> None:
    features = component.model.get_ref("labels")
    if not features.has_dim("nL") or not features.get_dim("nL"):
        component.set_label_count(len(component.labels))

    def read():
        try:
            component.model.from_bytes(data)
        except AttributeError:
            raise ModelFileError(f"{source}: {Errors.E149}") from None
    _read("model", source, read)


def to_bytes(component, exclude=tuple()) -> bytes:
    serialize = {"cfg": lambda: srsly.json_dumps(component.cfg),
                 "vocab": lambda: component.vocab.to_bytes(exclude=exclude),
                 "model": lambda: component.model.to_bytes()}
    return util.to_bytes(serialize, exclude)


def from_bytes(component, data: bytes, exclude=tuple()):
    source = f"the bytes of component {component.name!r}"
    deserialize = {"cfg": lambda b: component.load_cfg(check_cfg(_read("settings", source,
                                                                           lambda: srsly.json_loads(b)), source)),
                   "vocab": lambda b: component.vocab.from_bytes(b, exclude=exclude),
                   "model": lambda b: load_model(component, b, source)}
    _read("component", source, lambda: util.from_bytes(data, deserialize, exclude))
    return component


def to_disk(component, path, exclude=tuple()) -> None:
    path = util.ensure_path(path)
    serialize = {"cfg": lambda p: srsly.write_json(p, component.cfg),
                 "vocab": lambda p: component.vocab.to_disk(p, exclude=exclude),
                 "model": lambda p: p.open("wb").write(component.model.to_bytes())}
    util.to_disk(path, serialize, exclude)


def from_disk(component, path, exclude=tuple()):
    path = util.ensure_path(path)
    deserialize = {"cfg": lambda p: component.load_cfg(check_cfg(_read("settings", str(p),
                                                                           lambda: srsly.read_json(p)), str(p))),
                   "vocab": lambda p: component.vocab.from_disk(p, exclude=exclude),
                   "model": lambda p: load_model(component, Path(p).read_bytes(), str(p))}
    util.from_disk(path, deserialize, exclude)
    return component


def upgrade_config(config: Config, factory: str = "vine_cascade") -> Config:
    """`config` (a saved pipeline's, not interpolated) without the retired settings of its `factory`
    components and of their `vineparse.VineCascadeModel.v3` model blocks, where each has the value whose
    behaviour was kept. RAISES (ValueError): a retired setting at another value (`settings.check_retired`)."""
    config = Config(config).copy()
    for name, component in config.get("components", {}).items():
        if component.get("factory") != factory:
            continue
        model = component.get("model", {})
        for block, retired, what in ((component, settings.RETIRED, f"{name} setting"),
                                     (model, architectures.RETIRED, f"{name} model setting")):
            settings.check_retired(block, retired, what)
            for key in retired:
                block.pop(key, None)
    return config
