"""Acceptance: what a task class's acceptance is, and how sure we are of it (docs/design/intervals.md).

One home for it in the core. ``value`` holds the acceptance of a class as a small value (``Acceptance``: its
kind, the point value, an interval at a confidence, the requests and steps it came from, the method or why
there is no interval); ``interval`` turns per-request counts into that interval (a cluster-robust interval
on the log-odds, the request as the unit); ``propagate`` carries intervals through monotone functions and
combines classes into a mix; ``rates`` gives a measured speedup (a ratio of two tiers' decode speeds) its
interval the same way, requests as clusters; ``sequential`` holds what an adaptive probe needs (looks, spent confidence,
requests expected to decide); ``units`` says what the interval's unit is (a prompt by its text, or a request where
a file names no prompt). Plain Python + numpy; scipy is imported inside the functions that use it.
It imports no wing and not the workbook (rows are read by their field names), so every wing and the
workbook may use it.
"""
from model.acceptance.value import (ALPHA, COUNTS_ONLY, KINDS, NO_INTERVAL_ASSUMED, TOO_FEW, TYPED_RANGE,
                                    Acceptance, acceptance_of)
from model.acceptance.interval import (METHOD, MIN_REQUESTS, alpha_interval, alpha_interval_from_reports,
                                       per_request_counts)

__all__ = ["ALPHA", "COUNTS_ONLY", "KINDS", "NO_INTERVAL_ASSUMED", "TOO_FEW", "TYPED_RANGE", "Acceptance",
           "acceptance_of", "METHOD", "MIN_REQUESTS", "alpha_interval", "alpha_interval_from_reports", "per_request_counts"]
