"""The lowest layer: three rooms, each importing only the rooms before it.

- ``tools.core``: media decoding, the typed records every layer reads, registries, model pins and fetches, runtime;
- ``tools.signals``: derived signals, pure functions of those records (shots, tracks, social events, diarization,
  transcripts, timelines, the lexicon);
- ``tools.perception``: the model backends and the engine that runs them.

``tools/models`` holds the small heads trained here with their model cards; ``tools/data`` the emotion word list.
Nothing here imports a layer above ``tools``.
"""
