"""The priced comparison of a workbook's tiers, and its front door: ``compare(workbook)`` returns a
``Comparison``; the verdict codes and their names are here too. Front ends, the report and the wings import
these names from ``model.comparison``.

Inside: ``compute`` (compare() itself: mixes, prices, baselines), ``cells`` (the per-(tier, class) numbers and
the cache that keeps them between edits), ``result`` (the ``Comparison`` and its JSON records), ``verdicts`` (the
verdict codes and rules), ``guarantee`` (the acceptance or output length a tier needs), ``measured_speed`` and
``load_speed`` (a measured speedup beside the modelled one, alone and at load), ``brief`` (the one-page
recommendation), ``load_curve`` (speedup against parallel streams).

Core package: imports ``model.common``, ``model.mechanics``, ``model.acceptance`` and the workbook's rows.
"""
from model.comparison.cells import NO_LENGTH_INTERVAL, TREE_NEEDS_LENGTH, PairCache
from model.comparison.compute import compare
from model.comparison.result import Comparison
from model.comparison.verdicts import (BREAK_EVEN_NAMES, GAIN, MARGINAL, NOT_APPLICABLE, NOT_WORTH, TAX, UNDECIDED,
                                       VALUE_NAMES, VERDICT_NAMES, WORTH)

__all__ = ["BREAK_EVEN_NAMES", "GAIN", "MARGINAL", "NOT_APPLICABLE", "NOT_WORTH", "NO_LENGTH_INTERVAL", "TAX",
           "TREE_NEEDS_LENGTH", "UNDECIDED", "VALUE_NAMES", "VERDICT_NAMES", "WORTH", "Comparison", "PairCache",
           "compare"]
