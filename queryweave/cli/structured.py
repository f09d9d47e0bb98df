"""`queryweave guard sql|cypher` (lint statements from stdin) and `queryweave eval sql|cypher DIR`.

`guard` reads one statement per line and prints one line per statement: `allowed: reason` or
`blocked: reason`; the exit code is 1 when any statement was blocked. `eval sql` / `eval cypher`
measure execution accuracy with the run's LLM (`--model-url` points at an OpenAI-compatible server);
`--folds-by-database` / `--folds-by-type` make it a leave-one-group-out evaluation (`eval.folds`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from queryweave.cli.main import fail, print_json


def run_guard(args: argparse.Namespace) -> int:
    """Judge each stdin line; print one verdict line per statement."""
    if args.language == "sql":
        from queryweave.tools.sql.guard import check_sql

        def judge(s: str):
            return check_sql(s, args.dialect)
    else:
        from queryweave.tools.cypher.guard import check_cypher as judge
    blocked = 0
    for line in sys.stdin:
        statement = line.strip()
        if not statement:
            continue
        verdict = judge(statement)
        blocked += not verdict.allowed
        print(verdict.line())
    return 1 if blocked else 0


def _llm(args: argparse.Namespace):
    """The run's model; its temperature-0 calls are asked once per run (`eval.greedy_cache`): the rows
    of one evaluation share their opening prompts, and sampled calls stay samples."""
    from queryweave.eval.greedy_cache import GreedyCache, GreedyFileCache
    from queryweave.models import get_chat_model

    ctx = args.context
    if args.model_url:
        ctx = ctx.with_overrides(llm="openai", openai_base_url=args.model_url,
                                 openai_model=args.model_name or ctx.openai_model)
    llm = get_chat_model(ctx.model_settings())
    if llm is not None and hasattr(llm, "cache"):
        path = getattr(args, "llm_cache", None)
        llm.cache = GreedyFileCache(path) if path else GreedyCache()
    return llm


def _embeddings(args: argparse.Namespace):
    """The run's embedding model, for column linking by meaning (None when it cannot load)."""
    from queryweave.tools.stores.embeddings import get_embeddings

    try:
        return get_embeddings(args.context.embedding)
    except Exception:
        return None


def _progress(args: argparse.Namespace):
    """Per-question progress on stderr; with --items also appends each result to that file as it comes."""
    show_lines = not (args.json or args.quiet)
    if not show_lines and not args.items:
        return None
    if args.items:
        Path(args.items).write_text("", encoding="utf-8")
    counter = {"n": 0, "ok": 0}

    def show(item: dict) -> None:
        counter["n"] += 1
        counter["ok"] += bool(item["correct"])
        if args.items:
            with open(args.items, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(item, ensure_ascii=False, default=str) + "\n")
        if show_lines:
            tag = "baseline " if item.get("baseline") else ""
            print(f"[{counter['n']}] {tag}{item['lang']} {'ok ' if item['correct'] else 'bad'} "
                  f"acc={counter['ok'] / counter['n']:.3f} {item['seconds']}s", file=sys.stderr, flush=True)
    return show


def _report(args: argparse.Namespace, report: dict) -> int:
    if args.items:
        Path(args.items).write_text("\n".join(json.dumps(i, ensure_ascii=False, default=str)
                                              for i in report["items"]) + "\n", encoding="utf-8")
    report = {k: v for k, v in report.items() if k != "items"}
    if args.seed is not None:
        report["seed"] = args.seed  # the draw, so that it can be repeated
    if args.json:
        print_json(report)
        return 0
    print(f"execution accuracy {report['execution_accuracy']:.3f} (n={report['n']}, "
          f"failed to run {report['failed_to_run']:.3f})")
    if report.get("excluded"):  # gold queries that return nothing whatever is predicted
        print(f"excluded {report['excluded']} questions: " + (report.get("excluded_items") or [{}])[0].get("reason", ""))
    for lang, block in report["by_language"].items():
        print(f"  {lang}: {block['execution_accuracy']:.3f} (n={block['n']}, failed to run {block['failed_to_run']:.3f})")
    if "rows" in report:  # leave-one-group-out: every row of the same run, then the folds
        from queryweave.eval.folds import table_lines

        print(f"chosen row: {report['chosen_row']} (folds by {report['folds_by']}: {', '.join(report['groups'])})")
        print("\n".join(table_lines(report)))
    if "baseline" in report:
        b = report["baseline"]
        print(f"naive baseline {b['execution_accuracy']:.3f} (n={b['n']}, failed to run {b['failed_to_run']:.3f})")
        for lang, block in b["by_language"].items():
            print(f"  {lang}: {block['execution_accuracy']:.3f} (n={block['n']})")
    return 0


def _names(args: argparse.Namespace) -> list[str] | None:
    return [x.strip() for x in args.candidates.split(",") if x.strip()] if args.candidates else None


def run_eval_sql(args: argparse.Namespace) -> int:
    """Spider-style execution accuracy."""
    from queryweave.eval.spider import evaluate_sql

    llm = _llm(args)
    if llm is None:
        return fail("Text-to-SQL needs an LLM back-end: pass --llm openai|llamacpp or --model-url URL")
    langs = tuple(x.strip() for x in args.languages.split(",") if x.strip())
    if args.folds_by_database:
        from queryweave.eval.spider_folds import evaluate_sql_folds

        if args.translate_questions:
            return fail("with --folds-by-database, translation is a candidate row: "
                        "--candidates +translate,default+translate")
        if args.prompt_language:
            return fail("with --folds-by-database, the prompt language is a candidate row: "
                        "--candidates default,default+en-prompt")
        return _report(args, evaluate_sql_folds(args.dir, llm, limit=args.limit, languages=langs,
                                                names=_names(args), progress=_progress(args),
                                                embeddings=_embeddings(args), keep_all=args.keep_all,
                                                seed=args.seed))
    report = evaluate_sql(args.dir, llm, limit=args.limit, languages=langs, baseline=args.baseline,
                          progress=_progress(args), max_retries=args.retries,
                          translate_questions=args.translate_questions, examples=args.examples,
                          samples=args.samples, shape_repairs=args.shape_repairs, shape_select=args.shape_select,
                          link_columns=args.link_columns, embeddings=_embeddings(args) if args.link_columns else None,
                          fix_joins=args.fix_joins, drop_joins=_drop_joins(args), keep_all=args.keep_all, seed=args.seed,
                          link_values=args.link_values, cross_lingual_tables=_reader(args),
                          term_senses=_senses(args), bilingual=args.bilingual, ground_values=_readings(args),
                          hint_readings=_hint_readings(args), prompt_language=args.prompt_language,
                          translation_names=_translation_names(args), asked_only=args.asked_only)
    return _report(args, report)


def _reader(args: argparse.Namespace) -> object:
    """`--cross-lingual-tables`: Chinese questions' tables chosen by their English readings (glossary)."""
    from queryweave.tools.understanding.glossary import question_terms

    return question_terms if args.cross_lingual_tables else None


def _senses(args: argparse.Namespace) -> object:
    """`--term-links`: a Chinese question's words linked to the names they mean (glossary readings)."""
    from queryweave.tools.understanding.glossary import word_senses

    return word_senses if args.term_links else None


def _readings(args: argparse.Namespace) -> object:
    """`--ground-values`: a Chinese question's literals grounded in its words' readings (CC-CEDICT)."""
    from queryweave.tools.understanding.zh_dictionary import word_readings

    return word_readings if args.ground_values else None


def _hint_readings(args: argparse.Namespace) -> object:
    """`--reading-hints`: a Chinese question's value hints from its words' name readings (CC-CEDICT)."""
    from queryweave.tools.understanding.zh_dictionary import name_readings

    return name_readings if args.reading_hints else None


def _translation_names(args: argparse.Namespace) -> object:
    """`--translation-names`: a Chinese question translated with its names as stored (CC-CEDICT name readings)."""
    from queryweave.tools.understanding.zh_dictionary import name_readings

    return name_readings if args.translation_names else None


def _drop_joins(args: argparse.Namespace) -> object:
    """`--drop-joins`: the join rule reading questions in both languages (tools.understanding.glossary)."""
    from queryweave.tools.understanding.glossary import question_terms

    return question_terms if args.drop_joins else False


def run_eval_cypher(args: argparse.Namespace) -> int:
    """text2cypher-style execution accuracy on the embedded graph engine."""
    from queryweave.eval.cypher_eval import evaluate_cypher

    llm = _llm(args)
    if llm is None:
        return fail("Text-to-Cypher needs an LLM back-end: pass --llm openai|llamacpp or --model-url URL")
    if args.folds_by_type:
        from queryweave.eval.cypher_folds import evaluate_cypher_folds

        return _report(args, evaluate_cypher_folds(args.dir, llm, limit=args.limit, names=_names(args),
                                                   progress=_progress(args), seed=args.seed))
    return _report(args, evaluate_cypher(args.dir, llm, limit=args.limit, progress=_progress(args),
                                         baseline=args.baseline, max_retries=args.retries,
                                         examples=args.examples, samples=max(1, args.samples), seed=args.seed))


def register(sub: argparse._SubParsersAction) -> None:
    """Add `guard sql|cypher`."""
    p = sub.add_parser("guard", help="check SQL or Cypher statements (one per stdin line) for read-only safety")
    p.add_argument("language", choices=["sql", "cypher"])
    p.add_argument("--dialect", default="sqlite", help="SQL dialect for the parser (sqlite, postgres, ...)")
    p.set_defaults(func=run_guard)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--limit", type=int, default=None, help="only N questions, spread evenly over the file")
    p.add_argument("--json", action="store_true", help="print {execution_accuracy, n, by_language}")
    p.add_argument("--model-url", default=None, help="OpenAI-compatible endpoint (else the run's --llm)")
    p.add_argument("--model-name", default=None, help="model name at --model-url")
    p.add_argument("--items", default=None, help="write per-question results to this JSONL file")
    p.add_argument("--quiet", action="store_true", help="no per-question progress on stderr")
    p.add_argument("--llm-cache", default=None, metavar="FILE",
                   help="keep the model's temperature-0 replies in this SQLite file across runs "
                        "(one file per model; sampled calls are never kept)")
    p.add_argument("--seed", type=int, default=None,
                   help="sampled calls (votes, retries) of each question carry seeds N, N+1, ...: the same N "
                        "repeats a run, another N is an independent draw (default: the endpoint's random state)")
    p.add_argument("--candidates", default=None,
                   help="with folds: only these rows, comma-separated (minimal,+linking,+examples,+pool,"
                        "+repairs,+vote,+shape-select,+columns,+joins,+repairs+shape,+repairs+joins,default,default-shape,"
                        "default-shape-select,default-shape-repairs,default-joins,default+columns,+repairs+joins+vote,"
                        "+translate,default+translate,+drop-joins,+repairs+drop-joins,default+drop-joins,all; "
                        "Cypher: minimal,+examples,+pool,+repairs,+vote,+vote5,default,+examples+vote,default+vote,"
                        "+examples+vote5,all; minimal is always kept)")


def register_eval(ev: argparse._SubParsersAction) -> None:
    """Add `eval sql DIR` and `eval cypher DIR`."""
    p = ev.add_parser("sql", help="Text-to-SQL execution accuracy on a Spider-layout folder")
    p.add_argument("dir", help="folder with questions.jsonl and database/<db>/<db>.sqlite")
    p.add_argument("--languages", default="en,zh", help="comma list of question languages")
    p.add_argument("--baseline", action="store_true", help="also score the naive whole-schema one-shot prompt")
    p.add_argument("--retries", type=int, default=2, help="repair attempts after an error")
    p.add_argument("--translate-questions", action="store_true",
                   help="translate Chinese questions into English first (one extra model call); with "
                        "--folds-by-database it is a candidate instead: +translate, default+translate")
    p.add_argument("--examples", type=int, default=3,
                   help="schema-derived few-shot examples in the prompt (0: none)")
    p.add_argument("--samples", type=int, default=1,
                   help="self-consistency: sample N queries and keep the result most agree on (1: off)")
    p.add_argument("--shape-repairs", action=argparse.BooleanOptionalAction, default=True,
                   help="retry a query whose result lacks the shape the question asks for (a count, one row...; "
                        "on by default)")
    p.add_argument("--shape-select", type=int, default=2,
                   help="when the result still lacks that shape, sample up to N more queries, take the first "
                        "that fits (default 2; 0: off)")
    p.add_argument("--fix-joins", action=argparse.BooleanOptionalAction, default=True,
                   help="rewrite joins that contradict the declared foreign keys (on by default)")
    p.add_argument("--link-values", action=argparse.BooleanOptionalAction, default=True,
                   help="move a comparison whose values its column never holds to the column that holds them "
                        "(on by default)")
    p.add_argument("--cross-lingual-tables", action=argparse.BooleanOptionalAction, default=False,
                   help="choose a Chinese question's tables by the English readings of its words (off by default)")
    p.add_argument("--bilingual", action=argparse.BooleanOptionalAction, default=True,
                   help="show a Chinese question with its English translation beside it (one model call; "
                        "on by default)")
    p.add_argument("--prompt-language", choices=("en", "zh"), default=None,
                   help="instructions, examples and feedback in this language whatever the question's "
                        "(default: the question's own)")
    p.add_argument("--term-links", action=argparse.BooleanOptionalAction, default=False,
                   help="list the tables and columns a Chinese question's words name, by their English "
                        "readings (off by default)")
    p.add_argument("--ground-values", action=argparse.BooleanOptionalAction, default=True,
                   help="replace a Chinese question's literal that none of its words reads to by the one value "
                        "of its column that a word reads to (on by default)")
    p.add_argument("--reading-hints", action=argparse.BooleanOptionalAction, default=True,
                   help="show a Chinese question, as value hints, the stored values its words read to as names "
                        "(\"state.state_name = 'nebraska' (内布拉斯加州)\"; on by default)")
    p.add_argument("--translation-names", action=argparse.BooleanOptionalAction, default=False,
                   help="translate a Chinese question with the stored values its words read to as names in place "
                        "of the words (得克萨斯州 -> Texas; off by default)")
    p.add_argument("--asked-only", action=argparse.BooleanOptionalAction, default=False,
                   help="use a Chinese question's translation only when it reads as a question or a request, "
                        "not an answer (\"Denver is in Colorado.\"; off by default)")
    p.add_argument("--drop-joins", action=argparse.BooleanOptionalAction, default=False,
                   help="also drop an inner join that nothing but its own condition uses and the question "
                        "never names (off by default)")
    p.add_argument("--link-columns", action="store_true",
                   help="score columns by the question's words, values and meaning; show the best in the prompt")
    p.add_argument("--folds-by-database", action="store_true",
                   help="leave one database out: choose every mechanism on the other databases, score on it; "
                        "all rows (naive, each mechanism alone, default, chosen) per language, one run")
    p.add_argument("--keep-all", action="store_true",
                   help="also score questions whose gold query compares with a value the data never holds "
                        "(left out by default: any empty answer matches them)")
    _common(p)
    p.set_defaults(func=run_eval_sql)
    p = ev.add_parser("cypher", help="Text-to-Cypher execution accuracy on a text2cypher-style folder")
    p.add_argument("dir", help="folder with questions.jsonl and a *.cypher CREATE script")
    p.add_argument("--baseline", action="store_true", help="also score the naive one-shot prompt (no repair)")
    p.add_argument("--retries", type=int, default=2, help="repair attempts after an error")
    p.add_argument("--examples", type=int, default=5,
                   help="schema-derived few-shot examples in the prompt (0: none)")
    p.add_argument("--samples", type=int, default=3,
                   help="self-consistency: N queries vote by their results (default 3, as the graph's node; 1: off)")
    p.add_argument("--folds-by-type", action="store_true",
                   help="leave one question type out: choose the mechanisms on the other types, score on it; "
                        "gold queries reading properties the graph never sets are excluded")
    _common(p)
    p.set_defaults(func=run_eval_cypher)
