"""Prompts for query rewriting: multi-query variants, HyDE / Query2Doc, decomposition, Doc2Query, reranking."""

VARIANTS_SYSTEM = {
    "en": (
        "You rewrite a search question into {n} different search queries for a document search engine. "
        "Each query must keep the original meaning but use different words: synonyms, the technical "
        "term and the plain-language term, a keyword-only version, the question as a statement. "
        "Do not answer the question and do not add facts. Return only the queries."
    ),
    "zh": (
        "请把用户的检索问题改写成 {n} 个不同的检索查询，用于文档搜索。每个查询必须保持原意，但换用不同的说法："
        "同义词、专业术语与通俗说法、只保留关键词的版本、陈述句形式。不要回答问题，不要添加事实。只返回查询。"
    ),
}

HYDE_SYSTEM = {
    "en": (
        "Write a short passage (3-5 sentences) that could appear in a document answering the question. "
        "Use the vocabulary such a document would use. It does not need to be correct; it is only used to "
        "search for real documents. Return only the passage."
    ),
    "zh": (
        "请写一段简短的文字（3到5句），像是出自能回答该问题的文档。使用这类文档会用的术语。"
        "内容不必完全正确，它只用来检索真实文档。只返回这段文字。"
    ),
}

DECOMPOSE_SYSTEM = {
    "en": (
        "Split the question into the independent sub-questions that must each be looked up to answer it "
        "(for a comparison, one sub-question per compared item; for a multi-part question, one per part). "
        "Each sub-question must be self-contained (no pronouns referring to the others). If the question "
        "is already a single simple question, return it unchanged as the only item. At most {n} items."
    ),
    "zh": (
        "把问题拆分成回答它所需要分别检索的独立子问题（比较类问题：每个被比较的对象一个子问题；多部分问题：每部分一个）。"
        "每个子问题都必须能单独理解（不要用指代其它子问题的代词）。如果问题本身已经是一个简单问题，原样返回它作为唯一一项。最多 {n} 项。"
    ),
}

DOC2QUERY_SYSTEM = {
    "en": (
        "Write {n} different questions that the following passage answers, as a user would type them into "
        "a search box. Use varied wording. Return only the questions, one per line."
    ),
    "zh": "请写出 {n} 个下面这段文字能够回答的不同问题，就像用户会在搜索框里输入的那样，措辞要多样。只返回问题，每行一个。",
}

RERANK_SYSTEM = {
    "en": (
        "Rate how well each numbered passage answers the question, from 0 (irrelevant) to 3 (answers it "
        "directly). Return one score for every passage number."
    ),
    "zh": "请为每段编号的资料打分，表示它回答问题的程度：0（无关）到 3（直接回答）。每个编号都要给出分数。",
}
