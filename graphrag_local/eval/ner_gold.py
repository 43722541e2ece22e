"""Gold named-entity sets in other languages than English, read into the `GoldDoc` shape
that `extraction.py` scores, so `graphrag-local eval extraction` takes them beside Re-DocRED.

Three formats, told apart by the file:
- `.iob2`: Universal NER (CoNLL-U-like: `# text = ...` comment lines, then one token a
  line, TAB-separated `index token IOB2-tag - annotator`, a blank line after a sentence).
- `.bio`: `token TAG` a line with no sentence breaks (Europeana Newspapers' OCR, IO tags:
  I-PER I-PER is one name); a sentence ends after a `.`, `!` or `?` token.
- `.json`: Stockmark's Japanese Wikipedia NER (`[{text, entities: [{name, span, type}]}]`);
  a JSON file of Re-DocRED documents (`vertexSet`) is read as Re-DocRED.

A sentence's text is the file's own (`# text`, the JSON's `text`) where it gives one;
otherwise its tokens joined with spaces (`extraction.detokenise`), without a space beside
Chinese or Japanese characters. Sentences are grouped in file order into documents of
SENTENCES_PER_DOC, so each is one chunk of a realistic size. NER marks mentions, not
entities: a gold entity is a distinct normalised name within its document, typed by its
first mention in Re-DocRED's codes (PER, ORG, LOC), so `extraction.Score` compares our
types unchanged; other types (MISC, products, events) stay gold entities without a type to
compare. NER sets relate nothing, so relationship figures on them are zero."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..language.detect import detect_language
from ..stages.ground import normalise
from .extraction import GoldDoc, detokenise, gold_doc, select

SENTENCES_PER_DOC = 10
# gold types -> Re-DocRED's codes (extraction.TYPE_MAP maps those onto ours); a facility
# (施設名: a station, a temple) is a place as Re-DocRED's LOC is
GOLD_TYPES = {
    "PER": "PER", "PERSON": "PER", "人名": "PER",
    "ORG": "ORG", "ORGANIZATION": "ORG", "法人名": "ORG", "政治的組織名": "ORG",
    "その他の組織名": "ORG",
    "LOC": "LOC", "LOCATION": "LOC", "GPE": "LOC", "GEO": "LOC", "地名": "LOC", "施設名": "LOC",
}
_SENTENCE_END = {".", "!", "?"}
_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


@dataclass(frozen=True)
class Sentence:
    text: str
    mentions: tuple[tuple[str, str], ...]  # (name as written, gold type as in the file)


def load_golds(path: Path, limit: int, offset: int = 0) -> tuple[str, list[GoldDoc]]:
    """(what the file is, its gold documents `offset` to `offset + limit`), for Re-DocRED
    and the NER formats alike. Raises ValueError, KeyError or TypeError on other data."""
    path = Path(path)
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, list):
            raise TypeError("expected a JSON list")
        if data and "vertexSet" in data[0]:
            return "Re-DocRED", [gold_doc(data, i) for i in select(data, limit, offset=offset)]
        sentences = read_stockmark(data)
    elif path.suffix in (".iob2", ".bio"):
        text = path.read_text(encoding="utf-8")
        sentences = read_uner(text) if path.suffix == ".iob2" else read_bio(text)
    else:
        raise ValueError("not .json (Re-DocRED, Stockmark NER), .iob2 or .bio")
    if not sentences:
        raise ValueError("no sentences")
    golds = gold_docs(sentences, path.stem)
    return f"{golds[0].language} NER ({path.name})", golds[offset : offset + limit]


def read_uner(text: str) -> list[Sentence]:
    """Sentences of a Universal NER file: names cut from the `# text` line where the
    tokens are found in it in order, else from the joined tokens."""
    sentences: list[Sentence] = []
    original, tokens, tags = "", [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("# text = "):
            original = line[len("# text = "):]
        elif not line.strip() and tokens:
            sentences.append(_sentence(tokens, tags, original))
            original, tokens, tags = "", [], []
        elif line.strip() and not line.startswith("#"):
            cols = line.split("\t")
            tokens.append(cols[1])
            tags.append(cols[2])
    return sentences


def read_bio(text: str) -> list[Sentence]:
    """Sentences of a `token TAG` file without sentence breaks."""
    sentences: list[Sentence] = []
    tokens: list[str] = []
    tags: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        token, tag = line.rsplit(None, 1)
        tokens.append(token)
        tags.append(tag)
        if token in _SENTENCE_END:
            sentences.append(_sentence(tokens, tags))
            tokens, tags = [], []
    if tokens:
        sentences.append(_sentence(tokens, tags))
    return sentences


def read_stockmark(records: list[dict]) -> list[Sentence]:
    """Sentences of Stockmark's NER JSON: its text, and each entity's name and type."""
    return [Sentence(r["text"], tuple((e["name"], e["type"]) for e in r["entities"]))
            for r in records]


def gold_docs(sentences: list[Sentence], title: str,
              size: int = SENTENCES_PER_DOC) -> list[GoldDoc]:
    """Documents of `size` sentences each, in the language detected from all their text."""
    groups = [sentences[i : i + size] for i in range(0, len(sentences), size)]
    language = detect_language(_join(s.text for s in sentences))
    docs = []
    for index, group in enumerate(groups):
        entities: dict[str, str] = {}  # normalised name -> its first mention's type
        for s in group:
            for name, type_ in s.mentions:
                if key := normalise(name):
                    entities.setdefault(key, GOLD_TYPES.get(type_, type_))
        docs.append(GoldDoc(index, f"{title} {index + 1}", _join(s.text for s in group),
                            tuple(frozenset((k,)) for k in entities),
                            tuple(entities.values()), language=language, coreference=False))
    return docs


def spans(tags: list[str]) -> list[tuple[int, int, str]]:
    """(start, end, type) of the names tagged in IOB2, IOB1 or IO: B- begins a name, I-
    continues one of its type or else begins one, O is outside."""
    out: list[tuple[int, int, str]] = []
    current = ""
    for i, tag in enumerate(tags):
        prefix, _, type_ = tag.partition("-")
        if prefix == "I" and type_ == current:
            out[-1] = (out[-1][0], i + 1, type_)
        elif prefix in ("B", "I") and type_:
            out.append((i, i + 1, type_))
        current = type_ if prefix in ("B", "I") else ""
    return out


def _sentence(tokens: list[str], tags: list[str], original: str = "") -> Sentence:
    offsets = _offsets(tokens, original) if original else None
    if offsets is None:
        text = _join_tokens(tokens)
        names = [(_join_tokens(tokens[a:b]), t) for a, b, t in spans(tags)]
    else:
        text = original
        names = [(original[offsets[a][0] : offsets[b - 1][1]], t) for a, b, t in spans(tags)]
    return Sentence(text, tuple(names))


def _offsets(tokens: list[str], text: str) -> list[tuple[int, int]] | None:
    """Where each token lies in `text`, found in order; None if one is not there."""
    out, pos = [], 0
    for tok in tokens:
        start = text.find(tok, pos)
        if start < 0:
            return None
        pos = start + len(tok)
        out.append((start, pos))
    return out


def _join_tokens(tokens: list[str]) -> str:
    """Tokens detokenised, then without the spaces beside Chinese or Japanese characters
    (those scripts put no space between words)."""
    return _join(detokenise(tokens).split(" "))


def _join(parts) -> str:
    """Parts joined with a space, except where a Chinese or Japanese character meets the
    joint."""
    out = ""
    for part in parts:
        if out and part and not (_CJK.match(out[-1]) or _CJK.match(part[0])):
            out += " "
        out += part
    return out
