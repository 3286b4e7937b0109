"""The window: PySide6 and pyqtgraph. Shows and edits; computes nothing itself.

- document, worker   the shared core: immutable workbook snapshots with undo, the one worker thread
- window/            the main window, its menus and file actions, help, settings, task status
- tables/            one QAbstractTableModel per table, the spreadsheet view, delegates, cell formats
- charts/            the pyqtgraph charts beside the tables and their export
- sampling/          the Measure acceptance dock

May use: model/. Never the headless commands.
"""
