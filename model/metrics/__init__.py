"""Acceptance that inference engines measured, read from their files and converted to the three conventions.

- result      one source's counts per task class, the i.i.d. check, the alpha applied, the JSON row
- read        recognising a file by its content, reading it within a size limit (streamed where it can be
              large), progress and cancel for the window, the measured classes to apply
- json_sources  a JSON document or JSON lines turned into sources (AIPerf, GuideLLM, vllm bench,
              `sample --json`, responses' records)
- prometheus  /metrics scrapes (vLLM, SGLang, TensorRT-LLM, TGI), one or two (before and after a run)
- lines       a log read as a stream: only the lines a marker pattern finds, in bounded memory
- logscan     every engine's log lines found in one pass, the format decided, the nearest one named
- logs        llama.cpp print_timing and statistics lines, SGLang Decode batch and Finish lines
- vllm_logs   vLLM V0 and V1 log lines, the offline example's summary, `vllm bench serve` console output
- fields      one figure out of a line, parsed strictly and refused with file:line:field
- records     per-request JSON lines, `vllm bench serve` results, SpecLedger's own `sample --json`
- bench_tools  benchmark tools' files: AIPerf exports, GuideLLM reports

A file another wing reads itself (a probe's run file) is not read here: the front end passes that wing's
reader to read_sources as ``recorded``, and its per-request counts (model.engines.recorded) become sources here.

May use the core (model.engines.reports, model.engines.recorded, model.engines.spec_checks, model.mechanics.arithmetic, model.common.safe_files, model.common.cancel) and the workbook. No other wing.
"""
