"""Acceptance measured on a local ONNX draft/target pair: loading (`onnx_lm`), the KV cache and its
rollback (`kv_cache`), execution providers, the speculative loop (`speculative`), runs over prompt
sets per task class (`run`) and the prompt files (`prompts`).

May use: the core (arithmetic, cancel). Not the report or any other wing; never Qt.
"""
