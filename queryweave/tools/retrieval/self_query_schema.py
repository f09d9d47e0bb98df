"""The metadata schema that self-query filters are built and validated against.

A user declares fields (name, type, description, allowed values, synonyms in both languages, and an
importance used when relaxing filters). `DEFAULT_SCHEMA` describes QueryWeave's own chunk metadata:
title, source, year (int), tags (a list, or a comma string in older stores), content_type, author,
lang. `with_vocabulary` fills in known values (tags, authors) from the knowledge base. A user's own
schema is `metadata_schema.json` in the data dir (`schema_for`); aliases in it are optional.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

TYPES = {"string", "integer", "float", "boolean", "list"}


@dataclass(frozen=True)
class FieldSpec:
    """One metadata field. `aliases` maps a stored value to words that name it (any language)."""

    name: str
    type: str = "string"
    description: str = ""
    values: tuple[str, ...] = ()
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    importance: int = 3  # lower is dropped first when a filter finds nothing

    def allows(self, value: Any) -> bool:
        """Whether `value` is one of the declared values (any value when none are declared)."""
        if not self.values:
            return True
        return str(value).lower() in {v.lower() for v in self.values}

    def canonical(self, value: Any) -> Any:
        """The declared spelling of `value` (case-insensitive match), or the value itself."""
        for v in self.values:
            if str(value).lower() == v.lower():
                return v
        return value


@dataclass(frozen=True)
class MetadataSchema:
    """The fields a filter may use, and what the documents are about (for the LLM's prompt)."""

    fields: tuple[FieldSpec, ...]
    document_contents: str = "Chunks of documents in a knowledge base"

    def get(self, name: str) -> FieldSpec | None:
        """The field called `name`, or None."""
        return next((f for f in self.fields if f.name == name), None)

    def with_vocabulary(self, **values: list[str]) -> MetadataSchema:
        """A copy whose fields get these known values, e.g. `with_vocabulary(tags=[...], author=[...])`."""
        fields = tuple(replace(f, values=tuple(dict.fromkeys([*f.values, *values[f.name]])))
                       if f.name in values else f for f in self.fields)
        return replace(self, fields=fields)

    def attribute_info(self) -> list[dict[str, str]]:
        """LangChain `AttributeInfo`-style dicts for the query constructor / SelfQueryRetriever."""
        out = []
        for f in self.fields:
            desc = f.description
            if f.values:
                desc += " One of: " + ", ".join(repr(v) for v in f.values[:40])
            typ = {"list": "list[string]", "integer": "integer", "float": "float"}.get(f.type, f.type)
            out.append({"name": f.name, "description": desc.strip(), "type": typ})
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MetadataSchema:
        """Build from config: `{"document_contents": ..., "fields": [{"name", "type", ...}, ...]}`."""
        fields = []
        for f in data.get("fields", []):
            if f.get("type", "string") not in TYPES:
                raise ValueError(f"field {f.get('name')!r}: type must be one of {sorted(TYPES)}")
            fields.append(FieldSpec(
                name=f["name"], type=f.get("type", "string"), description=f.get("description", ""),
                values=tuple(f.get("values", ())),
                aliases={k: tuple(v) for k, v in (f.get("aliases") or {}).items()},
                importance=int(f.get("importance", 3))))
        return cls(tuple(fields), data.get("document_contents", cls.document_contents))


CONTENT_TYPE_ALIASES = {
    "paper": ("paper", "papers", "论文", "学术论文"),
    "article": ("article", "articles", "文章"),
    "blog": ("blog", "blogs", "blog post", "blog posts", "博客", "博文"),
    "book": ("book", "books", "书", "书籍", "图书"),
    "report": ("report", "reports", "报告"),
    "documentation": ("documentation", "docs", "manual", "manuals", "文档", "手册"),
    "news": ("news", "新闻"),
    "code": ("code", "source code", "代码", "源代码"),
    "slides": ("slides", "slide deck", "幻灯片", "PPT"),
}
LANG_ALIASES = {
    "zh": ("Chinese documents", "Chinese sources", "Chinese papers", "Chinese articles", "written in Chinese",
           "中文资料", "中文文档", "中文文章", "中文论文", "中文的"),
    "en": ("English documents", "English sources", "English papers", "English articles", "written in English",
           "英文资料", "英文文档", "英文文章", "英文论文", "英文的", "英语"),
}

DEFAULT_SCHEMA = MetadataSchema(
    fields=(
        FieldSpec("title", "string", "Title of the source document.", importance=5),
        FieldSpec("source", "string", "File name or URL the chunk came from.", importance=5),
        FieldSpec("year", "integer", "Year the document was published.", importance=6),
        FieldSpec("tags", "list", "Topic tags of the document.", importance=3),
        FieldSpec("content_type", "string", "Kind of document.", values=tuple(CONTENT_TYPE_ALIASES),
                  aliases=CONTENT_TYPE_ALIASES, importance=2),
        FieldSpec("author", "string", "Author of the document.", importance=4),
        FieldSpec("lang", "string", "Language of the document: 'en' or 'zh'.", values=("en", "zh"),
                  aliases=LANG_ALIASES, importance=1),
    ),
    document_contents="Chunks of documents (papers, articles, documentation) in a knowledge base",
)


SCHEMA_FILE = "metadata_schema.json"


def schema_for(data_dir: str | Path | None) -> MetadataSchema:
    """The schema the user declared in `<data_dir>/metadata_schema.json`, else `DEFAULT_SCHEMA`."""
    path = Path(data_dir) / SCHEMA_FILE if data_dir else None
    if path is None or not path.is_file():
        return DEFAULT_SCHEMA
    return MetadataSchema.from_dict(json.loads(path.read_text(encoding="utf-8")))
