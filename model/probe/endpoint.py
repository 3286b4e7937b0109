"""Where a tier answers: base URL, model name, the API it speaks, extra request fields and headers, and where its
API key comes from.

The key itself is never a field of anything that is written, shown or logged: an Endpoint holds
only the *name* of an environment variable or a keyring service/user, and `resolve_api_key`
returns an `ApiKey` whose repr and str hide the value, so an f-string or a traceback cannot leak it.
"""
from __future__ import annotations

import ipaddress
import json
import os
from dataclasses import dataclass, field
from typing import Any, Mapping
from urllib.parse import urlsplit

from model.probe.apis import API_NAMES, DEFAULT_API, dialect_for
from model.probe.apis.headers import HeaderError, parse_headers, resolve_headers
from model.workbook.rows import Tier


class EndpointError(ValueError):
    """An endpoint that cannot be probed as given; the message names the field."""


# request fields the probe sets itself in Chat Completions (each API's are its dialect's `reserved`); extra fields
# may not silently replace them
RESERVED_FIELDS = ("model", "messages", "stream")


@dataclass(frozen=True)
class Endpoint:
    base_url: str  # e.g. https://api.vendor.example/v1 (the client adds /chat/completions)
    model: str
    api_key_env: str = ""  # name of an environment variable holding the key
    keyring_service: str = ""  # or: a keyring entry (service, user)
    keyring_user: str = ""
    extra_body: Mapping[str, Any] = field(default_factory=dict)  # e.g. {"service_tier": "priority"}
    allow_http: bool = False  # plain http to a host other than loopback
    api: str = DEFAULT_API  # model.probe.apis.API_NAMES
    # extra request headers, name -> value; a secret one (apis.headers.is_secret) holds only env:VAR or keyring:S/U
    headers: Mapping[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        """What may be written down about the endpoint: no key, only where it comes from."""
        api = "" if self.api == DEFAULT_API else f" ({self.api})"
        return f"{self.model} at {self.base_url}{api}"

    def to_dict(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "model": self.model, "api_key_env": self.api_key_env,
                "keyring_service": self.keyring_service, "keyring_user": self.keyring_user,
                "extra_body": dict(self.extra_body), "api": self.api, "headers": dict(self.headers)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Endpoint":
        headers = data.get("headers") if isinstance(data.get("headers"), dict) else {}
        return cls(str(data.get("base_url", "")), str(data.get("model", "")), str(data.get("api_key_env", "")),
                   str(data.get("keyring_service", "")), str(data.get("keyring_user", "")),
                   dict(data.get("extra_body") or {}), api=str(data.get("api") or DEFAULT_API),
                   headers={str(k): str(v) for k, v in headers.items()})


class ApiKey:
    """A secret that does not print itself."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "ApiKey(***)"

    __str__ = __repr__


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


MAX_URL = 2048  # what browsers and servers accept in practice


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def check_endpoint(endpoint: Endpoint) -> None:
    """Refuse what cannot work or would send a key in the clear, before any request."""
    url = endpoint.base_url
    if len(url) > MAX_URL:
        raise EndpointError(f"base URL: {len(url):,} characters ({url[:60]!r}...); at most {MAX_URL} are accepted")
    bad = next((c for c in url if ord(c) < 0x21 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF), None)
    if bad is not None:
        raise EndpointError(f"base URL {url[:60]!r}: holds a space or control character (U+{ord(bad):04X}); "
                            "a URL is one word")
    parts = urlsplit(endpoint.base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointError(f"base URL {endpoint.base_url!r}: expected http(s)://host[:port]/path")
    try:
        port = parts.port
    except ValueError:  # urllib's own words name no URL: "Port out of range 0-65535"
        port = -1
    if port is not None and not 1 <= port <= 65535:
        raise EndpointError(f"base URL {endpoint.base_url!r}: the port must be a whole number from 1 to 65535")
    if parts.username or parts.password:
        raise EndpointError("base URL: credentials in the URL are refused; give the key through an env var or keyring")
    if parts.scheme == "http" and not is_loopback(parts.hostname) and not endpoint.allow_http:
        raise EndpointError(f"base URL {endpoint.base_url}: plain http to {parts.hostname} would send the key and "
                            "the prompts unencrypted; use https, or allow plain http explicitly")
    if not endpoint.model.strip():
        raise EndpointError("model name is empty")
    if not isinstance(endpoint.extra_body, Mapping):
        raise EndpointError("extra request fields must be a JSON object")
    if endpoint.api not in API_NAMES:
        raise EndpointError(f"API {endpoint.api[:40]!r}: expected one of {', '.join(API_NAMES)}")
    try:  # the same checks as typed: a secret header holds only where its value comes from
        parse_headers([f"{k}: {v}" for k, v in endpoint.headers.items()], "header")
    except HeaderError as exc:
        raise EndpointError(str(exc)) from None
    clash = [k for k in endpoint.extra_body if k in dialect_for(endpoint.api).reserved]
    if clash:
        raise EndpointError(f"extra request fields may not set {', '.join(clash)} (the probe sets them)")
    if endpoint.keyring_service and not endpoint.keyring_user:
        raise EndpointError("a keyring key needs both a service and a user name")


def parse_extra_body(text: str, what: str = "extra request fields") -> dict[str, Any]:
    """A JSON object typed by the analyst; '' is no extra fields."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise EndpointError(f"{what}: not valid JSON ({exc.msg}, column {exc.colno})") from None
    except ValueError as exc:  # NaN or Infinity: json.dumps would send them, and no server reads them
        raise EndpointError(f"{what}: not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise EndpointError(f"{what}: expected a JSON object like {{\"service_tier\": \"priority\"}}")
    return value


def resolve_api_key(endpoint: Endpoint, environ: Mapping[str, str] | None = None) -> ApiKey | None:
    """The key from the named env var or keyring entry; None when the endpoint names no source.

    A named source that holds nothing is an error: a probe without the key would only collect 401s.
    """
    env = os.environ if environ is None else environ
    if endpoint.api_key_env:
        value = env.get(endpoint.api_key_env, "")
        if not value:
            raise EndpointError(f"API key: environment variable {endpoint.api_key_env} is not set or empty")
        return ApiKey(value)
    if endpoint.keyring_service:
        try:
            import keyring  # lazy: the keyring backends probe the desktop session on import
            value = keyring.get_password(endpoint.keyring_service, endpoint.keyring_user)
        except Exception as exc:  # no backend, locked keychain: one line, never the key
            raise EndpointError(f"API key: keyring {endpoint.keyring_service}/{endpoint.keyring_user} could not "
                                f"be read ({exc.__class__.__name__})") from None
        if not value:
            raise EndpointError(f"API key: keyring has no entry {endpoint.keyring_service}/{endpoint.keyring_user}")
        return ApiKey(value)
    return None


def parse_endpoint_headers(text: str, what: str = "headers") -> dict[str, str]:
    """The headers typed as text (one 'Name: value' a line); one line naming what is wrong otherwise."""
    try:
        return parse_headers(text, what)
    except HeaderError as exc:
        raise EndpointError(str(exc)) from None


def check_headers(endpoint: Endpoint, environ: Mapping[str, str] | None = None) -> None:
    """The secret headers' sources hold something, said before any request (the client resolves them again)."""
    try:
        resolve_headers(endpoint.headers, environ)
    except HeaderError as exc:
        raise EndpointError(str(exc)) from None


def scrub(text: str, key: ApiKey | None) -> str:
    """Remove the key from a message that might quote a server's echo of the request."""
    if key is None or not key.reveal():
        return text
    return text.replace(key.reveal(), "***")


def tier_endpoint(tier: Tier, allow_http: bool = False) -> Endpoint | None:
    """A workbook tier's endpoint, or None when it names no base URL and model."""
    if not tier.endpoint_url.strip() or not tier.endpoint_model.strip():
        return None
    return Endpoint(tier.endpoint_url.strip(), tier.endpoint_model.strip(), tier.api_key_env, tier.keyring_service,
                    tier.keyring_user, parse_extra_body(tier.extra_body, f"tier {tier.name!r}, extra request fields"),
                    allow_http, api=tier.endpoint_api or DEFAULT_API,
                    headers=parse_endpoint_headers(tier.endpoint_headers, f"tier {tier.name!r}, header"))
