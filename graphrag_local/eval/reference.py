"""Our index against a microsoft/graphrag index of the same text (its parquet output, e.g.
GPT-4's index of A Christmas Carol in ../shared/data/christmas_carol/graphrag_reference):

- summaries: for each of the reference's largest level-0 communities, its report
  summary's key entities (the reference's entities its summary names) and how many of
  them our matching level-0 report's summary names; the match is our community sharing
  the most members with it (entity names compared case- and punctuation-insensitively);
- an answer's themes: which of those communities an answer names, by any of a
  community's key entities (its three highest-degree entities);
- an answer's lines (`lines`): how many cite, and how many of its written ones (not under a
  topic marked quoted) are copies: `COPIED` of the line or more one run of words of a
  chunk it cites.

A yardstick, not gold: the reference was written by another system's model."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

from ..errors import InputError
from ..language.messages import QUOTED, QUOTED_BELOW
from ..stages.ground import contains, normalise


@dataclass(frozen=True)
class RefCommunity:
    community: int
    level: int
    size: int
    title: str
    summary: str
    entities: tuple[str, ...]  # by degree, highest first
    key_entities: tuple[str, ...]  # the three highest-degree ones
    summary_entities: tuple[str, ...]  # the entities its summary names


def names(text: str, name: str) -> bool:
    return contains(normalise(text), normalise(name))


def load_reference(folder: Path, level: int = 0) -> list[RefCommunity]:
    """The reference's communities of `level`, largest first."""
    import pyarrow.parquet as pq

    try:
        comms = pq.read_table(folder / "communities.parquet").to_pylist()
        reports = {r["community"]: r for r in pq.read_table(folder / "community_reports.parquet").to_pylist()}
        ents = {e["id"]: e for e in pq.read_table(folder / "entities.parquet").to_pylist()}
    except (OSError, KeyError) as exc:
        raise InputError(f"{folder}: not a microsoft/graphrag output folder ({exc})") from None
    out = []
    for c in comms:
        if c["level"] != level or c["community"] not in reports:
            continue
        members = sorted((ents[i] for i in c["entity_ids"] if i in ents),
                         key=lambda e: (-e["degree"], e["title"]))
        titles = tuple(e["title"] for e in members)
        summary = reports[c["community"]]["summary"] or ""
        out.append(RefCommunity(
            c["community"], c["level"], len(titles), reports[c["community"]]["title"], summary,
            titles, titles[:3], tuple(t for t in titles if names(summary, t)),
        ))
    return sorted(out, key=lambda c: (-c.size, c.community))


def match(ref: RefCommunity, ours: list[tuple[str, tuple[str, ...]]]) -> tuple[str, float]:
    """Our community (id, members) sharing the most members with `ref` (Jaccard)."""
    theirs = {normalise(t) for t in ref.entities}
    best, score = "", 0.0
    for cid, members in ours:
        mine = {normalise(m) for m in members}
        j = len(mine & theirs) / len(mine | theirs) if mine | theirs else 0.0
        if j > score:
            best, score = cid, j
    return best, score


def summary_recall(reference: list[RefCommunity], ours: list[tuple[str, tuple[str, ...]]],
                   summaries: dict[str, str], top: int = 10) -> dict:
    """Per reference community (the `top` largest): how many of its summary's key
    entities our matching summary names."""
    rows = []
    for ref in reference[:top]:
        cid, overlap = match(ref, ours)
        wanted = ref.summary_entities
        text = summaries.get(cid, "")
        found = [e for e in wanted if names(text, e)]
        rows.append({
            "community": ref.community, "title": ref.title, "size": ref.size,
            "key_entities": list(wanted), "ours": cid, "overlap": round(overlap, 3),
            "named": found, "recall": round(len(found) / len(wanted), 3) if wanted else None,
            "our_summary": text,
        })
    scored = [r["recall"] for r in rows if r["recall"] is not None]
    return {"communities": rows,
            "mean_recall": round(sum(scored) / len(scored), 3) if scored else None,
            "named": sum(len(r["named"]) for r in rows),
            "wanted": sum(len(r["key_entities"]) for r in rows)}


def themes_named(reference: list[RefCommunity], answer: str, top: int = 10) -> dict:
    """Which of the `top` largest reference communities `answer` names, by any of their
    key entities."""
    rows = []
    for ref in reference[:top]:
        hit = [e for e in ref.key_entities if names(answer, e)]
        rows.append({"community": ref.community, "title": ref.title, "size": ref.size,
                     "key_entities": list(ref.key_entities), "named_by": hit})
    return {"communities": rows, "named": sum(bool(r["named_by"]) for r in rows), "of": len(rows)}


COPIED = 0.8  # a written line this much one run of words of what it cites is a copy
_BULLET = re.compile(r"^- (?P<text>.*?)(?: \[(?P<refs>[^\]]+)\])?\s*$")
_WORDS = re.compile(r"\w+")


def _longest_run(line: list[str], text: list[str]) -> int:
    """The most words of `line` in a row that `text` says in a row."""
    match = SequenceMatcher(None, line, text, autojunk=False)
    return match.find_longest_match(0, len(line), 0, len(text)).size


def lines(answer: str, chunk_text: dict[str, str]) -> dict:
    """An answer's bullet lines: how many cite something, and of those written (not under a
    heading marked "(quoted)", nor after the quoted part of a focused answer) how many are
    copies of a chunk they cite (`COPIED`). `chunk_text`: a chunk citation's ref ("S3") ->
    its text."""
    total = citing = written = copies = 0
    below = topic_quoted = False
    for raw in answer.splitlines():
        if raw in QUOTED_BELOW.values():  # a focused answer's quotes, under its written lines
            below = True
        elif raw.startswith("**"):
            topic_quoted = any(f"({mark})" in raw for mark in QUOTED.values())
        if not (m := _BULLET.match(raw)):
            continue
        total += 1
        refs = [r.strip() for r in (m.group("refs") or "").split(",") if r.strip()]
        citing += bool(refs)
        if below or topic_quoted:
            continue
        written += 1
        words = [w.lower() for w in _WORDS.findall(m.group("text"))]
        run = max((_longest_run(words, [w.lower() for w in _WORDS.findall(chunk_text[r])])
                   for r in refs if r in chunk_text), default=0)
        copies += bool(words) and run / len(words) >= COPIED
    return {"lines": total, "citing": citing, "written": written, "copies": copies}
