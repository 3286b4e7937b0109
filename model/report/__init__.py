"""The Excel report: export (`export`, with the Inputs, Curves and context sheets and native charts),
shared sheet geometry (`layout`), styles, and reading a report or a price list back (`importer`).

May use: the core and the workbook. Not sampling or any other wing; never Qt.
"""
