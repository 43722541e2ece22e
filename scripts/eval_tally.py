"""How well the how-often count's nearness (`search/tally.NEAR`) tells a sentence about a
topic from one that is not, against sentences labelled by reading them.

    .venv/bin/python scripts/eval_tally.py INDEX --sample OUT.jsonl --topics "artificial intelligence" ...
    .venv/bin/python scripts/eval_tally.py INDEX --labels docs/eval_runs/tally_labels.jsonl

--sample writes, for each topic, `--per` sentences of each band of nearness (0.35-0.40,
0.40-0.45, 0.45-0.50, 0.50 and over; statements of `tally.MIN_WORDS` words or more, not
formulas: the ones the count reads), chosen evenly through the band, with "about": null
to fill in. --labels reads such a file, labelled, and prints per band how many are about
their topic, then, for each threshold, the precision of counting by nearness alone (the
share of the counted sentences that are about the topic) and how many sentences of the
index it counts per topic. The index must be the one the file was sampled from."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from graphrag_local import api
from graphrag_local.search import tally
from graphrag_local.sentences import is_statement, unlabelled, word_count

BANDS = [(0.35, 0.40), (0.40, 0.45), (0.45, 0.50), (0.50, 1.01)]
THRESHOLDS = (0.40, 0.45, 0.50)


def nearness(session, topic: str) -> tuple[np.ndarray, list[int]]:
    s = session.sentences
    sims = s.plain_similarity(session.vector(topic))
    formulas = s.formulaic()
    rows = [r for r in range(len(s)) if not formulas[r] and is_statement(s.text(r))
            and word_count(unlabelled(s.text(r))) >= tally.MIN_WORDS]
    return sims, rows


def sample(session, topics: list[str], per: int, out: Path) -> None:
    lines = []
    for topic in topics:
        sims, rows = nearness(session, topic)
        for lo, hi in BANDS:
            band = sorted((r for r in rows if lo <= sims[r] < hi), key=lambda r: -sims[r])
            step = max(1, len(band) // per)
            for r in band[::step][:per]:
                lines.append({"topic": topic, "nearness": round(float(sims[r]), 3),
                              "sentence": session.sentences.text(r), "about": None})
    out.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    print(f"{len(lines)} sentences to label in {out}")


def report(session, labels: Path) -> None:
    rows = [json.loads(x) for x in labels.read_text().splitlines() if x.strip()]
    rows = [r for r in rows if r["about"] is not None]
    print(f"{len(rows)} labelled sentences, {len({r['topic'] for r in rows})} topics")
    for lo, hi in BANDS:
        band = [r for r in rows if lo <= r["nearness"] < hi]
        about = sum(r["about"] for r in band)
        print(f"  nearness {lo:.2f}-{min(hi, 1.0):.2f}: {about} of {len(band)} about their topic")
    for t in THRESHOLDS:
        kept = [r for r in rows if r["nearness"] >= t]
        share = sum(r["about"] for r in kept) / len(kept) if kept else 0.0
        print(f"  counted from {t:.2f}: {sum(r['about'] for r in kept)} of {len(kept)} "
              f"sampled about their topic ({share:.2f}; bands sampled evenly, not weighted)")
    for topic in sorted({r["topic"] for r in rows}):
        sims, usable = nearness(session, topic)
        counts = ", ".join(f"{t:.2f}: {sum(sims[r] >= t for r in usable)}" for t in THRESHOLDS)
        print(f"  {topic!r}: sentences counted by nearness alone {counts}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("index", type=Path)
    ap.add_argument("--topics", nargs="*", default=[])
    ap.add_argument("--per", type=int, default=6)
    ap.add_argument("--sample", type=Path)
    ap.add_argument("--labels", type=Path)
    args = ap.parse_args()
    session = api.open_session(args.index)
    try:
        if args.sample:
            sample(session, args.topics, args.per, args.sample)
        if args.labels:
            report(session, args.labels)
    finally:
        session.close()


if __name__ == "__main__":
    main()
