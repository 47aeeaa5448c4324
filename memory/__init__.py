"""Storage: the per-video cache (atomic writes, locks, evidence references), the stored index and its
checkpoints, resumable JSONL results, and the FAISS vector index. Imports tools only."""
