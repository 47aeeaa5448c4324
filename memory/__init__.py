"""Persistence: video ingestion, clip segmentation, per-video caches and the FAISS clip index."""
