"""What inference engines report about speculation: their counters brought to the three conventions
(``reports``), the speculation fields one response carries (``responses``), and the checks that counters are
consistent (``spec_checks``).

Core package: imports ``model.mechanics`` and the standard library only; the metrics and probe wings read
engines' numbers through it.
"""
