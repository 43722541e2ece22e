"""Two choices a model makes when it extracts, against labels (issue 30, item 7): is a
candidate span a name, and the gleaning round's YES/NO. A preset whose model makes them at
chance should not be asked them (`glean_check = false`, models.toml).

    .venv/bin/python scripts/eval_choices.py --model PRESET [--spans-only | --glean-only]
        [--limit 100] [--offset 0]

- Spans: each span of docs/eval_runs/carol_spans.tsv (spans of A Christmas Carol that
  `candidate_names` finds, labelled NAME or NOT by reading them in the text) typed as the
  build types it (`type_names_many`: a cloze in its sentence, the entity types and "not
  an entity", the preset's bias), in the first 2,000-character window of the story where
  `candidate_names` finds it. Prints the NAMEs typed "not an entity", the NOTs typed an
  entity, and "Christmas Eve"'s type.
- Gleaning: for each Re-DocRED dev document (`--offset`, `--limit`) with doubtful spans
  (`doubtful_names`: pieces of longer names, words seen only at a sentence start), the
  gleaning YES/NO ("is any of them a name?") against whether one of them is a gold
  mention. The names it is told were found are the document's sure spans (a build tells
  it those the model typed: near enough, and a typing pass less).

Prints each figure and the seconds it took; the model runs alone (time it alone)."""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from graphrag_local import api
from graphrag_local.eval.extraction import gold_doc, load_docred
from graphrag_local.schema import Chunk, Document
from graphrag_local.stages.chunk import chunk_sentences
from graphrag_local.stages.classify import glean_prompt, type_names_many
from graphrag_local.stages.ground import candidate_names, doubtful_names, normalise

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
WINDOW = 2000  # characters: about a 500-token chunk


def one_chunk(key: str, text: str) -> tuple[Chunk, list]:
    """`text` as a document of one chunk, and its sentences (as `eval extraction` does)."""
    doc = Document(key, key, key, text, "utf-8", language="en")
    chunk = Chunk(key, key, key, 0, 0, 0, len(text) // 4, text, 0, len(text), language="en")
    return chunk, chunk_sentences([doc], [chunk])


def spans(model, prompts, settings, text: str, labels: list[tuple[str, str]]) -> None:
    body = text[text.index("STAVE ONE", text.index("STAVE ONE") + 1):]  # after the contents
    windows = [body[k:k + WINDOW] for k in range(0, len(body), WINDOW)]
    where: dict[int, list[str]] = {}
    for span, _label in labels:
        k = next((k for k, w in enumerate(windows) if span in candidate_names(w, language="en")),
                 None)
        if k is None:
            print(f"  not a candidate span of the text: {span!r}")
            continue
        where.setdefault(k, []).append(span)
    jobs = []
    for k, names in where.items():
        chunk, sentences = one_chunk(f"w{k}", windows[k])
        jobs.append((tuple(names), chunk.text, sentences))
    started = time.perf_counter()
    types = type_names_many(model, prompts, jobs, settings.extract.entity_types,
                            settings.extract.not_entity_bias, "type")
    seconds = time.perf_counter() - started
    typed = {n: t for (names, _, _), ts in zip(jobs, types) for n, t in zip(names, ts)}
    label = dict(labels)
    names = [n for n in typed if label[n] == "NAME"]
    nots = [n for n in typed if label[n] == "NOT"]
    missed = [n for n in names if not typed[n]]
    taken = [f"{n} ({typed[n]})" for n in nots if typed[n]]
    print(f"spans: {len(typed)} typed in {seconds:.0f} s; names typed an entity "
          f"{len(names) - len(missed)}/{len(names)}, not-names typed 'not an entity' "
          f"{len(nots) - len(taken)}/{len(nots)}; balanced accuracy "
          f"{((len(names) - len(missed)) / max(1, len(names)) + (len(nots) - len(taken)) / max(1, len(nots))) / 2:.2f}")
    print(f"  names it dropped: {', '.join(missed) or 'none'}")
    print(f"  not-names it kept: {', '.join(taken) or 'none'}")
    for n in ("Christmas Eve", "Cold Roast", "Baleful", "Feast"):
        if n in typed:
            print(f"  {n}: {typed[n] or 'not an entity'}")


def glean(model, prompts, gold_file: Path, offset: int, limit: int) -> None:
    docs = load_docred(gold_file)
    asks, truth = [], []
    for i in range(offset, min(offset + limit, len(docs))):
        gold = gold_doc(docs, i)
        doubtful = doubtful_names(gold.text, language="en")
        if not doubtful:
            continue
        mentions = {m for names in gold.entities for m in names}
        _chunk, sentences = one_chunk(f"d{i}", gold.text)
        asks.append(glean_prompt(prompts, list(candidate_names(gold.text, language="en")),
                                 doubtful, sentences))
        truth.append(any(normalise(d) in mentions for d in doubtful))
    started = time.perf_counter()
    yes = [a == 0 for a in model.choose(asks, (" YES", " NO"), purpose="glean_check")]
    seconds = time.perf_counter() - started
    pos = [y for y, t in zip(yes, truth) if t]
    neg = [y for y, t in zip(yes, truth) if not t]
    tpr, fpr = sum(pos) / max(1, len(pos)), sum(neg) / max(1, len(neg))
    print(f"gleaning YES/NO: {len(asks)} documents of dev {offset}-{offset + limit - 1} in "
          f"{seconds:.0f} s; YES for {sum(pos)} of {len(pos)} whose doubtful spans hold a gold "
          f"name, for {sum(neg)} of {len(neg)} whose do not; balanced accuracy "
          f"{(tpr + 1 - fpr) / 2:.2f} (chance 0.50)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--spans", type=Path, default=ROOT / "docs" / "eval_runs" / "carol_spans.tsv")
    ap.add_argument("--text", type=Path, default=SHARED / "christmas_carol" / "a_christmas_carol.txt")
    ap.add_argument("--gold", type=Path, default=SHARED / "re_docred" / "dev_revised.json")
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--bias", type=float, help="the \"not an entity\" bias (default: the "
                    "settings', -5: a span is a name unless the model is sure it is not)")
    ap.add_argument("--spans-only", action="store_true")
    ap.add_argument("--glean-only", action="store_true")
    args = ap.parse_args()
    settings = api.resolve_settings(None, args.model)
    if args.bias is not None:
        settings = replace(settings, extract=replace(settings.extract, not_entity_bias=args.bias))
    model = api.open_chat_model(api.model_info(settings), settings.seed)
    prompts = api.project_prompts(None)
    print(f"model {args.model}, not-an-entity bias {settings.extract.not_entity_bias}")
    if not args.glean_only:
        labels = [tuple(line.split("\t")[:2]) for line in
                  args.spans.read_text(encoding="utf-8").splitlines()
                  if line.strip() and not line.startswith("#")]
        spans(model, prompts, settings, args.text.read_text(encoding="utf-8"), labels)
    if not args.spans_only:
        glean(model, prompts, args.gold, args.offset, args.limit)


if __name__ == "__main__":
    main()
