"""Media input turned into text: OCR of attached images (`ocr`); speech will live here too.

May import: `tools.common`, `tools.stores`, `tools.sql`, `tools.cypher`, `models`, `prompts`.
"""
