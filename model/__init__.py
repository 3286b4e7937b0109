"""SpecLedger's model: every number is computed here, every file is read and written here. No Qt, ever.

The core sits at the top of this package (arithmetic, acceptance, roofline, comparison, curves, chart_data, engine_reports,
spec_checks, formatting, cancel); it may use the workbook's rows and nothing else of the wings. The wings,
each a package of its own, meet only through the core and the workbook:

- workbook/  the inputs: rows as dataclasses, the one validator, the JSON file, row edits, applying measured α
- sampling/  acceptance measured on a local ONNX draft/target pair (KV cache, speculative loop, prompts)
- report/    the Excel report out and its inputs back in, price-list import
- metrics/   acceptance that inference engines measured (scrapes, logs, records), in the three conventions
- probe/     a remote tier measured from outside through its API (client, stream analysis, demo server)
"""
