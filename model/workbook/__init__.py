"""The workbook: what the analyst types. Rows (`rows`), the one validator every reader uses
(`validation`), the JSON file with atomic saves (`json_file`), row edits and applying measured α.

May use: the core's roofline presets (for the names it validates). Never a wing of model/, never Qt.
"""
