"""What inference engines report about speculation: their counters brought to the three conventions
(``reports``), the speculation fields one response carries (``responses``), and the checks that counters are
consistent (``spec_checks``); per-request counts one wing read from its own file, handed to the metrics
import (``recorded``).

Core package: imports ``model.mechanics`` and the standard library only; the metrics and probe wings read
engines' numbers through it.
"""
