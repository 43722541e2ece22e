"""Write a hostile document for the memory benchmark: real text (the Kevin Scott podcast
transcripts, A Christmas Carol, Re-DocRED's documents from ../shared/data) as ONE line
of about `--mb` megabytes, no line break anywhere. Past the first pass the text comes
again lower-cased, so its sentences stay distinct (the embedding cache dedupes repeats).

    .venv/bin/python scripts/hostile_line.py /tmp/line/one_line.txt --mb 10
    .venv/bin/python scripts/bench_build.py /tmp/line/one_line.txt --tokens 0 --method fast
"""

from __future__ import annotations

import argparse
import json
import re
import zipfile
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def real_text() -> str:
    parts = []
    with zipfile.ZipFile(DATA / "kevin_scott_podcasts" / "transcripts.zip") as z:
        for name in sorted(z.namelist()):
            if not name.endswith("/"):
                parts.append(z.read(name).decode("utf-8", errors="replace"))
    parts.append((DATA / "christmas_carol" / "a_christmas_carol.txt").read_text(encoding="utf-8"))
    for doc in json.loads((DATA / "re_docred" / "dev_revised.json").read_text(encoding="utf-8")):
        parts.append(" ".join(" ".join(s) for s in doc["sents"]))
    return re.sub(r"\s+", " ", " ".join(parts))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--mb", type=float, default=10.0)
    args = ap.parse_args()
    text, want = real_text(), int(args.mb * 1_000_000)
    out, turn = [], 0
    while sum(map(len, out)) < want:
        out.append(text if turn == 0 else text.lower() if turn == 1 else text.upper())
        turn += 1
    line = " ".join(out)[:want]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(line, encoding="utf-8")
    print(f"{args.out}: {len(line.encode()):,} bytes on one line")


if __name__ == "__main__":
    main()
