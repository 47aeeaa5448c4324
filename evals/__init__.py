"""Evaluation: VQAU-Bench-style metrics over predicted moments."""
