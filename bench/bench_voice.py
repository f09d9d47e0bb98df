"""Speech-to-text on espeak-ng speech: word / character error rates and real-time factor per model.

English sentences are spoken by espeak-ng's `en-us` voice, Chinese ones by `cmn-latn-pinyin` (Debian's
espeak-ng 1.51 reads Chinese with the plain `cmn` voice as English-accented pinyin, which no
recogniser understands). Each sentence is transcribed with the language detected (zh vs en) and
with it given. WER for English, CER for Chinese (`queryweave.eval.asr`), summed over sentences;
RTF = transcription time (decode + detect + recognise, model already loaded) / audio duration.

    python bench/bench_voice.py [--models base tiny.en] [--markdown]

Needs the voice extra and `apt-get install espeak-ng`; writes the wav files to a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from queryweave.eval.asr import edit_distance, units  # noqa: E402
from queryweave.tools.media.speech import get_model, transcribe  # noqa: E402

EN = ["What is HikariCP's default maximum pool size?",
      "What is the default max connections in PostgreSQL?",
      "How do I enable the slow query log in MySQL?",
      "Which garbage collector does Java use by default?",
      "How can I reduce the memory used by a Docker container?",
      "What does the Kubernetes liveness probe check?"]
ZH = ["数据库的最大连接数默认是多少",
      "如何开启慢查询日志",
      "今天天气很好，我们去公园散步吧。",
      "怎样减少容器占用的内存",
      "连接池的大小应该怎么设置",
      "垃圾回收器默认是哪一个"]
VOICES = {"en": "en-us", "zh": "cmn-latn-pinyin"}


def speak(text: str, lang: str, path: Path) -> Path:
    """A wav of `text` spoken by espeak-ng."""
    subprocess.run(["espeak-ng", "-v", VOICES[lang], "-s", "140", "-w", str(path), text], check=True)
    return path


def run(model: str, lang: str, wavs: list[tuple[str, Path]], given: bool) -> dict:
    """Error rate, language accuracy and RTF of one model over one language's sentences."""
    errors = ref_units = right_lang = 0
    audio_s = run_s = 0.0
    samples = []
    for text, wav in wavs:
        t = time.perf_counter()
        heard = transcribe(wav, language=lang if given else None, model=model)
        run_s += time.perf_counter() - t
        audio_s += heard.duration_s
        ref = units(text)
        errors += edit_distance(ref, units(heard.text))
        ref_units += len(ref)
        right_lang += heard.language == lang
        samples.append(heard.text)
    return {"model": model, "lang": lang, "language": "given" if given else "detected",
            "error_rate": errors / max(1, ref_units), "lang_acc": right_lang / len(wavs),
            "rtf": run_s / max(1e-9, audio_s), "audio_s": audio_s, "n": len(wavs), "samples": samples}


def main() -> int:
    """Print one row per (model, language, detected/given)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=["base", "tiny.en"])
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--samples", action="store_true", help="also print every transcript")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="qw-voice-") as tmp:
        sets = {lang: [(s, speak(s, lang, Path(tmp) / f"{lang}{i}.wav")) for i, s in enumerate(sents)]
                for lang, sents in (("en", EN), ("zh", ZH))}
        for model in args.models:
            t = time.perf_counter()
            get_model(model)
            load_s = time.perf_counter() - t
            english_only = model.endswith(".en")
            for lang, wavs in sets.items():
                if english_only and lang != "en":
                    continue
                for given in ((True,) if english_only else (False, True)):
                    row = run(model, lang, wavs, given) | {"load_s": load_s}
                    rows.append(row)
                    print(f"# {row['model']} {lang} ({row['language']}): {row['samples']}", file=sys.stderr, flush=True)
    threads = os.environ.get("QUERYWEAVE_WHISPER_THREADS") or f"min(4, cpus={os.cpu_count()})"
    head = "| model | language | sentences (audio s) | WER / CER | language right | RTF | model load s |"
    print(f"espeak-ng speech, faster-whisper int8 on CPU, {threads} threads, load average "
          f"{os.getloadavg()[0]:.1f}\n")
    print(head + "\n|" + "---|" * 7 if args.markdown else head)
    for r in rows:
        metric = "WER" if r["lang"] == "en" else "CER"
        print(f"| {r['model']} | {r['lang']} ({r['language']}) | {r['n']} ({r['audio_s']:.1f}) | "
              f"{metric} {r['error_rate']:.3f} | {r['lang_acc']:.2f} | {r['rtf']:.2f} | {r['load_s']:.1f} |")
        if args.samples:
            for s in r["samples"]:
                print(f"|   | {s} | | | | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
