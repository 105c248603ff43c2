"""`spacy package` on a trained vine_cascade pipeline gives a package that pip installs and `spacy.load` finds
by name (what `make package` does for the EWT pipeline)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from spacy.tokens import Doc

from .test_registration import fresh_python


def run(command, cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (result.stdout[-2000:], result.stderr[-3000:])
    return result


def test_spacy_package_builds_a_package_that_loads_by_name(trained, tmp_path):
    nlp, examples = trained
    nlp.meta["name"] = "vine_tiny"
    nlp.meta["version"] = "0.0.1"
    nlp.to_disk(tmp_path / "pipeline")
    (tmp_path / "dist").mkdir()
    run([sys.executable, "-m", "spacy", "package", str(tmp_path / "pipeline"), str(tmp_path / "dist"),
         "--build", "sdist", "--force"], tmp_path)
    archives = list((tmp_path / "dist").glob("en_vine_tiny-0.0.1/dist/en_vine_tiny-0.0.1.tar.gz"))
    assert len(archives) == 1
    meta = json.loads((tmp_path / "dist" / "en_vine_tiny-0.0.1" / "meta.json").read_text())
    assert any(req.startswith("vineparse") for req in meta["requirements"])     # found from the config
    site = tmp_path / "site"
    run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target",
         str(site), str(archives[0])], tmp_path)
    words = [t.text for t in examples[60].predicted]
    expected = [t.head.i for t in nlp(Doc(nlp.vocab, words=words))]
    out = fresh_python(f"""
        import json, sys
        sys.path.insert(0, {str(site)!r})
        import spacy
        from spacy.tokens import Doc
        nlp = spacy.load("en_vine_tiny")
        doc = nlp(Doc(nlp.vocab, words={words!r}))
        print(json.dumps([nlp.pipe_names, [t.head.i for t in doc]]))
    """, tmp_path)
    names, heads = json.loads(out.strip().splitlines()[-1])
    assert names == ["vine_cascade"] and heads == expected
