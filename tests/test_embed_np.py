"""The numpy question embedder against sentence-transformers on the same weights: the
same vectors (cosine >= 0.9999) for real sentences in several scripts, alone and in a
batch of mixed lengths, truncated where sentence-transformers truncates; and a question
asked from the command line imports neither torch nor sentence_transformers. The
end-to-end tier: they load the real embedder both ways (torch alone takes seconds)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from graphrag_local import api
from graphrag_local.models import embed_np
from graphrag_local.models.embed import EMBEDDER_NAME, VECTOR_TOLERANCE

pytestmark = pytest.mark.e2e

EXE = Path(sys.executable).parent / "graphrag-local"

SENTENCES = [
    "Who is the chief engineer of the Aldren Water Trust?",
    "Tobias Renn is the chief engineer of the Aldren Water Trust.",
    "Café owner Zoë Marchand supplies the Lantern Festival in Port Aldren.",
    "阿Q正传是鲁迅的小说，写的是未庄的阿Q。",
    "谁是奥尔德伦水务信托的总工程师？",
    "Кто главный инженер водного треста Олдрен?",
    "Наводнение в Миллбруке разрушило мост через реку.",
    "Die Hafenbehörde stimmte im März gegen die Ausbaggerung der Bucht.",
    "東京の港は台風で閉鎖された。",
    "What are the main themes of these documents?",
    "  leading and trailing spaces are stripped  ",
    "x",
    # over 256 tokens: both stop at 256
    " ".join(["The Millbrook flood of 2019 closed the harbour road for nine days."] * 30),
]


@pytest.fixture(scope="module")
def both():
    if not embed_np.available():
        pytest.skip("all-MiniLM-L6-v2's safetensors weights are not installed")
    from graphrag_local.models.embed import MiniLMEmbedder

    return embed_np.NumpyMiniLM(), MiniLMEmbedder()


def test_same_vectors_as_sentence_transformers(both):
    ours, theirs = both
    a, b = ours.embed(SENTENCES), theirs.embed(SENTENCES)
    assert a.shape == b.shape == (len(SENTENCES), 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    cosines = (a * b).sum(axis=1)
    assert cosines.min() >= 0.9999, dict(zip(SENTENCES, cosines.round(6)))


def test_a_question_alone_equals_it_in_a_batch(both):
    ours, theirs = both
    batch = ours.embed(SENTENCES)
    for i in (0, 3, 5, len(SENTENCES) - 1):
        alone = ours.embed([SENTENCES[i]])[0]
        assert float(alone @ batch[i]) >= 0.99999
        assert float(alone @ theirs.embed([SENTENCES[i]])[0]) >= 0.9999


def test_company_moves_a_build_vector_by_less_than_the_tolerance(both):
    """The build embedder pads nothing (padding to a longer text moved a vector by ~6e-8)
    and batches texts of one length; the batch's size still moves the last bits on some
    CPUs (1.4e-7 on an Intel Xeon with AVX-512, 0 on AMD EPYC), so a text's vector alone,
    with any others and in any order is the same to within VECTOR_TOLERANCE."""
    _, theirs = both
    text = SENTENCES[0]
    alone = theirs.embed([text])[0]
    longer = "The River Aldren reaches the sea at Aldren Harbour, where the mud of the " \
             "Millbrook Flood made the harbour shallower than it had been in living memory."
    mixed = theirs.embed([longer, *SENTENCES[3:], text, "A cat."])
    for company in (mixed[-2], theirs.embed(SENTENCES)[0], theirs.embed([text, text, text])[1]):
        assert np.abs(company - alone).max() <= VECTOR_TOLERANCE


def test_same_name_and_size_as_the_index_embedder(both):
    ours, theirs = both
    assert ours.name == theirs.name == EMBEDDER_NAME and ours.dim == theirs.dim
    assert ours.embed([]).shape == (0, 384)


def test_questions_are_embedded_without_torch():
    """In a fresh process: the question embedder is the numpy one and loads no torch."""
    if not embed_np.available():
        pytest.skip("all-MiniLM-L6-v2's safetensors weights are not installed")
    code = ("import sys; from graphrag_local import api, query, cli; "
            "e = api.question_embedder(); v = e.embed(['Who is Mara Quill?']); "
            "print(type(e).__name__, v.shape, "
            "sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["NumpyMiniLM", "(1,", "384)", "[]"], out.stdout + out.stderr


def test_the_torch_embedder_when_the_weights_are_missing(monkeypatch):
    from graphrag_local.models import embed

    class Stand:
        def __init__(self, batch_size):
            self.batch_size = batch_size

    monkeypatch.setattr(embed_np, "model_dir", lambda: None)
    monkeypatch.setattr(embed, "MiniLMEmbedder", Stand)
    assert isinstance(api.question_embedder(8), Stand)


def test_a_one_shot_query_imports_no_torch(e2e):
    """The installed executable answers a basic question on the sample index with no
    torch, sentence_transformers or transformers imported (Python's own import log)."""
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1", "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [str(EXE), "query", "--local", "--index", str(e2e["index"]), "--method", "basic",
         "Who is the chief engineer of the Aldren Water Trust?"],
        capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Tobias Renn" in out.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines()
                if line.startswith("import time:")}
    assert imported and not imported & {"torch", "sentence_transformers", "transformers"}
