"""Where the repository is, for tests that run the CLI or read resources (wherever the test file sits)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
