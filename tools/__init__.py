"""Perception tools: faces, expression, ASR, prosody, text embeddings. Imports nothing above it."""
