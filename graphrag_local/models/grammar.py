"""GBNF grammars: written by hand where a JSON schema cannot say what we need, and our own
small JSON-schema converter for the rest.

The extraction grammar lists entities in the order their names first occur in the chunk,
each name at most once, chosen from the chunk's own spans. Duplicates and invented
names are then impossible by construction, and a reply cannot loop: it is a bounded
walk forward through the chunk. The relationships grammar then allows exactly the
extracted names as endpoints. (A JSON schema can express an enumeration of names, but
not "unique and in order"; llama.cpp's schema conversion also ignores integer bounds, so
`strength` is written out as the alternatives 1..10.) Replies are still validated with
the pydantic models from `structured.py`."""

from __future__ import annotations

import json

_CHAR = r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})'


def _lit(text: str) -> str:
    """A GBNF string literal that matches `text` JSON-encoded (quotes included)."""
    encoded = json.dumps(text, ensure_ascii=False)
    return '"' + encoded.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _key(name: str) -> str:
    return _lit(name) + ' ":" ws'


def _common(description_chars: int) -> list[str]:
    return [
        "ws ::= \" \"?",
        f"char ::= {_CHAR}",
        f'desc ::= "\\"" char{{1,{description_chars}}} "\\""',
    ]


def relationships_grammar(
    names: tuple[str, ...], max_relationships: int, description_chars: int
) -> str:
    """Grammar for {"relationships": [...]} whose endpoints are exactly `names` (the
    entities already extracted from the chunk): no relationship can dangle."""
    return "\n".join(
        [
            'root ::= "{" ws ' + _key("relationships") + ' rels ws "}"',
            *_common(description_chars),
            'strength ::= "10" | [1-9]',
            "name ::= " + " | ".join(_lit(n) for n in names),
            'rel ::= "{" ws ' + _key("source") + ' name "," ws ' + _key("target")
            + ' name "," ws ' + _key("description") + ' desc "," ws ' + _key("strength")
            + ' strength ws "}"',
            f'rels ::= "[" ws "]" | "[" ws rel ("," ws rel){{0,{max(0, max_relationships - 1)}}} ws "]"',
        ]
    ) + "\n"


def extraction_grammar(
    names: tuple[str, ...], entity_types: tuple[str, ...], description_chars: int
) -> str:
    """Grammar for {"entities": [...], "relationships": []} over candidate `names` (given
    in order of first occurrence). Relationships come in a later round, under
    `relationships_grammar`, once the entities are known."""
    rules = [
        'root ::= "{" ws ' + _key("entities") + ' ents "," ws ' + _key("relationships")
        + ' "[" ws "]" ws "}"',
        *_common(description_chars),
        "type ::= " + " | ".join(_lit(t) for t in entity_types),
    ]
    n = len(names)
    # first_i: the list's first entity is names[i] or a later one; next_i: after an entity,
    # either end the list or add names[j] for some j >= i, each name at most once.
    rules.append('ents ::= "[" ws first0')
    for i, name in enumerate(names):
        rules.append(
            f'ent{i} ::= "{{" ws ' + _key("name") + f' {_lit(name)} "," ws ' + _key("type")
            + ' type "," ws ' + _key("description") + ' desc ws "}"'
        )
        rules.append(f"first{i} ::= ent{i} next{i + 1} | first{i + 1}")
        if i > 0:
            rules.append(f'next{i} ::= "," ws ent{i} next{i + 1} | next{i + 1}')
    rules.append(f'first{n} ::= ws "]"')
    rules.append(f'next{n} ::= ws "]"')
    return "\n".join(rules) + "\n"


DATE_PATTERN = r"^(NONE|\d{4}-\d{2}-\d{2})$"
# the few string patterns our models use, written as grammar
PATTERN_RULES = {DATE_PATTERN: '"\\"" ("NONE" | [0-9]{4} "-" [0-9]{2} "-" [0-9]{2}) "\\""'}


def schema_to_grammar(schema: dict) -> str:
    """GBNF for the JSON-schema subset our pydantic models produce: objects with ordered
    required properties, strings with length bounds, enums/consts, arrays with item
    bounds, $refs. Unlike llama-cpp-python's converter, strings cannot hold raw control
    characters (invalid JSON) and length bounds are `{m,n}` repetitions, not thousands
    of nested optionals."""
    defs = schema.get("$defs", {})
    rules: dict[str, str] = {
        "ws": '" "?',
        "char": _CHAR,
    }

    def visit(node: dict, name: str) -> str:
        if "$ref" in node:
            ref = node["$ref"].split("/")[-1]
            rule = "d-" + _rule_name(ref)
            if rule not in rules:
                rules[rule] = ""  # placeholder against recursion
                visit(defs[ref], rule)
            return rule
        if "enum" in node or "const" in node:
            values = node.get("enum", [node.get("const")])
            body = " | ".join(
                _lit(v) if isinstance(v, str) else '"' + json.dumps(v) + '"' for v in values
            )
            return _add(rules, name, body)
        kind = node.get("type")
        if kind == "string" and node.get("pattern") in PATTERN_RULES:
            return _add(rules, name, PATTERN_RULES[node["pattern"]])
        if kind == "string":
            lo, hi = node.get("minLength", 0), node.get("maxLength")
            rep = f"char{{{lo},{hi}}}" if hi is not None else (f"char{{{lo},}}" if lo else "char*")
            return _add(rules, name, f'"\\"" {rep} "\\""')
        if kind == "integer":
            return _add(rules, name, '"-"? [0-9]{1,15}')
        if kind == "number":
            return _add(rules, name, '"-"? [0-9]{1,15} ("." [0-9]{1,15})?')
        if kind == "boolean":
            return _add(rules, name, '"true" | "false"')
        if kind == "array":
            item = visit(node["items"], name + "-item")
            lo, hi = node.get("minItems", 0), node.get("maxItems")
            more_hi = "" if hi is None else str(max(0, hi - 1))
            tail = f'("," ws {item}){{{max(0, lo - 1)},{more_hi}}}'
            body = f'"[" ws {item} {tail} ws "]"'
            if lo == 0:
                body = f'"[" ws "]" | {body}'
            return _add(rules, name, body)
        if kind == "object":
            props = node.get("properties", {})
            parts = []
            for i, (key, sub) in enumerate(props.items()):
                value = visit(sub, f"{name}-{_rule_name(key)}")
                parts.append(("" if i == 0 else '"," ws ') + _key(key) + " " + value)
            return _add(rules, name, '"{" ws ' + " ".join(parts) + ' ws "}"')
        raise ValueError(f"unsupported schema node: {node}")

    rules["root"] = visit(schema, "root-value")
    lines = [f"root ::= {rules.pop('root')}"] + [f"{k} ::= {v}" for k, v in rules.items()]
    return "\n".join(lines) + "\n"


def _rule_name(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text).lower()


def _add(rules: dict[str, str], name: str, body: str) -> str:
    rules[name] = body
    return name
