"""The endpoint's extra headers as sent: the secret ones (model.workbook.endpoint_headers.is_secret) resolved from
where they come from, env:VAR or keyring:SERVICE/USER, and their values handed back to be scrubbed from
everything recorded, as the API key is. Parsing and checking is the workbook's (one rule everywhere)."""
from __future__ import annotations

import os
from typing import Mapping

from model.workbook.endpoint_headers import (ENV, KEYRING, HeaderError, headers_text, is_secret,  # noqa: F401
                                             parse_header, parse_headers)


def resolve_headers(headers: Mapping[str, str], environ: Mapping[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """The headers to send, secret ones resolved, and the secret values (to scrub from everything recorded)."""
    env = os.environ if environ is None else environ
    out: dict[str, str] = {}
    secrets: list[str] = []
    for name, value in headers.items():
        if not is_secret(name):
            out[name] = value
            continue
        if value.startswith(ENV):
            var = value[len(ENV):]
            resolved = env.get(var, "")
            if not resolved:
                raise HeaderError(f"header {name}: environment variable {var} is not set or empty")
        else:
            service, _, user = value[len(KEYRING):].partition("/")
            try:
                import keyring  # lazy, as for the API key
                resolved = keyring.get_password(service, user) or ""
            except Exception as exc:  # no backend, locked keychain: one line, never the value
                raise HeaderError(f"header {name}: keyring {service}/{user} could not be read "
                                  f"({exc.__class__.__name__})") from None
            if not resolved:
                raise HeaderError(f"header {name}: keyring has no entry {service}/{user}")
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in resolved):
            raise HeaderError(f"header {name}: its value holds a control character")
        out[name] = resolved
        secrets.append(resolved)
    return out, secrets
