"""The data behind the charts and the report's curves: speedup against acceptance and context per tier
(``speedup``), and the window's alpha chart's arrays (``chart_data``).

Core package: imports ``model.mechanics`` and the workbook's rows.
"""
