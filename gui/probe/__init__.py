"""Tools > Probe a tier…: the probe's dock (endpoint form, run with progress and cancel, results, apply)."""
