"""Evaluation: metrics and dataset readers (BEIR, Spider, HaluEval style)."""
