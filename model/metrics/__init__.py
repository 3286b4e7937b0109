"""Acceptance that inference engines measured, read from their files and converted to the three conventions.

- result      one source's counts per task class, the i.i.d. check, the alpha applied, the JSON row
- prometheus  /metrics scrapes (vLLM, SGLang, TensorRT-LLM, TGI), one or two (before and after a run)
- logs        vLLM "SpecDecoding metrics" and SGLang "Decode batch ... accept len" log lines
- records     per-request JSON lines, `vllm bench serve` results, SpecLedger's own `sample --json`
- read        recognising a file, reading it within a size limit, and the measured classes to apply

May use the core (model.engine_reports, model.arithmetic, model.safe_files) and the workbook. No other wing.
"""
