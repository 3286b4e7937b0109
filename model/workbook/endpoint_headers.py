"""Extra request headers for an endpoint (`--header 'Name: value'`, the tier's endpoint in the workbook): parsed
and checked here, one rule for the CLI, the Probe dock and every reader of a workbook; model.probe.apis.headers
resolves the secret ones when the probe sends.

A header whose name says key, token, auth, secret, cookie, password or credential is a secret, as the API key is:
its value is never given, stored, shown or logged, only where it comes from, `env:VAR` or `keyring:SERVICE/USER`,
resolved when the probe sends. Other headers (`anthropic-beta: fast-mode-2026-02-01`, `anthropic-version`) are
kept as typed. Headers are text, one `Name: value` a line (or separated by `;` on a command line's single line).
"""
from __future__ import annotations

import re
from typing import Mapping

# a session cookie, a password or a credential in a header is as much a secret as a key
SECRET_WORDS = ("key", "token", "auth", "secret", "cookie", "password", "credential")
SECRET_WORDS_TEXT = ", ".join(SECRET_WORDS[:-1]) + " or " + SECRET_WORDS[-1]
_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")  # an HTTP field name (RFC 9110 token)
MAX_VALUE = 4096
MAX_HEADERS = 32
ENV, KEYRING = "env:", "keyring:"


class HeaderError(ValueError):
    """A header that cannot be sent as given; the message names it (never a secret's value)."""


def is_secret(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in SECRET_WORDS)


def parse_header(text: str, what: str = "--header") -> tuple[str, str]:
    """'Name: value' into (name, value); a secret header's value must be a reference (env:VAR, keyring:S/U)."""
    name, sep, value = text.partition(":")
    name, value = name.strip(), value.strip()
    if not sep or not _NAME.match(name):
        raise HeaderError(f"{what} {name[:40]!r}: expected 'Name: value' with a header name of letters, digits and "
                          "-")
    if len(value) > MAX_VALUE or any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise HeaderError(f"{what} {name}: the value holds a control character or passes {MAX_VALUE} characters")
    if is_secret(name) and not _reference(value):
        raise HeaderError(f"{what} {name}: a header whose name says {SECRET_WORDS_TEXT} is a secret; give "
                          f"where its value comes from, {ENV}VAR or {KEYRING}SERVICE/USER, not the value")
    return name, value


def _reference(value: str) -> bool:
    if value.startswith(ENV):
        return bool(re.match(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$", value[len(ENV):]))
    if value.startswith(KEYRING):
        service, slash, user = value[len(KEYRING):].partition("/")
        return bool(service.strip() and slash and user.strip())
    return False


def parse_headers(lines: list[str] | tuple[str, ...] | str | Mapping[str, str],
                  what: str = "--header") -> dict[str, str]:
    """Several headers (a list, or text of lines or ';'-separated); a name given twice is refused."""
    if isinstance(lines, Mapping):  # a workbook file's object
        lines = [f"{k}: {v}" for k, v in lines.items()]
    items = lines if not isinstance(lines, str) else re.split(r"[\n;]", lines)
    out: dict[str, str] = {}
    for item in items:
        if not item.strip():
            continue
        name, value = parse_header(item, what)
        if name.lower() in (n.lower() for n in out):
            raise HeaderError(f"{what} {name}: given twice")
        out[name] = value
    if len(out) > MAX_HEADERS:
        raise HeaderError(f"{what}: {len(out)} headers, at most {MAX_HEADERS}")
    return out


def headers_text(headers: Mapping[str, str]) -> str:
    """The workbook's text for the headers: one 'Name: value' a line (secret ones hold only their reference)."""
    return "\n".join(f"{k}: {v}" for k, v in headers.items())
