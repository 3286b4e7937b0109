"""The headless front end: one module per group of `specledger` subcommands, plus the runner that turns
every refusal into one line on stderr. `main.py` maps subcommand names to these modules.

May use: all of model/. The GUI only for `screenshot`, which renders the window; gui/ never imports this.
"""
