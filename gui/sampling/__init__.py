"""The Measure acceptance dock: the form, the run on the worker thread, the results and Apply."""
