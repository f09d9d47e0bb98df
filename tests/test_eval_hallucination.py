"""HaluEval/UHGEval readers, metrics and the `eval hallucination` command on tiny JSONL fixtures."""

from __future__ import annotations

import json

import pytest
from fake_openai import fake_openai

from queryweave.cli.main import main
from queryweave.eval.hallucination import detector, evaluate, metrics, read_hallucination, strict_for

DOC = ("The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is 330 metres tall and "
       "was designed by the engineering company of Gustave Eiffel.")
ZH_BEGIN = "新华社北京1月22日电 长城于1987年被列入世界文化遗产名录。明长城全长约8851.8千米。"

RECORDS = {
    "qa": {"knowledge": DOC, "question": "When was the Eiffel Tower completed?",
           "right_answer": "It was completed in 1889.",
           "hallucinated_answer": "It was completed in 1925 by Frank Lloyd Wright."},
    "summarization": {"document": DOC, "right_summary": "The Eiffel Tower was completed in 1889 in Paris.",
                      "hallucinated_summary": "The Eiffel Tower was completed in 1925 in Berlin."},
    "dialogue": {"knowledge": DOC, "dialogue_history": "[Human]: Do you like the Eiffel Tower?",
                 "right_response": "Yes! It was completed in 1889 for the World's Fair.",
                 "hallucinated_response": "Yes! Napoleon Bonaparte opened it in 1925."},
    "uhgeval": {"id": "doc_1", "headLine": "长城", "newsBeginning": ZH_BEGIN,
                "realContinuation": "长城于1987年被列入世界文化遗产名录。",
                "hallucinatedContinuation": "长城于2003年被诸葛亮列入世界文化遗产名录。",
                "newsRemainder": "长城于1987年被列入世界文化遗产名录。后文"},
}


def _write(path, rows):
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", list(RECORDS))
def test_reader_pairs_right_and_hallucinated(tmp_path, kind):
    items = read_hallucination(_write(tmp_path / f"{kind}.jsonl", [RECORDS[kind]]))
    assert [it.label for it in items] == [0, 1]
    assert {it.kind for it in items} == {kind}
    assert items[0].sources and all(s for s in items[0].sources)
    if kind == "uhgeval":  # the remainder holds the true continuation: never a source
        assert items[0].sources == ["长城\n" + ZH_BEGIN]
    if kind == "dialogue":
        assert items[0].sources[1].startswith("[Human]")
    if kind == "qa":
        assert items[1].question.startswith("When")


def test_reader_limit_counts_records_and_rejects_unknown(tmp_path):
    path = _write(tmp_path / "s.jsonl", [RECORDS["summarization"]] * 5)
    assert len(read_hallucination(path, limit=2)) == 4
    with pytest.raises(ValueError):
        read_hallucination(_write(tmp_path / "bad.jsonl", [{"foo": 1}]))
    with pytest.raises(FileNotFoundError):
        read_hallucination(tmp_path / "missing.jsonl")


def test_metrics_hallucinated_is_positive():
    m = metrics([0, 0, 1, 1, 1], [0, 1, 1, 1, 0])
    assert m == {"accuracy": 0.6, "precision": 0.6667, "recall": 0.6667, "n": 5}
    assert metrics([0, 0], [0, 0]) == {"accuracy": 1.0, "precision": 0.0, "recall": 0.0, "n": 2}


def test_detector_on_planted_fixtures(tmp_path):
    rows = [RECORDS["summarization"], RECORDS["dialogue"], RECORDS["qa"]]
    items = read_hallucination(_write(tmp_path / "mix.jsonl", rows))
    result = evaluate(items, detector(strict=True))
    assert result["n"] == 6
    assert result["recall"] == 1.0  # every planted hallucination has an invented number and name
    assert result["accuracy"] >= 5 / 6


def test_cli_json_output(tmp_path, capsys):
    path = _write(tmp_path / "s.jsonl", [RECORDS["summarization"], RECORDS["uhgeval"]])
    assert main(["eval", "hallucination", str(path), "--json", "--strict"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"accuracy", "precision", "recall", "n"} and out["n"] == 4
    assert out["recall"] == 1.0


def test_cli_items_file_has_one_line_per_text(tmp_path, capsys):
    path = _write(tmp_path / "s.jsonl", [RECORDS["qa"], RECORDS["summarization"]])
    items = tmp_path / "items.jsonl"
    assert main(["eval", "hallucination", str(path), "--json", "--items", str(items)]) == 0
    result = json.loads(capsys.readouterr().out)
    lines = [json.loads(x) for x in items.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == result["n"] == 4 and {x["label"] for x in lines} == {0, 1}
    wrong_year = next(x for x in lines if x["kind"] == "qa" and x["label"] == 1)
    assert wrong_year["hallucinated"] == 1 and wrong_year["method"] == "offline" and wrong_year["unsupported"]
    correct = sum(x["hallucinated"] == x["label"] for x in lines) / len(lines)
    assert correct == result["accuracy"]


def test_cli_missing_file_is_a_clean_error(tmp_path, capsys):
    assert main(["eval", "hallucination", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_summaries_are_judged_by_score_answers_strictly(tmp_path, capsys):
    # a right summary that names an author the document never mentions (as HaluEval references do)
    row = {"document": DOC, "right_summary": "Julian Zelizer: The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
           "hallucinated_summary": "The tower hosts a famous restaurant run by celebrity chefs."}
    path = _write(tmp_path / "s.jsonl", [row])
    results = {}
    for flags in ([], ["--lenient"], ["--strict"]):
        assert main(["eval", "hallucination", str(path), "--json", *flags]) == 0
        results[" ".join(flags)] = json.loads(capsys.readouterr().out)["accuracy"]
    assert results == {"": 1.0, "--lenient": 1.0, "--strict": 0.5}
    # an answer with a name the knowledge lacks is hallucinated by default (strict for QA) ...
    qa = {"knowledge": DOC, "question": "Who designed it?", "right_answer": "Gustave Eiffel's company",
          "hallucinated_answer": "It was designed by the engineering company of Frank Lloyd Wright."}
    qa_path = _write(tmp_path / "qa.jsonl", [qa])
    assert main(["eval", "hallucination", str(qa_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["accuracy"] == 1.0
    # ... and passes on its copied words alone with --lenient
    assert main(["eval", "hallucination", str(qa_path), "--json", "--lenient"]) == 0
    assert json.loads(capsys.readouterr().out)["recall"] == 0.0


def test_strictness_by_kind():
    assert strict_for("qa") and strict_for("dialogue")
    assert not strict_for("summarization") and not strict_for("uhgeval")
    assert strict_for("summarization", True) and not strict_for("qa", False)


def test_cli_llm_grader_always_or_only_when_unsure(tmp_path, capsys):
    # right: a paraphrase the rules are unsure of (score ~0.43); hallucinated: copied words with a
    # wrong year and city, which the score alone passes with certainty (~1.0)
    row = {"document": DOC, "right_summary": "Gustave Eiffel's firm designed the tower that stands in Paris.",
           "hallucinated_summary": "The Eiffel Tower was completed in 1925 in Berlin."}
    path = _write(tmp_path / "s.jsonl", [row])
    assert main(["eval", "hallucination", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["accuracy"] == 0.0

    def every_claim_supported(name, body):
        return {"verdicts": [{"index": i, "supported": True, "source": 1, "score": 0.9} for i in (1, 2, 3)]}

    for when, calls, accuracy in (("always", 2, 0.5), ("unsure", 1, 0.5)):
        with fake_openai(tool_args=every_claim_supported) as fake:
            assert main(["eval", "hallucination", str(path), "--json", "--model-url", fake.url,
                         "--model-name", "fake", "--llm-when", when]) == 0
        out = json.loads(capsys.readouterr().out)
        assert fake.hits["/v1/chat/completions"] == calls and out["accuracy"] == accuracy
        assert out["precision"] == 0.0  # the model passed the wrong year: nothing flagged


def test_cli_llm_grader_without_a_model_is_a_clean_error(tmp_path, capsys):
    path = _write(tmp_path / "s.jsonl", [RECORDS["summarization"]])
    assert main(["--llm", "rules", "eval", "hallucination", str(path), "--llm-grader"]) == 2
    assert "needs an LLM back-end" in capsys.readouterr().err
