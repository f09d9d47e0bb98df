"""Leave-one-group-out evaluation: every choice made on data is made without the group it is scored on.

A *group* is a database (Text-to-SQL) or a kind of question (Text-to-Cypher). A *candidate* is one
setting of the pipeline's mechanisms (schema linking, schema-derived examples, worked examples from a
pool, repairs, voting...). `leave_one_group_out` scores

  - every candidate on every question, with the example pool built from the *other* groups (so the
    fixed rows are ablation rows: each mechanism alone, the default, everything), and
  - the *chosen* row: for each held-out group and language, the candidate with the best accuracy on
    the other groups' questions — whose example pools also leave out the held-out group — scored
    on the held-out group. Ties go to the candidate with fewer mechanisms.

`score(candidate, question, excluded)` runs one question with a pool that leaves out `excluded` and
the question's own group; it is expected to cache by what the prompt shows, so a training question
whose nearest pool examples do not come from the held-out group is not asked twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from queryweave.eval.execution import summarize


@dataclass(frozen=True)
class Candidate:
    """A named setting of the pipeline; `mechanisms` are the switches it turns on."""

    name: str
    options: tuple[tuple[str, Any], ...]
    mechanisms: tuple[str, ...] = ()
    uses_pool: bool = False

    def kwargs(self) -> dict[str, Any]:
        """The tool's keyword arguments."""
        return dict(self.options)


@dataclass(frozen=True)
class Question:
    """One question in one language, its group, and its index in the source file."""

    index: int
    lang: str
    text: str
    group: str
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def key(self) -> tuple[int, str]:
        """Identity of the question (file row, language)."""
        return self.index, self.lang


def candidates(off: dict[str, Any], switches: dict[str, dict[str, Any]], default: Sequence[str],
               pool_switch: str = "pool", extra: dict[str, dict[str, Any]] | None = None,
               combos: dict[str, Sequence[str]] | None = None) -> list[Candidate]:
    """minimal (all off), +each switch alone, the tool's default, any named `combos` of switches
    ({"default+shape": [...]}), everything on, and any `extra` variants of a switch
    ({"+repairs(cutoff 0.95)": {...}}), in order of size (the tie-break)."""
    def make(name: str, names: Sequence[str], more: dict[str, Any] | None = None) -> Candidate:
        opts = dict(off)
        for n in names:
            opts.update(switches[n])
        opts.update(more or {})
        return Candidate(name, tuple(sorted(opts.items())), tuple(names), pool_switch in names)

    out = [make("minimal", [])]
    out += [make(f"+{n}", [n]) for n in switches]
    for name, more in (extra or {}).items():
        base = name.split("(")[0].lstrip("+")
        out.append(make(name, [base], more))
    out.append(make("default", list(default)))
    out += [make(name, list(names)) for name, names in (combos or {}).items()]
    out.append(make("all", list(switches)))
    return out


Score = Callable[[Candidate, Question, frozenset[str]], dict[str, Any]]


def leave_one_group_out(questions: Sequence[Question], cands: Sequence[Candidate], score: Score,
                        chosen_name: str = "leave-one-group-out") -> dict[str, Any]:
    """Rows for each candidate, the chosen row, and one record per (held-out group, language)."""
    rows = {c.name: [score(c, q, frozenset()) for q in questions] for c in cands}
    folds: list[dict[str, Any]] = []
    chosen: list[dict[str, Any]] = []
    groups = sorted({q.group for q in questions})
    langs = sorted({q.lang for q in questions})
    for g in groups:
        for lang in langs:
            test = [q for q in questions if q.group == g and q.lang == lang]
            train = [q for q in questions if q.group != g and q.lang == lang]
            if not test:
                continue
            acc: dict[str, float] = {}
            seen: set[str] = set()
            for c in cands:
                items = [score(c, q, frozenset({g})) for q in train]
                acc[c.name] = round(sum(bool(i["correct"]) for i in items) / len(items), 4) if items else 0.0
                seen |= {s for i in items for s in i.get("pool_from", ())} | {q.group for q in train}
            order = {c.name: k for k, c in enumerate(cands)}
            best = max(cands, key=lambda c: (acc[c.name], -len(c.mechanisms), -order[c.name]))
            scored = [{**score(best, q, frozenset()), "fold": g, "chosen": best.name} for q in test]
            chosen += scored
            folds.append({"held_out": g, "lang": lang, "chosen": best.name, "train_n": len(train),
                          "train_accuracy": acc, "train_saw": sorted(seen),
                          "held_out_accuracy": summarize(scored)["execution_accuracy"], "n": len(test)})
    table = {name: summarize(items) for name, items in rows.items()}
    table[chosen_name] = summarize(chosen)
    all_items = [{**i, "row": name} for name, items in rows.items() for i in items]
    return {"rows": table, "folds": folds, "chosen_items": chosen, "row_items": all_items, "groups": groups}


def report(result: dict[str, Any], naive_items: list[dict[str, Any]], chosen_name: str,
           **extra: Any) -> dict[str, Any]:
    """The `eval` report: the chosen row as the headline, the naive row as `baseline`, all rows by name."""
    out = summarize(result["chosen_items"])
    out["baseline"] = summarize(naive_items)
    out["rows"] = {"naive": out["baseline"], **result["rows"]}
    out["folds"] = result["folds"]
    out["groups"] = result["groups"]
    out["chosen_row"] = chosen_name
    out.update(extra)
    out["items"] = [{**i, "row": chosen_name} for i in result["chosen_items"]] + result["row_items"] + \
        [{**i, "row": "naive", "baseline": True} for i in naive_items]
    return out


def table_lines(rep: dict[str, Any]) -> list[str]:
    """The rows as text: one line per row, accuracy per language and overall."""
    langs = sorted({lang for row in rep["rows"].values() for lang in row["by_language"]})
    lines = [f"{'row':<28}" + "".join(f"{lang:>9}" for lang in langs) + f"{'all':>9}{'strict':>9}{'n':>6}"]
    for name, row in rep["rows"].items():
        cells = "".join(f"{row['by_language'].get(lang, {}).get('execution_accuracy', 0.0):>9.3f}" for lang in langs)
        strict = f"{row['exact_accuracy']:>9.3f}" if "exact_accuracy" in row else f"{'-':>9}"
        lines.append(f"{name:<28}{cells}{row['execution_accuracy']:>9.3f}{strict}{row['n']:>6}")
    for f in rep["folds"]:
        lines.append(f"  fold {f['held_out']} [{f['lang']}]: chosen {f['chosen']} "
                     f"(train {f['train_accuracy'][f['chosen']]:.3f} on {f['train_n']}) -> "
                     f"held out {f['held_out_accuracy']:.3f} (n={f['n']})")
    return lines
