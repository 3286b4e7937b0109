"""The charts beside the tables (trailer fill, speedup vs acceptance, speedup vs context), their
shared style and export to PNG/SVG. They draw model/curves/chart_data; they compute nothing."""
