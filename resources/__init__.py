"""Data that ships with SpecLedger: the demo workbook, prompt sets and the demo model pair."""
