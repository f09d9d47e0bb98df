"""Few-shot examples for Text-to-Cypher built from the graph schema alone.

Small models copy the shape of worked examples better than they follow rules, so the prompt shows a
few short question -> Cypher pairs written from the store's own schema: its labels, relationship
types with their directions, properties and the sample values `GraphSchema.examples` holds. Nothing
comes from an evaluation set. The pairs cover a property filter that returns whole nodes, a one-hop
pattern from a named node, an aggregate over a relationship property, a top-N count (the only
example with ORDER BY/LIMIT, because its question asks for it) and a two-hop pattern.
"""

from __future__ import annotations

import re

from queryweave.tools.cypher.store import GraphSchema

_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")
_NUMERIC = ("INT", "FLOAT", "DOUBLE", "DECIMAL", "SERIAL")


def _noun(label: str) -> str:
    """`Movie` -> `movies`, `Person` -> `persons` (plain English plural of a label)."""
    word = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", label).lower()
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def _verb(rel: str) -> str:
    """`ACTED_IN` -> `acted in`."""
    return rel.replace("_", " ").lower()


def _first_text(schema: GraphSchema, label: str) -> tuple[str, str] | None:
    """(property, sample value) of the first text property of `label` with a quoted sample."""
    for prop, typ in schema.nodes.get(label, {}).items():
        if "STRING" in typ.upper() and "[]" not in typ:
            m = _QUOTED.search(schema.examples.get(f"{label}.{prop}", ""))
            if m:
                return prop, m.group(1)
    return None


def _display(schema: GraphSchema, label: str) -> str | None:
    """The property that names a node of `label` (its first text property)."""
    for prop, typ in schema.nodes.get(label, {}).items():
        if "STRING" in typ.upper() and "[]" not in typ:
            return prop
    return None


def _numeric(props: dict[str, str]) -> str | None:
    return next((p for p, t in props.items() if t.upper().startswith(_NUMERIC)), None)


def _lit(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def schema_examples(schema: GraphSchema, limit: int = 5) -> list[tuple[str, str]]:
    """Up to `limit` (question, Cypher) pairs written from `schema` only (empty when it is too thin)."""
    pairs: list[tuple[str, str]] = []
    links = [p for p in schema.patterns if p[0] != p[2]] or list(schema.patterns)
    # relationship types with properties first: their examples show where those properties live
    links.sort(key=lambda p: not schema.rels.get(p[1]))
    # 1. property filter returning whole nodes
    for label in schema.nodes:
        sample = _first_text(schema, label)
        text_props = [p for p, t in schema.nodes[label].items() if "STRING" in t.upper() and "[]" not in t]
        if sample and len(text_props) > 1:
            prop = text_props[-1]
            m = _QUOTED.search(schema.examples.get(f"{label}.{prop}", ""))
            if m and m.group(1).split():
                word = m.group(1).split()[0]
                pairs.append((f"Show 3 {_noun(label)} whose {prop} contains '{word}'.",
                              f"MATCH (n:{label}) WHERE n.{prop} CONTAINS {_lit(word)} RETURN n LIMIT 3"))
                break
    used: list[str] = []
    # 2. one hop from a named node
    for a, rel, b in links:
        sample, shown = _first_text(schema, a), _display(schema, b)
        if sample and shown:
            prop, value = sample
            pairs.append((f"Which {_noun(b)} has the {a.lower()} with {prop} {_lit(value)} {_verb(rel)}?",
                          f"MATCH (a:{a} {{{prop}: {_lit(value)}}})-[:{rel}]->(b:{b}) RETURN b.{shown}"))
            used.append(rel)
            break
    # 3. aggregate over a relationship property (or a count per end node)
    for a, rel, b in links:
        num, shown = _numeric(schema.rels.get(rel, {})), _display(schema, b)
        if num and shown:
            pairs.append((f"What is the average {num} of the {_verb(rel)} relationships for each {b.lower()}?",
                          f"MATCH (:{a})-[r:{rel}]->(b:{b}) RETURN b.{shown}, avg(r.{num}) AS average_{num}"))
            used.append(rel)
            break
    # 4. top-N by a count (ORDER BY and LIMIT because the question asks for them)
    rest = [p for p in links if p[1] not in used] or links
    for a, rel, b in rest:
        shown = _display(schema, a)
        if shown:
            pairs.append((f"Which 3 {_noun(a)} {_verb(rel)} the most {_noun(b)}?",
                          f"MATCH (a:{a})-[:{rel}]->(b:{b}) WITH a, count(b) AS n ORDER BY n DESC LIMIT 3 "
                          f"RETURN a.{shown}, n"))
            used.append(rel)
            break
    # 5. two hops through a shared node
    for a, rel, b in links:
        other = next(((x, r2) for x, r2, y in links if y == b and r2 != rel and r2 not in used[:1]), None)
        sample, shown = _first_text(schema, a), _display(schema, other[0]) if other else None
        if other and sample and shown:
            prop, value = sample
            pairs.append((f"Which {_noun(other[0])} {_verb(other[1])} a {b.lower()} that the {a.lower()} with "
                          f"{prop} {_lit(value)} {_verb(rel)}?",
                          f"MATCH (a:{a} {{{prop}: {_lit(value)}}})-[:{rel}]->(b:{b})<-[:{other[1]}]-(c:{other[0]}) "
                          f"RETURN DISTINCT c.{shown}"))
            break
    return pairs[:limit]
