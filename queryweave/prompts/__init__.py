"""All prompt text, Chinese and English side by side. `pick(prompts, lang)` chooses one."""

from __future__ import annotations


def pick(prompts: dict[str, str], lang: str) -> str:
    """The prompt for `lang` ('zh' or 'en'), English when the language has none."""
    return prompts.get(lang) or prompts["en"]
