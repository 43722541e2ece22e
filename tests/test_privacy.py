"""Private files: with a umask of 022 (what most systems use), the index, exports, the
graph page and eval run folders come out readable by their owner only (folders 0700,
files 0600); `private = false` leaves the umask's modes (0755/0644). Built through
`api.build` with the fake model and the hash embedder; the real build's modes are checked
in test_e2e_airgap.py."""

import os
import stat
from pathlib import Path

import pytest
from conftest import copy_corpus
from fakes import FakeChatModel, HashEmbedder
from test_pipeline import scripted

from graphrag_local import api, resources
from graphrag_local.eval import commands
from graphrag_local.eval.report import build_report
from graphrag_local.graph_view import write_graph_html
from graphrag_local.model_info import ModelInfo
from graphrag_local.models import embed
from graphrag_local.models.presets import Preset
from graphrag_local.private import loose_modes, make_private_dir, private_files


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.fixture
def fake_models(monkeypatch):
    """api.build and friends with the fake model (abstractive, free names) and the hash
    embedder; no GGUF is read."""
    monkeypatch.setattr(api, "model_info",
                        lambda settings: ModelInfo(Preset(name="fake"), Path("m.gguf"), "sha"))
    monkeypatch.setattr(api, "open_chat_model",
                        lambda info, seed: FakeChatModel(default=scripted))
    monkeypatch.setattr(embed, "MiniLMEmbedder", lambda batch_size=32: HashEmbedder())


def modes(root: Path) -> tuple[set[int], set[int]]:
    """The permission bits of the folders and of the files under `root` (itself included)."""
    dirs, files = set(), set()
    for p in [root, *root.rglob("*")]:
        mode = p.lstat().st_mode
        (dirs if stat.S_ISDIR(mode) else files).add(stat.S_IMODE(mode))
    return dirs, files


def write_everything(tmp_path: Path, config: Path | None = None) -> dict[str, Path]:
    docs = copy_corpus(tmp_path / "docs", names={"01_water_trust.md", "05_lantern_festival.md"})
    index = tmp_path / "work" / "idx"
    api.build(docs, index, config=config)
    written = {"index": index, "graph": tmp_path / "graph" / "graph.html"}
    for fmt in ("graphrag", "graphml", "csv"):
        written[fmt] = tmp_path / "exports" / fmt
        api.export(index, fmt, written[fmt])
    write_graph_html(api.show(index, "graph")["payload"], written["graph"])
    written["eval"] = tmp_path / "runs" / "faithfulness"
    commands.faithfulness(index, out=written["eval"])
    written["report"] = tmp_path / "runs" / "report" / "evaluation.md"
    build_report([written["eval"]], written["report"])
    return written


def test_index_exports_graph_and_eval_runs_are_private(tmp_path, umask_022, fake_models,
                                                        monkeypatch):
    monkeypatch.chdir(tmp_path)  # no graphrag-local.toml here: the default, private
    written = write_everything(tmp_path)
    for what in ("index", "graphrag", "graphml", "csv", "eval"):
        dirs, files = modes(written[what])
        assert dirs == {0o700} and files == {0o600}, (what, dirs, files)
        assert not loose_modes(written[what])
    for what in ("graph", "report"):  # the file, and the folder made for it
        assert modes(written[what].parent) == ({0o700}, {0o600}), what
    assert (written["index"] / "manifest.json").is_file()
    assert {p.name for p in (written["index"] / "lancedb").iterdir()} >= {"entities.lance"}
    assert os.umask(0o022) == 0o022  # restored after every write


def test_private_false_leaves_the_umask_modes(tmp_path, umask_022, fake_models, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "graphrag-local.toml").write_text("private = false\n")
    written = write_everything(tmp_path)
    for what in ("index", "graphrag", "graphml", "csv", "eval"):
        dirs, files = modes(written[what])
        assert dirs == {0o755}, (what, dirs)
        assert 0o644 in files and files <= {0o644, 0o600}, (what, files)
    assert modes(written["index"] / "lancedb")[1] == {0o644}  # LanceDB's files too
    for what in ("graph", "report"):
        assert modes(written[what].parent) == ({0o755}, {0o644}), what


def test_an_existing_index_folder_is_made_private_on_build(tmp_path, umask_022, fake_models,
                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    index = tmp_path / "idx"
    index.mkdir(mode=0o755)
    docs = copy_corpus(tmp_path / "docs", names={"01_water_trust.md"})
    api.build(docs, index)
    assert stat.S_IMODE(index.stat().st_mode) == 0o700
    # and an explicit config file's setting wins over the default
    cfg = tmp_path / "shared.toml"
    cfg.write_text("private = false\n")
    shared = tmp_path / "shared-idx"
    api.build(docs, shared, config=cfg)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755


def test_private_files_sets_and_restores_the_umask(tmp_path, umask_022):
    with private_files(True):
        (tmp_path / "a").mkdir()
        (tmp_path / "a" / "f").write_text("x")
        assert os.umask(0o077) == 0o077
    with private_files(False):
        (tmp_path / "b").mkdir()
    assert os.umask(0o022) == 0o022
    assert modes(tmp_path / "a") == ({0o700}, {0o600})
    assert modes(tmp_path / "b") == ({0o755}, set())
    with pytest.raises(RuntimeError), private_files(True):
        raise RuntimeError("boom")
    assert os.umask(0o022) == 0o022  # restored on errors too


def test_make_private_dir_creates_and_tightens(tmp_path, umask_022):
    made = make_private_dir(tmp_path / "x" / "y")
    assert modes(tmp_path / "x") == ({0o700}, set())
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o755)
    make_private_dir(loose)
    assert stat.S_IMODE(loose.stat().st_mode) == 0o700 and made.is_dir()
    read_only = tmp_path / "read-only"
    read_only.mkdir(mode=0o555)
    make_private_dir(read_only)  # stays read-only for its owner
    assert stat.S_IMODE(read_only.stat().st_mode) == 0o500


def test_user_config_and_cache_folders_are_private(tmp_path, umask_022, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_LOCAL_HOME", str(tmp_path / "home"))
    assert stat.S_IMODE(resources.user_config_dir().stat().st_mode) == 0o700
    cache = resources.user_cache_dir()
    cache.chmod(0o755)
    assert stat.S_IMODE(resources.user_cache_dir().stat().st_mode) == 0o700
    # a home where nothing can be created: the path still comes back (writers report)
    monkeypatch.setenv("GRAPHRAG_LOCAL_HOME", str(tmp_path / "file"))
    (tmp_path / "file").write_text("")
    assert resources.user_cache_dir() == tmp_path / "file" / "cache"


def test_init_documents_the_setting(tmp_path):
    api.init_project(tmp_path)
    text = (tmp_path / "graphrag-local.toml").read_text()
    assert "# private = true" in text and "\nprivate = true\n" in text


def test_show_graph_follows_the_config_it_is_given(tmp_path, umask_022, fake_models, monkeypatch):
    from cli_helpers import run

    monkeypatch.chdir(tmp_path)  # no graphrag-local.toml here: private by default
    docs = copy_corpus(tmp_path / "docs", names={"01_water_trust.md"})
    api.build(docs, tmp_path / "idx")
    public = tmp_path / "public.toml"
    public.write_text("private = false\n")
    assert run("show", "graph", "--index", tmp_path / "idx", "--out", tmp_path / "a.html",
               "--config", public).exit_code == 0
    assert run("show", "graph", "--index", tmp_path / "idx", "--out",
               tmp_path / "b.html").exit_code == 0
    assert stat.S_IMODE((tmp_path / "a.html").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "b.html").stat().st_mode) == 0o600
