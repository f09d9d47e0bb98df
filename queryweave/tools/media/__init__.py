"""Image and audio input: OCR and speech-to-text; imports only the standard library and the tools' text helpers."""
