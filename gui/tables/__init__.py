"""The tables: one QAbstractTableModel per table over the workbook rows, the spreadsheet view and its
keys, the choice delegate and how a cell shows and takes a value."""
