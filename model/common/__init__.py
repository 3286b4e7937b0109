"""What every part of the model uses and that knows nothing of tiers or verdicts: cancelling long work
(``cancel``), user-facing message wording (``messages``), atomic saves and size limits on files read
(``safe_files``), and number and text formatting (``formatting``).

Core package: imports nothing else of ``model``, so every other package may import it.
"""
