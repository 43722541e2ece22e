"""Structured replies by construction: pydantic models (built from settings, so entity
types and bounds are enumerated in the grammar) -> JSON schema -> grammar in the model,
and `ask` validates the reply with pydantic, retrying once before giving up.

Bounded numbers are enumerations (llama.cpp's JSON-schema conversion ignores integer
minimum/maximum); bounded lists and strings keep every reply finite, so a small model
cannot loop until the token cap."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, ValidationError, create_model

from .grammar import DATE_PATTERN, schema_to_grammar
from .protocol import YES_NO_GRAMMAR, ChatModel, Message, Request

CHARS_PER_TOKEN = 2.5  # conservative: JSON punctuation and names tokenize densely


def _enum(values: tuple) -> Any:
    return Literal[values]  # type: ignore[valid-type]


@lru_cache(maxsize=32)
def extraction_model(
    entity_types: tuple[str, ...],
    max_entities: int,
    max_relationships: int,
    name_chars: int,
    description_chars: int,
    names: tuple[str, ...] = (),
) -> type[BaseModel]:
    """The extraction reply. With `names` ("spans" mode) entity names are an enumeration
    of the chunk's spans, each at most once (so up to len(names) of them), and
    relationships come in a round of their own (`relationships_model`)."""
    Desc = (str, Field(min_length=1, max_length=description_chars))
    if names:
        Name = (_enum(names), ...)
        max_entities, max_relationships = len(names), 0
    else:
        Name = (str, Field(min_length=1, max_length=name_chars))
    Entity = create_model("Entity", name=Name, type=(_enum(entity_types), ...), description=Desc)
    Relationship = _relationship(Name, Desc)
    return create_model(
        "Extraction",
        entities=(list[Entity], Field(max_length=max_entities)),
        relationships=(list[Relationship], Field(max_length=max_relationships)),
    )


@lru_cache(maxsize=32)
def relationships_model(
    names: tuple[str, ...], max_relationships: int, description_chars: int
) -> type[BaseModel]:
    """Relationships between already extracted entities (`names`)."""
    Relationship = _relationship(
        (_enum(names), ...), (str, Field(min_length=1, max_length=description_chars))
    )
    return create_model(
        "Relationships", relationships=(list[Relationship], Field(max_length=max_relationships))
    )


def _relationship(Name, Desc) -> type[BaseModel]:
    return create_model(
        "Relationship",
        source=Name,
        target=Name,
        description=Desc,
        strength=(_enum(tuple(range(1, 11))), ...),
    )


@lru_cache(maxsize=8)
def claims_model(
    claim_types: tuple[str, ...], max_claims: int, name_chars: int, description_chars: int
) -> type[BaseModel]:
    Name = (str, Field(min_length=1, max_length=name_chars))
    Date = (str, Field(pattern=DATE_PATTERN, max_length=10))
    Claim = create_model(
        "Claim",
        subject=Name,
        object=Name,
        type=(_enum(claim_types), ...),
        status=(_enum(("TRUE", "FALSE", "SUSPECTED")), ...),
        description=(str, Field(min_length=1, max_length=description_chars)),
        source_text=(str, Field(min_length=1, max_length=description_chars)),
        start_date=Date,
        end_date=Date,
    )
    return create_model("Claims", claims=(list[Claim], Field(max_length=max_claims)))


@lru_cache(maxsize=8)
def report_model(max_findings: int, summary_chars: int, finding_chars: int) -> type[BaseModel]:
    Finding = create_model(
        "Finding",
        summary=(str, Field(min_length=1, max_length=120)),
        explanation=(str, Field(min_length=1, max_length=finding_chars)),
    )
    return create_model(
        "Report",
        title=(str, Field(min_length=1, max_length=100)),
        summary=(str, Field(min_length=1, max_length=summary_chars)),
        rating=(_enum(tuple(range(0, 11))), ...),
        rating_explanation=(str, Field(min_length=1, max_length=200)),
        findings=(list[Finding], Field(min_length=1, max_length=max_findings)),
    )


@lru_cache(maxsize=64)
def map_model(refs: tuple[str, ...], max_points: int, point_chars: int) -> type[BaseModel]:
    """A map reply of global search: points, each with a 0-100 helpfulness score and the
    ids of the data items it comes from (an enumeration: no invented sources)."""
    Point = create_model(
        "Point",
        description=(str, Field(min_length=1, max_length=point_chars)),
        score=(_enum(tuple(range(0, 101))), ...),
        sources=(list[_enum(refs)], Field(min_length=1, max_length=min(3, len(refs)))),
    )
    return create_model("MapReply", points=(list[Point], Field(min_length=1, max_length=max_points)))


def drift_model(max_followups: int, answer_chars: int) -> type[BaseModel]:
    """An intermediate DRIFT answer: what the data says, how helpful (0-100), and up to
    `max_followups` follow-up questions to search next."""
    return create_model(
        "DriftReply",
        answer=(str, Field(min_length=1, max_length=answer_chars)),
        score=(_enum(tuple(range(0, 101))), ...),
        follow_ups=(list[Annotated[str, Field(min_length=3, max_length=160)]],
                    Field(max_length=max_followups)),
    )


def schema_of(model: type[BaseModel]) -> dict:
    return model.model_json_schema()


@lru_cache(maxsize=64)
def _grammar_of(schema_model: type[BaseModel]) -> str:
    return schema_to_grammar(schema_of(schema_model))


def max_reply_tokens(schema: dict) -> int:
    """Upper bound on a reply's tokens, from the schema's length bounds."""
    return int(_max_chars(schema, schema.get("$defs", {})) / CHARS_PER_TOKEN) + 16


def _max_chars(node: dict, defs: dict) -> int:
    if "$ref" in node:
        return _max_chars(defs[node["$ref"].split("/")[-1]], defs)
    kind = node.get("type")
    if "enum" in node or "const" in node:
        values = node.get("enum", [node.get("const")])
        return max(len(str(v)) for v in values) + 2
    if kind == "string":
        return node.get("maxLength", 200) + 2
    if kind == "array":
        return node.get("maxItems", 10) * (_max_chars(node["items"], defs) + 2) + 2
    if kind == "object":
        props = node.get("properties", {})
        return sum(len(k) + 4 + _max_chars(v, defs) for k, v in props.items()) + 2
    return 12


@dataclass(frozen=True)
class Reply:
    value: BaseModel | None
    raw: str
    error: str
    attempts: int


@dataclass(frozen=True)
class Ask:
    """One structured question among independent others (`ask_many`)."""

    messages: list[Message]
    schema_model: type[BaseModel]
    grammar: str | None = None
    max_tokens: int | None = None


def ask_many(model: ChatModel, asks: list[Ask], *, purpose: str, retries: int = 1) -> list[Reply]:
    """`ask` for independent questions, decoded together (`ChatModel.complete_many`): the
    same replies as asking one by one at temperature 0; the malformed ones are retried
    together."""
    requests = [Request(a.messages, a.grammar or _grammar_of(a.schema_model),
                        _budget(model, a.messages, a.schema_model, a.max_tokens), purpose)
                for a in asks]
    replies: list[Reply | None] = [None] * len(asks)
    todo = list(range(len(asks)))
    raws: dict[int, str] = {}
    errors: dict[int, str] = {}
    for attempt in range(retries + 1):
        if not todo:
            break
        for i, raw in zip(todo, model.complete_many([requests[i] for i in todo], attempt=attempt)):
            raws[i] = raw
            try:
                replies[i] = Reply(asks[i].schema_model.model_validate_json(raw), raw, "", attempt + 1)
            except ValidationError as exc:
                errors[i] = _first_error(exc)
        todo = [i for i in todo if replies[i] is None]
    for i in todo:
        replies[i] = Reply(None, raws[i], errors[i], retries + 1)
    return replies


def _budget(model: ChatModel, messages: list[Message], schema_model, max_tokens: int | None) -> int:
    budget = max_tokens or max_reply_tokens(schema_of(schema_model))
    room = model.n_ctx - model.prompt_tokens(messages)
    return max(16, min(budget, room))


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return f"{first['type']} at {'.'.join(map(str, first['loc']))}: {first['msg']}"


def ask(
    model: ChatModel,
    messages: list[Message],
    schema_model: type[BaseModel],
    *,
    purpose: str,
    grammar: str | None = None,
    max_tokens: int | None = None,
    retries: int = 1,
) -> Reply:
    """One grammar-constrained call, validated; retried `retries` times on failure.
    The grammar comes from the pydantic model's JSON schema unless one is given."""
    grammar = grammar or _grammar_of(schema_model)
    budget = _budget(model, messages, schema_model, max_tokens)
    raw, error = "", ""
    for attempt in range(retries + 1):
        raw = model.complete(
            messages,
            grammar=grammar,
            max_tokens=budget,
            attempt=attempt,
            purpose=purpose,
        )
        try:
            return Reply(schema_model.model_validate_json(raw), raw, "", attempt + 1)
        except ValidationError as exc:
            error = _first_error(exc)
    return Reply(None, raw, error, retries + 1)


def ask_yes_no(model: ChatModel, messages: list[Message], *, purpose: str) -> bool:
    reply = model.complete(messages, grammar=YES_NO_GRAMMAR, max_tokens=4, purpose=purpose)
    return reply.strip().upper().startswith("Y")
