"""SpecLedger's model: every number is computed here, every file is read and written here. No Qt, ever.

The core is seven packages, each importing only those listed after it (plus the workbook's rows where said):

- common/      cancelling long work, message wording, atomic saves and file limits, formatting
- mechanics/   the formulas: expected tokens, speedup, break-evens, the roofline, each tier's costs, batched solves
- acceptance/  a class's acceptance and how sure we are of it: intervals, propagation, sequential looks
- quality/     quality at a temperature: the draws against the reported distribution, the tiers' samples compared
- engines/     what inference engines report about speculation, in the three conventions, and its checks
- comparison/  the priced comparison; its front door ``model.comparison`` exports compare, Comparison, the verdict codes
- curves/      speedup against acceptance and context, the data behind the charts

The inputs sit between the lower and the upper core: workbook/ (rows as dataclasses, the one validator, the JSON
file, row edits, applying measured alpha) uses common, mechanics and acceptance; comparison, curves and engines may
use it. The wings, each a package of its own, import the core and the workbook and never each other:

- sampling/  acceptance measured on a local ONNX draft/target pair (KV cache, speculative loop, prompts)
- report/    the Excel report out and its inputs back in, price-list import
- metrics/   acceptance that inference engines measured (scrapes, logs, records), in the three conventions
- probe/     a remote tier measured from outside through its API (client, stream analysis, demo server)

The lists below are the ones pyproject.toml's import-linter contracts and CONTRIBUTING.md give;
tests/test_layering.py checks that they agree.
"""
CORE = ("common", "mechanics", "acceptance", "quality", "engines", "comparison", "curves")
INPUTS = ("workbook",)
WINGS = ("report", "sampling", "metrics", "probe")
