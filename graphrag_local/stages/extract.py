"""Stages 3-6 for one chunk: extract entities and relationships under a grammar, glean
(a YES/NO grammar decides whether to ask again, in the same conversation so llama.cpp
reuses the KV cache), ground every record in the chunk text, and optionally extract
claims. The result is one `ChunkExtraction`, which the pipeline persists at once.

In "spans" mode (tiny models) the rounds name entities only, from the chunk's own spans;
a last round in the same conversation then asks for relationships under a grammar whose
endpoints are exactly the extracted entities, so no relationship can dangle. Tiny models
find few relationships, so spans mode also links entities named in the same sentence,
with that sentence as the description: faithful by construction. In "free" mode each
round returns entities and relationships together, as in the paper."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import BudgetError
from ..models import ChatModel, Message
from ..models.grammar import extraction_grammar, relationships_grammar
from ..models.structured import (
    ask,
    ask_yes_no,
    claims_model,
    extraction_model,
    max_reply_tokens,
    relationships_model,
    schema_of,
)
from ..prompts import Prompts
from ..schema import Chunk, ChunkExtraction, ClaimRecord, EntityRecord, RelationshipRecord
from .ground import candidate_names, contains, ground, normalise


@dataclass(frozen=True)
class ExtractOptions:
    entity_types: tuple[str, ...]
    max_gleanings: int
    max_entities: int
    max_relationships: int
    max_name_chars: int
    max_description_chars: int
    names: str  # "spans": names restricted to the chunk's proper-noun spans; "free"
    grounding: bool
    claims: bool
    max_claims: int
    claim_types: tuple[str, ...]


def extract_chunk(
    model: ChatModel, prompts: Prompts, chunk: Chunk, opts: ExtractOptions, key: str
) -> ChunkExtraction:
    entities: list[EntityRecord] = []
    relationships: list[RelationshipRecord] = []
    raws: list[str] = []
    candidates = (candidate_names(chunk.text, language=chunk.language)
                  if opts.names == "spans" else ())
    messages: list[Message] = [
        {
            "role": "user",
            "content": prompts.render(
                "extract_entities", entity_types=", ".join(opts.entity_types), text=chunk.text
            ),
        }
    ]
    reply = _extract_round(model, messages, opts, candidates, "extract")
    raws.append(reply.raw)
    if reply.value is None:
        return ChunkExtraction(
            chunk.id, key, "failed", f"extraction reply invalid after retry: {reply.error}",
            raw_replies=tuple(raws),
        )
    _collect(reply.value, chunk.id, entities, relationships)
    messages.append({"role": "assistant", "content": reply.raw})

    gleanings = 0
    for _ in range(opts.max_gleanings):
        remaining = _unused(candidates, entities) if candidates else ()
        if opts.names == "spans" and not remaining:
            break  # every name in the chunk is already extracted
        messages.append({"role": "user", "content": prompts.render("glean_check")})
        if not ask_yes_no(model, messages, purpose="glean_check"):
            break
        messages += [
            {"role": "assistant", "content": "YES"},
            {"role": "user", "content": prompts.render("glean_continue")},
        ]
        more = _extract_round(model, messages, opts, remaining, "glean")
        gleanings += 1
        raws.append(more.raw)
        if more.value is None:
            break  # keep what earlier rounds found; a bad glean loses nothing
        _collect(more.value, chunk.id, entities, relationships)
        messages.append({"role": "assistant", "content": more.raw})

    if candidates and len(entities) >= 2:
        rel_raw = _relationships_round(model, prompts, messages, opts, entities, chunk.id, relationships)
        raws.append(rel_raw)
        relationships += sentence_links(
            chunk.text, entities, relationships, chunk.id, opts.max_description_chars
        )

    claims: list[ClaimRecord] = []
    if opts.claims and entities:
        claims, claim_raw = _extract_claims(model, prompts, chunk, opts, entities)
        raws.append(claim_raw)

    g = ground(chunk.text, entities, relationships, claims, enabled=opts.grounding)
    return ChunkExtraction(
        chunk_id=chunk.id,
        key=key,
        status="ok",
        error="",
        entities=g.entities,
        relationships=g.relationships,
        claims=g.claims,
        raw_replies=tuple(raws),
        gleanings=gleanings,
        dropped_entities=g.dropped_entities,
        dropped_relationships=g.dropped_relationships,
        dropped_claims=g.dropped_claims,
    )


def _extract_round(model, messages, opts: ExtractOptions, names: tuple[str, ...], purpose: str):
    """One extraction reply; `names`: the spans entities may be named from ("spans" mode)."""
    schema_model = extraction_model(
        opts.entity_types, opts.max_entities, opts.max_relationships,
        opts.max_name_chars, opts.max_description_chars, names,
    )
    grammar = None
    if names:
        grammar = extraction_grammar(names, opts.entity_types, opts.max_description_chars)
    return ask(model, messages, schema_model, grammar=grammar, purpose=purpose)


def _relationships_round(model, prompts, messages, opts, entities, chunk_id, relationships) -> str:
    names = tuple(dict.fromkeys(e.name for e in entities))
    messages.append({"role": "user", "content": prompts.render("extract_relationships")})
    reply = ask(
        model, messages,
        relationships_model(names, opts.max_relationships, opts.max_description_chars),
        grammar=relationships_grammar(names, opts.max_relationships, opts.max_description_chars),
        purpose="relationships",
    )
    if reply.value is not None:
        _collect(reply.value, chunk_id, [], relationships, entities_too=False)
    return reply.raw


def _unused(candidates: tuple[str, ...], entities: list[EntityRecord]) -> tuple[str, ...]:
    have = {normalise(e.name) for e in entities}
    return tuple(c for c in candidates if normalise(c) not in have)


def _collect(value, chunk_id: str, entities: list, relationships: list, entities_too=True) -> None:
    """Add a round's records, keeping each (name, description) and relationship once."""
    seen_e = {(normalise(e.name), e.description) for e in entities}
    for e in value.entities if entities_too else ():
        k = (normalise(e.name), e.description.strip())
        if k not in seen_e:
            seen_e.add(k)
            entities.append(EntityRecord(e.name.strip(), e.type, e.description.strip(), chunk_id))
    seen_r = {(normalise(r.source), normalise(r.target), r.description) for r in relationships}
    for r in value.relationships:
        k = (normalise(r.source), normalise(r.target), r.description.strip())
        if k not in seen_r:
            seen_r.add(k)
            relationships.append(
                RelationshipRecord(
                    r.source.strip(), r.target.strip(), r.description.strip(), int(r.strength),
                    chunk_id,
                )
            )


def _extract_claims(model, prompts: Prompts, chunk: Chunk, opts: ExtractOptions, entities):
    names = sorted({e.name for e in entities})
    messages: list[Message] = [
        {
            "role": "user",
            "content": prompts.render(
                "extract_claims",
                claim_types=", ".join(opts.claim_types),
                entities=", ".join(names),
                text=chunk.text,
            ),
        }
    ]
    schema_model = claims_model(
        opts.claim_types, opts.max_claims, opts.max_name_chars, opts.max_description_chars
    )
    reply = ask(model, messages, schema_model, purpose="claims")
    if reply.value is None:
        return [], reply.raw
    out = [
        ClaimRecord(
            c.subject.strip(), c.object.strip(), c.type, c.status, c.description.strip(),
            c.source_text.strip(), c.start_date, c.end_date, chunk.id,
        )
        for c in reply.value.claims
    ]
    return out, reply.raw


_SENTENCE = re.compile(r"[^.!?。！？\n]+(?:[.!?。！？]+|$)")


def sentence_links(
    text: str,
    entities: list[EntityRecord],
    existing: list[RelationshipRecord],
    chunk_id: str,
    max_chars: int,
    max_per_sentence: int = 4,
) -> list[RelationshipRecord]:
    """Relationships between entities named in the same sentence, described by that
    sentence, for pairs the model did not already relate."""
    names = list(dict.fromkeys(e.name for e in entities))
    have = {frozenset((normalise(r.source), normalise(r.target))) for r in existing}
    out: list[RelationshipRecord] = []
    for match in _SENTENCE.finditer(text):
        sentence = " ".join(match.group(0).split())
        norm = normalise(sentence)
        inside = [n for n in names if contains(norm, normalise(n))][:max_per_sentence]
        for i, a in enumerate(inside):
            for b in inside[i + 1 :]:
                pair = frozenset((normalise(a), normalise(b)))
                if len(pair) < 2 or pair in have:
                    continue
                have.add(pair)
                desc = sentence if len(sentence) <= max_chars else sentence[: max_chars - 1].rsplit(" ", 1)[0] + "…"
                out.append(RelationshipRecord(a, b, desc, 5, chunk_id))
    return out


def extraction_reply_tokens(opts: ExtractOptions) -> int:
    return max_reply_tokens(
        schema_of(
            extraction_model(
                opts.entity_types, opts.max_entities, opts.max_relationships,
                opts.max_name_chars, opts.max_description_chars,
            )
        )
    )


def check_chunk_budgets(
    model: ChatModel, prompts: Prompts, chunks: list[Chunk], opts: ExtractOptions
) -> None:
    """Fail before any LLM call if a chunk cannot fit: never truncate silently."""
    reply = extraction_reply_tokens(opts)
    for c in chunks:
        content = prompts.render(
            "extract_entities", entity_types=", ".join(opts.entity_types), text=c.text
        )
        need = model.prompt_tokens([{"role": "user", "content": content}])
        if need + min(reply, 256) > model.n_ctx:
            raise BudgetError(
                f"{c.path}: chunk {c.index} needs {need} model tokens with the extraction "
                f"prompt, more than the model's n_ctx={model.n_ctx} allows with room to "
                "answer; lower chunks.size in the config or raise n_ctx in the model preset"
            )
