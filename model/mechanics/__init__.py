"""The mechanism of speculative decoding as formulas: expected tokens per verify step, speedup, break-evens
(``arithmetic``), a GPU's step time from a model pair's shapes (``roofline``), each tier's cost of a draft step and a
verify pass (``tier_costs``), and the comparison's batch of E(alpha, K) = target solves (``solves``).

Core package: imports only ``model.common``; rows are read by their field names (``tier_costs.CostInputs``), so
the workbook may use it.
"""
