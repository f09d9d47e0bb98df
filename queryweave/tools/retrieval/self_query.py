"""Self-query: metadata filters from the question, validated, translated to Chroma, relaxed if empty.

`extract(question, schema, llm=None)` runs the rule layer (`self_query_rules`) and, when the rules
are unsure and an LLM is given, LangChain's query constructor; either way the result is a LangChain
`StructuredQuery` validated against the `MetadataSchema` (unknown fields and values dropped with a
note). `to_chroma(sq)` gives `(query, where)` through `ChromaTranslator`; `relaxations(sq)` lists the
filter with its least important conditions dropped step by step, and `search_relaxed` walks that
list until a search finds something. With an LLM, `build_retriever` is LangChain's own
`SelfQueryRetriever` over a `langchain_chroma.Chroma` store with the translator passed explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_community.query_constructors.chroma import ChromaTranslator
from langchain_core.structured_query import Comparator, Comparison, Operation, Operator, StructuredQuery

from queryweave.tools.retrieval.self_query_match import Embed, MatchSettings
from queryweave.tools.retrieval.self_query_rules import extract_rules
from queryweave.tools.retrieval.self_query_schema import DEFAULT_SCHEMA, FieldSpec, MetadataSchema, schema_for

__all__ = ["DEFAULT_SCHEMA", "FieldSpec", "MatchSettings", "MetadataSchema", "SelfQuery", "ListAwareChromaTranslator",
           "extract", "validate", "to_chroma", "relaxations", "search_relaxed", "build_retriever", "conditions",
           "schema_for"]


class ListAwareChromaTranslator(ChromaTranslator):
    """LangChain's `ChromaTranslator`, plus `contain` -> `$contains` (list metadata such as tags) and
    `in`/`nin` -> `$in`/`$nin`, which Chroma's `where` supports and the stock translator refuses."""

    allowed_comparators = [*ChromaTranslator.allowed_comparators, Comparator.CONTAIN, Comparator.IN, Comparator.NIN]

    def _format_func(self, func: Operator | Comparator) -> str:
        if func == Comparator.CONTAIN:
            self._validate_func(func)
            return "$contains"
        return super()._format_func(func)


@dataclass
class SelfQuery:
    """The structured query, what validation dropped, and which layer produced it."""

    structured_query: StructuredQuery
    notes: list[str] = field(default_factory=list)
    source: str = "rules"


_NUMERIC = {Comparator.GT, Comparator.GTE, Comparator.LT, Comparator.LTE}


def conditions(sq: StructuredQuery | None) -> list[Comparison]:
    """The comparisons of a filter, flattened (AND/OR structure ignored)."""
    if sq is None or sq.filter is None:
        return []
    stack, out = [sq.filter], []
    while stack:
        node = stack.pop(0)
        if isinstance(node, Comparison):
            out.append(node)
        elif isinstance(node, Operation):
            stack.extend(node.arguments)
    return out


def _combine(conds: list[Comparison], operator: str = "and") -> Any:
    if not conds:
        return None
    if len(conds) == 1:
        return conds[0]
    if operator == "or":  # OR only between tags; other conditions stay ANDed
        tags = [c for c in conds if c.comparator == Comparator.CONTAIN]
        rest = [c for c in conds if c.comparator != Comparator.CONTAIN]
        if len(tags) > 1:
            either = Operation(operator=Operator.OR, arguments=tags)
            return either if not rest else Operation(operator=Operator.AND, arguments=[*rest, either])
    return Operation(operator=Operator.AND, arguments=conds)


def _check(c: Comparison, schema: MetadataSchema) -> tuple[Comparison | None, str | None]:
    spec = schema.get(c.attribute)
    if spec is None:
        return None, f"dropped unknown field {c.attribute!r}"
    value = c.value
    if spec.type in {"integer", "float"}:
        cast = int if spec.type == "integer" else float
        try:  # one number, or a list of them for in / nin ("July or August": month in [7, 8])
            value = [cast(v) for v in value] if isinstance(value, list) else cast(value)
        except (TypeError, ValueError):
            return None, f"dropped {c.attribute}={c.value!r}: not a number"
    elif c.comparator in _NUMERIC:
        return None, f"dropped {c.attribute} {c.comparator.value} {c.value!r}: a text field has no order"
    if isinstance(value, list) and spec.type not in {"integer", "float"}:
        bad = [v for v in value if not spec.allows(v)]
        if bad:
            return None, f"dropped {c.attribute}: unknown values {bad}"
        value = [spec.canonical(v) for v in value]
    elif spec.type not in {"integer", "float"}:
        if not spec.allows(value):
            return None, f"dropped {c.attribute}={value!r}: not one of the known values"
        value = spec.canonical(value)
    comparator = c.comparator
    if spec.type == "list" and comparator == Comparator.EQ:
        comparator = Comparator.CONTAIN
    if comparator == Comparator.LIKE:
        comparator = Comparator.EQ
    return Comparison(comparator=comparator, attribute=spec.name, value=value), None


def validate(sq: StructuredQuery, schema: MetadataSchema = DEFAULT_SCHEMA) -> tuple[StructuredQuery, list[str]]:
    """Drop conditions on unknown fields or with unknown values; coerce numbers; notes say what went."""
    notes: list[str] = []

    def walk(node: Any) -> Any:
        if isinstance(node, Comparison):
            ok, note = _check(node, schema)
            if note:
                notes.append(note)
            return ok
        if isinstance(node, Operation):
            args = [a for a in (walk(x) for x in node.arguments) if a is not None]
            if node.operator == Operator.NOT:
                if args:
                    notes.append("dropped a NOT condition (Chroma filters cannot negate)")
                return None
            if not args:
                return None
            return args[0] if len(args) == 1 else Operation(operator=node.operator, arguments=args)
        return None

    flt = walk(sq.filter) if sq.filter is not None else None
    return StructuredQuery(query=sq.query, filter=flt, limit=sq.limit), notes


def extract(question: str, schema: MetadataSchema = DEFAULT_SCHEMA, llm: Any = None,
            embed: Embed | None = None, settings: MatchSettings | None = None, llm_when: str = "unsure") -> SelfQuery:
    """Rules first; the LLM's query constructor when the rules are unsure and an LLM is given
    (`llm_when="always"`: whenever an LLM is given; the rules' result stands only if it fails).

    `embed` (texts -> vectors, e.g. the knowledge base's multilingual embeddings) lets the rules match
    declared values by similarity as well; `settings` holds the matching thresholds.
    """
    rules = extract_rules(question, schema, embed, settings)
    sq = StructuredQuery(query=rules.query, filter=_combine(rules.conditions, rules.operator), limit=None)
    source = "rules"
    if llm is not None and (not rules.confident or llm_when == "always"):
        try:
            from langchain_classic.chains.query_constructor.base import load_query_constructor_runnable

            translator = ListAwareChromaTranslator()
            chain = load_query_constructor_runnable(
                llm, schema.document_contents, schema.attribute_info(),
                allowed_comparators=translator.allowed_comparators, allowed_operators=translator.allowed_operators)
            sq = chain.invoke({"query": question})
            source = "llm"
        except Exception as exc:  # the rule result stands
            valid, notes = validate(sq, schema)
            return SelfQuery(valid, [*rules.notes, *notes, f"LLM query constructor failed: {type(exc).__name__}"],
                             "rules")
    valid, notes = validate(sq, schema)
    return SelfQuery(valid, [*rules.notes, *notes] if source == "rules" else notes, source)


def to_chroma(sq: StructuredQuery) -> tuple[str, dict[str, Any] | None]:
    """(search text, Chroma `where` or None) via the Chroma translator."""
    query, kwargs = ListAwareChromaTranslator().visit_structured_query(sq)
    return query, kwargs.get("filter")


def _has_or(node: Any) -> bool:
    if isinstance(node, Operation):
        return node.operator == Operator.OR or any(_has_or(a) for a in node.arguments)
    return False


def relaxations(sq: StructuredQuery, schema: MetadataSchema = DEFAULT_SCHEMA) -> list[StructuredQuery]:
    """The query itself, then with the least important field's conditions dropped, ..., then no filter."""
    conds = conditions(sq)
    steps = [sq]
    if not conds:
        return steps
    order = sorted({c.attribute for c in conds},
                   key=lambda a: (schema.get(a).importance if schema.get(a) else 0, a))
    kept = list(conds)
    op = "or" if _has_or(sq.filter) else "and"
    for attribute in order:
        kept = [c for c in kept if c.attribute != attribute]
        steps.append(StructuredQuery(query=sq.query, filter=_combine(kept, op), limit=sq.limit))
    return steps


def search_relaxed(vectorstore: Any, sq: StructuredQuery, k: int = 5,
                   schema: MetadataSchema = DEFAULT_SCHEMA) -> tuple[list[Any], StructuredQuery, list[str]]:
    """Search with the filter, relaxing it until something is found: (docs, filter used, notes)."""
    notes: list[str] = []
    docs: list[Any] = []
    step = sq
    for step in relaxations(sq, schema):
        query, where = to_chroma(step)
        docs = vectorstore.similarity_search(query, k=k, filter=where) if where else \
            vectorstore.similarity_search(query, k=k)
        if docs:
            break
        notes.append(f"no results with filter {where}; relaxing")
    return docs, step, notes


def build_retriever(llm: Any, vectorstore: Any, schema: MetadataSchema = DEFAULT_SCHEMA, **kwargs: Any):
    """LangChain's `SelfQueryRetriever` over a `Chroma` vectorstore, with the Chroma translator given."""
    from langchain_classic.retrievers.self_query.base import SelfQueryRetriever

    return SelfQueryRetriever.from_llm(
        llm, vectorstore, schema.document_contents, schema.attribute_info(),
        structured_query_translator=ListAwareChromaTranslator(), **kwargs)
