"""Media, records and runtime: decoding (PyAV), the typed records every layer reads, backend registries, model
pins and fetches, process set-up, terminal-safe text and argument types.

Imports nothing of the project outside ``tools.core``.
"""
