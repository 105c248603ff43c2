import pytest

from vineparse.corpus import CorpusNotFoundError, corpora_root, corpus_path, ptb_sample_files
from vineparse.corpus import locate


@pytest.fixture
def layout(tmp_path, monkeypatch):
    """An isolated world: a repository at tmp/repo (its package root), the working directory tmp/work,
    and no VINEPARSE_CORPORA. Returns a function making a corpora file under a directory."""
    repo, work = tmp_path / "repo", tmp_path / "work"
    repo.mkdir()
    work.mkdir()
    monkeypatch.setattr(locate, "_repository_root", lambda: repo)
    monkeypatch.chdir(work)
    monkeypatch.delenv("VINEPARSE_CORPORA", raising=False)

    def make(directory, relative="tb/a.conllu"):
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
        return path

    make.root = tmp_path
    return make


def test_environment_variable_comes_first(layout, monkeypatch):
    root = layout.root
    env_file = layout(root / "env")
    layout(root / "shared" / "corpora")  # next to both repo and work: searched after the variable
    monkeypatch.setenv("VINEPARSE_CORPORA", str(root / "env"))
    assert corpus_path("tb", "a.conllu") == env_file.resolve()
    assert corpora_root() == (root / "env").resolve()


def test_falls_back_to_shared_corpora_next_to_the_repository(layout, monkeypatch, tmp_path):
    # The repository sits in tmp/nest/repo so that its ../shared differs from the working directory's.
    repo = tmp_path / "nest" / "repo"
    repo.mkdir(parents=True)
    monkeypatch.setattr(locate, "_repository_root", lambda: repo)
    found = layout(tmp_path / "nest" / "shared" / "corpora")
    layout(tmp_path / "shared" / "corpora")  # next to the working directory: searched later
    assert corpus_path("tb/a.conllu") == found.resolve()


def test_finds_shared_corpora_next_to_the_working_directory_when_installed(layout, monkeypatch, tmp_path):
    site = tmp_path / "venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    monkeypatch.setattr(locate, "_repository_root", lambda: site)
    found = layout(tmp_path / "shared" / "corpora")
    assert corpus_path("tb", "a.conllu") == found.resolve()


def test_falls_back_to_corpora_inside_the_repository(layout):
    found = layout(layout.root / "repo" / "corpora")
    assert corpus_path("tb", "a.conllu") == found.resolve()
    assert corpora_root() == (layout.root / "repo" / "corpora").resolve()


def test_a_directory_missing_the_file_is_skipped(layout, monkeypatch):
    root = layout.root
    (root / "env").mkdir()
    monkeypatch.setenv("VINEPARSE_CORPORA", str(root / "env"))
    found = layout(root / "repo" / "corpora")
    assert corpus_path("tb", "a.conllu") == found.resolve()


def test_empty_environment_variable_is_ignored(layout, monkeypatch):
    monkeypatch.setenv("VINEPARSE_CORPORA", "  ")
    assert [why for _, why in locate.search_path()][0] == "next to the repository"


def test_not_found_lists_every_place_and_how_to_fix_it(layout, monkeypatch):
    root = layout.root
    monkeypatch.setenv("VINEPARSE_CORPORA", str(root / "env"))
    with pytest.raises(CorpusNotFoundError) as info:
        corpus_path("ud-english-ewt", "en_ewt-ud-train.conllu")
    assert isinstance(info.value, FileNotFoundError)
    message = str(info.value)
    assert message.startswith("Corpus file 'ud-english-ewt/en_ewt-ud-train.conllu' not found. Looked in:")
    for place in [root / "env", root / "shared" / "corpora", root / "repo" / "corpora", root / "work" / "corpora"]:
        assert f"  - {place.resolve()}  (" in message
    # repo/../shared/corpora and work/../shared/corpora are the same place here: listed once.
    assert message.count(str((root / "shared" / "corpora").resolve())) == 1
    assert "Set VINEPARSE_CORPORA to the directory holding the corpora" in message


def test_corpora_root_not_found(layout):
    with pytest.raises(CorpusNotFoundError, match="No corpora directory not found. Looked in:"):
        corpora_root()


@pytest.mark.parametrize("parts,message", [((), "at least one path component"), (("/abs/file",), "relative")])
def test_corpus_path_rejects_bad_arguments(parts, message):
    with pytest.raises(ValueError, match=message):
        corpus_path(*parts)


def test_ptb_sample_files_section_split_on_the_real_sample():
    train, test, every = (ptb_sample_files("constituency", s) for s in ("train", "test", "all"))
    assert (len(train), len(test), len(every)) == (179, 20, 199)
    assert train[0].name == "wsj_0001.mrg" and train[-1].name == "wsj_0179.mrg"
    assert test[0].name == "wsj_0180.mrg" and test[-1].name == "wsj_0199.mrg"
    assert train + test == every
    assert ptb_sample_files("dependency", "test")[0].name == "wsj_0180.dp"


def test_ptb_sample_files_errors(layout, monkeypatch):
    directory = layout.root / "env" / "ptb-sample" / "dependency"
    directory.mkdir(parents=True)
    for number in range(180, 199):  # wsj_0199.dp is missing
        (directory / f"wsj_{number:04d}.dp").write_text("")
    monkeypatch.setenv("VINEPARSE_CORPORA", str(layout.root / "env"))
    missing = r"1 file\(s\) of the PTB sample section 'test' missing from .*dependency: wsj_0199.dp$"
    with pytest.raises(CorpusNotFoundError, match=missing):
        ptb_sample_files("dependency", "test")
    unknown = r"unknown PTB sample section 'dev'; expected one of \['all', 'test', 'train'\]"
    with pytest.raises(ValueError, match=unknown):
        ptb_sample_files("dependency", "dev")
    with pytest.raises(ValueError, match="unknown PTB sample kind 'trees'"):
        ptb_sample_files("trees", "test")
