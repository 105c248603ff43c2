"""The built wheel installs into a clean virtual environment and parses there.

`make test` (and `make dist`) leave the wheel they built in dist/; this test installs it, with the
dependencies it declares, into a new virtual environment (no system site-packages, no pip, nothing of this
repository on sys.path), then, from an empty folder with `python -I`:

* `python -m vineparse --help` works;
* spaCy finds `vine_cascade` through the wheel's entry points (no import of vineparse first), trains it for a
  few steps on a handful of gold docs and parses a text into trees;
* vineparse is imported from the new environment, not from the source tree.

The dependencies are installed by this interpreter's pip into the new environment (`pip --python`), without
compiling .pyc files: the packages are the ones a user gets, and pip's cache makes the install take seconds.
The test skips (saying why) only when dist/ holds no wheel for this Python, i.e. when run outside `make`.
"""
import json
import os
import subprocess
import sys
import sysconfig
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON_TAG = f"cp{sys.version_info.major}{sys.version_info.minor}"

PARSE = textwrap.dedent("""
    import json, sys
    import spacy
    from spacy.tokens import Doc
    from spacy.training import Example

    nlp = spacy.blank("en")
    nlp.add_pipe("vine_cascade")           # found through the wheel's spacy_factories entry point
    gold = [
        (["She", "sleeps", "."], [1, 1, 1], ["nsubj", "ROOT", "punct"]),
        (["The", "cat", "sat", "on", "the", "mat", "."], [1, 2, 2, 5, 5, 2, 2],
         ["det", "nsubj", "ROOT", "case", "det", "obl", "punct"]),
        (["Dogs", "bark", "at", "night", "."], [1, 1, 3, 1, 1], ["nsubj", "ROOT", "case", "obl", "punct"]),
        (["I", "read", "a", "long", "book", "."], [1, 1, 4, 4, 1, 1], ["nsubj", "ROOT", "det", "amod", "obj", "punct"]),
    ]
    examples = [Example(Doc(nlp.vocab, words=w), Doc(nlp.vocab, words=w, heads=h, deps=d)) for w, h, d in gold]
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(5):
        nlp.update(examples, sgd=optimizer)
    docs = [nlp("The dog sat on the old mat ."), *nlp.pipe(["She reads a book .", "Cats sleep ."])]

    import vineparse
    print(json.dumps({"file": vineparse.__file__, "prefix": sys.prefix,
                      "docs": [{"heads": [t.head.i for t in doc], "deps": [t.dep_ for t in doc],
                                "sents": [[s.start, s.end] for s in doc.sents]} for doc in docs]}))
""")


def wheel_for_this_python() -> Path:
    wheels = sorted((ROOT / "dist").glob(f"vineparse-*-{PYTHON_TAG}-*.whl"))
    if not wheels:
        pytest.skip(f"no vineparse wheel for {PYTHON_TAG} in dist/: `make test` or `make dist` builds one")
    return max(wheels, key=lambda path: path.stat().st_mtime)


def clean_env() -> dict:
    """The environment without anything that would put the source tree or another environment on sys.path."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONUSERBASE")}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def check_trees(parsed: dict) -> None:
    for doc in parsed["docs"]:
        heads, n = doc["heads"], len(doc["heads"])
        assert all(0 <= h < n for h in heads), heads
        for start, end in doc["sents"]:
            roots = [i for i in range(start, end) if heads[i] == i]
            assert len(roots) == 1, f"sentence {start}-{end} has roots {roots}: heads {heads}"
            assert all(start <= heads[i] < end for i in range(start, end)), heads
            for i in range(start, end):          # every word reaches the root: no cycle
                seen, j = set(), i
                while heads[j] != j:
                    assert j not in seen, f"cycle through {j}: heads {heads}"
                    seen.add(j)
                    j = heads[j]
        assert sum(len(range(*span)) for span in doc["sents"]) == n
        assert all(dep for dep in doc["deps"]), doc["deps"]


def test_wheel_installs_into_a_clean_venv_and_parses(tmp_path):
    wheel = wheel_for_this_python()
    start = time.perf_counter()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, env=clean_env())
    python = venv / "bin" / "python"
    config = json.loads(subprocess.run([str(python), "-I", "-c", "import json, sys; print(json.dumps("
                                        "{'prefix': sys.prefix, 'base': sys.base_prefix, 'path': sys.path}))"],
                                       check=True, capture_output=True, text=True, env=clean_env()).stdout)
    site = sysconfig.get_paths()["purelib"]
    assert config["prefix"] != config["base"] and site not in config["path"], "not an isolated environment"
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                              "--no-compile", "--disable-pip-version-check", str(wheel)],
                             capture_output=True, text=True, env=clean_env(), timeout=900)
    assert install.returncode == 0, f"pip install {wheel.name} failed:\n{install.stdout}\n{install.stderr}"
    installed = time.perf_counter()

    work = tmp_path / "work"          # an empty folder: nothing of the repository is importable from here
    work.mkdir()
    help_ = subprocess.run([str(python), "-I", "-m", "vineparse", "--help"], cwd=work, capture_output=True,
                           text=True, env=clean_env(), timeout=300)
    assert help_.returncode == 0, help_.stderr
    assert "parse-corpus" in help_.stdout and "train" in help_.stdout

    run = subprocess.run([str(python), "-I", "-c", PARSE], cwd=work, capture_output=True, text=True,
                         env=clean_env(), timeout=600)
    assert run.returncode == 0, run.stderr[-4000:]
    parsed = json.loads(run.stdout.strip().splitlines()[-1])
    assert Path(parsed["file"]).resolve().is_relative_to(Path(parsed["prefix"]).resolve()), parsed["file"]
    assert not Path(parsed["file"]).resolve().is_relative_to(ROOT), parsed["file"]
    check_trees(parsed)
    print(f"\nrelease test: venv + install {installed - start:.1f}s, help + parse {time.perf_counter() - installed:.1f}s")
