"""Derived signals: pure functions of typed records (``tools.core.schema``) -- shot cuts, face tracks,
social events, diarization, transcripts and utterances, word timestamps, affect timelines, the lexicon.

Imports ``tools.core`` and its own room only: no model is loaded here.
"""
