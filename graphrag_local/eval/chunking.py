"""The paper's Figure 2: entity references extracted versus chunk size and number of
gleanings, on a fixed text. One extraction per chunk size with the largest number of
gleanings gives every smaller number too: gleaning rounds run in order and a run with G
gleanings is the same run stopped after round G (temperature 0, fixed seed)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from ..models import ChatModel
from ..prompts import Prompts
from ..schema import Document, content_id
from ..stages.chunk import chunk_documents
from ..stages.extract import ExtractOptions, extract_chunk
from ..stages.ground import normalise
from .extraction import first_round_records


def entity_references(
    model: ChatModel,
    prompts: Prompts,
    text: str,
    encoding,
    sizes: list[int],
    max_gleanings: int,
    opts: ExtractOptions,
    progress: Callable[[str], None] = lambda msg: None,
) -> list[dict]:
    """Rows (chunk_size, gleanings, entity_references, ...): references are the distinct
    entity names found per chunk after that many gleaning rounds, summed over chunks."""
    doc = Document(content_id("fig2", text), "text.txt", "text", text, "utf-8")
    opts = replace(opts, max_gleanings=max_gleanings, grounding=True)
    rows = []
    for size in sizes:
        chunks = chunk_documents([doc], encoding, size, 0)
        refs = [0] * (max_gleanings + 1)
        calls_before, started = len(model.calls), time.perf_counter()
        for i, chunk in enumerate(chunks):
            result = extract_chunk(model, prompts, chunk, opts, key=chunk.id)
            seen: set[str] = set()
            for g in range(max_gleanings + 1):
                if result.status == "ok" and g <= result.gleanings:
                    parsed = first_round_records(result.raw_replies[g], chunk.id)
                    seen |= {normalise(e.name) for e in (parsed[0] if parsed else [])}
                refs[g] += len(seen)
            progress(f"chunk size {size}: chunk {i + 1}/{len(chunks)}, {len(seen)} entities")
        calls = model.calls[calls_before:]
        for g in range(max_gleanings + 1):
            rows.append({
                "chunk_size": size, "gleanings": g, "entity_references": refs[g],
                "chunks": len(chunks), "llm_calls_all_rounds": len(calls),
                "seconds_all_rounds": round(time.perf_counter() - started, 1),
            })
    return rows


def figure(rows: list[dict], path) -> object | None:
    """Grouped bars: entity references per chunk size, one bar per number of gleanings."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    sizes = sorted({r["chunk_size"] for r in rows})
    gleanings = sorted({r["gleanings"] for r in rows})
    value = {(r["chunk_size"], r["gleanings"]): r["entity_references"] for r in rows}
    fig, ax = plt.subplots(figsize=(6, 3.6))
    width = 0.8 / len(gleanings)
    for k, g in enumerate(gleanings):
        xs = [i + (k - (len(gleanings) - 1) / 2) * width for i in range(len(sizes))]
        ax.bar(xs, [value.get((s, g), 0) for s in sizes], width, label=f"{g} gleanings")
    ax.set_xticks(range(len(sizes)), [str(s) for s in sizes])
    ax.set_xlabel("chunk size (tokens)")
    ax.set_ylabel("entity references detected")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
