"""Stages 3-6 for one chunk: extract entities and relationships under a grammar, glean
(a YES/NO grammar decides whether to ask again, in the same conversation so llama.cpp
reuses the KV cache), ground every record in the chunk text, and optionally extract
claims. The result is one `ChunkExtraction`, which the pipeline persists at once."""

from __future__ import annotations

from dataclasses import dataclass

from ..grammar import extraction_grammar
from ..llm import ChatModel, Message
from ..prompts import Prompts
from ..schema import Chunk, ChunkExtraction, ClaimRecord, EntityRecord, RelationshipRecord
from ..structured import ask, ask_yes_no, claims_model, extraction_model
from .ground import candidate_names, ground, normalise


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
    candidates = candidate_names(chunk.text) if opts.names == "spans" else ()
    messages: list[Message] = [
        {
            "role": "user",
            "content": prompts.render(
                "extract_entities", entity_types=", ".join(opts.entity_types), text=chunk.text
            ),
        }
    ]
    reply = _extract_round(model, messages, opts, candidates, candidates, "extract")
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
        more = _extract_round(model, messages, opts, remaining, candidates, "glean")
        gleanings += 1
        raws.append(more.raw)
        if more.value is None:
            break  # keep what earlier rounds found; a bad glean loses nothing
        _collect(more.value, chunk.id, entities, relationships)
        messages.append({"role": "assistant", "content": more.raw})

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


def _extract_round(
    model, messages, opts: ExtractOptions, names: tuple[str, ...], endpoints: tuple[str, ...],
    purpose: str,
):
    """One extraction reply. `names`: entity names this round may use ("spans" mode);
    `endpoints`: names relationships may connect (all of the chunk's spans)."""
    schema_model = extraction_model(
        opts.entity_types, opts.max_entities, opts.max_relationships,
        opts.max_name_chars, opts.max_description_chars, names, endpoints,
    )
    grammar = None
    if names:
        grammar = extraction_grammar(
            names, opts.entity_types, opts.max_relationships, opts.max_description_chars,
            endpoints,
        )
    return ask(model, messages, schema_model, grammar=grammar, purpose=purpose)


def _unused(candidates: tuple[str, ...], entities: list[EntityRecord]) -> tuple[str, ...]:
    have = {normalise(e.name) for e in entities}
    return tuple(c for c in candidates if normalise(c) not in have)


def _collect(value, chunk_id: str, entities: list, relationships: list) -> None:
    """Add a round's records, keeping each (name, description) and relationship once."""
    seen_e = {(normalise(e.name), e.description) for e in entities}
    for e in value.entities:
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
