"""Index building and stored perception: the perception engine and ASR run over a video, the results
stored through ``memory``. Imports tools and memory only."""
