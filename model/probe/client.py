"""What every streamed chat-completions request shares: the limits, the body, the retry wait, the one-line
messages, and how one event's JSON goes into the record (model.probe.loop_client streams it).

httpx with certificate checks on (never switched off here) and redirects not followed: a
redirect would carry the key somewhere the analyst did not name. 429 and 5xx answers are
retried a bounded number of times, waiting what Retry-After says (capped) or a doubling backoff.
Every failure raises ProbeRequestError with one line naming the request; the key never appears.
A request holds to its wall-clock deadline (and the run's) and to a cancel within a second
whatever the server sends, reads within caps, refuses absurd usage numbers by name, and leaves
no copy of the key in what it recorded (model.probe.guard).
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from model.probe.apis import StreamError, dialect_for
from model.probe.apis.openai_chat import REPORTED_FIELDS, read_chat_chunk, request_body_fields  # noqa: F401
from model.probe.apis.headers import resolve_headers
from model.probe.endpoint import ApiKey, Endpoint, scrub
from model.probe.events import RequestRecord
from model.probe.guard import mask_across, nan_constant, scrub_value
from model.common import formatting as fmt

RETRY_STATUS = frozenset({429, 500, 502, 503, 504, 529})  # 529: Anthropic's overloaded
REPORTED_HEADER_PREFIX = "fireworks-speculation"


class ProbeRequestError(RuntimeError):
    """A request that failed; str() is one line that names it."""


@dataclass(frozen=True)
class Limits:
    connect_s: float = 10.0
    first_byte_s: float = 120.0  # a 32K prefill on a busy server takes a while
    gap_s: float = 30.0  # silence between two events
    total_s: float = 600.0  # one request from send to [DONE], retries included: a wall-clock deadline
    run_s: float = 24 * 3600.0  # the whole run
    retries: int = 3
    max_retry_wait_s: float = 30.0


TOP_LOGPROBS = 5  # asked for at a temperature above 0: the quality test's top k (docs/design/quality.md)
TOP_LOGPROBS_APIS = ("openai-chat", "openai-responses")  # Anthropic's Messages API has no logprobs


def request_body(endpoint: Endpoint, messages: list[dict[str, Any]], max_tokens: int, logprobs: bool,
                 seed: int = 0, temperature: float = 0.0) -> dict[str, Any]:
    """The body as the endpoint's API has it (model.probe.apis); at a temperature above 0, that temperature, and
    the top logprobs where the API gives them (the quality test, model/probe/top_logprobs.py)."""
    body = dialect_for(endpoint.api).body(endpoint.extra_body, endpoint.model, messages, max_tokens, logprobs, seed)
    if temperature > 0:  # the probe's temperature is the point of the run: it wins over an extra body's
        body["temperature"] = temperature
        if logprobs and endpoint.api in TOP_LOGPROBS_APIS:
            body["top_logprobs"] = TOP_LOGPROBS
    return body


def retry_wait(response: httpx.Response, attempt: int, cap: float) -> float:
    value = response.headers.get("retry-after", "").strip()
    wait = 0.5 * 2 ** attempt
    if value:
        try:
            wait = float(value)
        except ValueError:
            try:
                wait = parsedate_to_datetime(value).timestamp() - time.time()
            except (TypeError, ValueError):
                pass
    if not math.isfinite(wait):  # "nan", "inf": no wait a server can mean; the backoff instead
        wait = 0.5 * 2 ** attempt
    return min(max(wait, 0.0), cap)


def _server_says(response: httpx.Response) -> str:
    """What the error body said, as LoopClient read it (the body is read once, on the event loop)."""
    return getattr(response, "_specledger_said", "")


def said_in(body: bytes) -> str:
    """": the server's message" from an error body, or "" when it gives none."""
    try:
        data = json.loads(body)
        message = data.get("error", {}).get("message") if isinstance(data.get("error"), dict) else data.get("error")
        text = str(message or data.get("message") or data.get("detail") or "")
    except Exception:
        text = ""
    text = " ".join(text.split())[:160]
    return f": {text}" if text else ""


def status_error(label: str, endpoint: Endpoint, response: httpx.Response) -> str:
    code = response.status_code
    said = _server_says(response)
    if code in (301, 302, 303, 307, 308):
        where = response.headers.get("location", "?")
        return f"{label}: the server redirects to {where}; redirects are not followed (set that URL as the base URL)"
    if code == 401 or code == 403:
        return f"{label}: {code} {response.reason_phrase} — the API key was refused{said}"
    if code == 404:
        return (f"{label}: 404 Not Found — no model {endpoint.model!r} or no {dialect_for(endpoint.api).what} at "
                f"{endpoint.base_url}{said}")
    return f"{label}: {code} {response.reason_phrase}{said}"


class StreamingClient:
    """What a client of one endpoint holds (model.probe.loop_client.LoopClient streams with it): the endpoint,
    the headers, the one-line messages and how one SSE payload goes into the record."""

    def __init__(self, endpoint: Endpoint, key: ApiKey | None, limits: Limits = Limits()) -> None:
        self.endpoint, self._key, self.limits = endpoint, key, limits
        self.dialect = dialect_for(endpoint.api)
        self.logprobs = True  # dropped for the session if the endpoint refuses them
        self.url = endpoint.base_url.rstrip("/") + self.dialect.path
        # the endpoint's own headers, secret ones resolved; their values are scrubbed as the key is
        self._extra_headers, secrets = resolve_headers(endpoint.headers)
        self._secrets = [s for s in [key.reveal() if key is not None else "", *secrets] if s]

    def _headers(self) -> dict[str, str]:
        headers = {"accept": "text/event-stream", **self.dialect.default_headers()}
        if self._key is not None:
            headers.update(self.dialect.auth_headers(self._key.reveal()))
        given = {k.lower() for k in self._extra_headers}
        headers = {k: v for k, v in headers.items() if k.lower() not in given}  # a --header replaces a default
        headers.update(self._extra_headers)
        return headers

    def _timeout(self) -> httpx.Timeout:
        limits = self.limits
        return httpx.Timeout(connect=limits.connect_s, read=limits.first_byte_s, write=limits.connect_s,
                             pool=limits.connect_s)

    def _read_payload(self, record: RequestRecord, number: int, payload: str, t: float) -> bool:
        """One event's data into the record; True at [DONE]. A malformed or error event raises, naming it."""
        data = payload.strip()
        if data == "[DONE]":
            return True
        if not data:
            return False
        try:
            chunk = json.loads(data, parse_constant=nan_constant)
            if not isinstance(chunk, dict):
                raise ValueError("not a JSON object")
            return self.dialect.read(record, chunk, t)
        except StreamError as exc:
            raise ProbeRequestError(f"{record.label}: the server reported an error mid-stream: "
                                    f"{self._scrub(_first_line(exc))}") from None
        except (ValueError, AttributeError, TypeError, OverflowError, RecursionError) as exc:
            # a number past any float, JSON nested past the parser's depth: this event, named, not the whole run
            raise ProbeRequestError(f"{record.label}: event {number} is malformed "
                                    f"({_first_line(exc)}): {self._scrub(data[:60])!r}") from None
        return False

    def _streaming(self, record: RequestRecord, response: httpx.Response) -> None:
        """A 200 came: keep the engine's speculation headers, and wait no longer than a gap from now on."""
        for name, value in response.headers.items():
            if name.lower().startswith(REPORTED_HEADER_PREFIX):
                record.reported.setdefault("headers", {})[name.lower()] = value
        # from here on a silence is a gap between events, not the wait for the first byte
        timeout = response.request.extensions.get("timeout")
        if isinstance(timeout, dict):
            timeout["read"] = self.limits.gap_s

    def _content_type_problem(self, record: RequestRecord, response: httpx.Response) -> str | None:
        kind = response.headers.get("content-type", "")
        if not kind.lower().startswith("text/event-stream"):
            return f"{record.label}: not an event stream (content-type {self._scrub(kind[:60])!r})"
        return None

    def _http_message(self, record: RequestRecord, exc: httpx.HTTPError) -> str:
        if isinstance(exc, httpx.ConnectTimeout):
            return f"{record.label}: could not connect to {self.endpoint.base_url} within {self.limits.connect_s:g} s"
        if isinstance(exc, httpx.ConnectError):
            return f"{record.label}: could not connect to {self.endpoint.base_url} ({_first_line(exc)})"
        if isinstance(exc, httpx.ReadTimeout):
            what = "first byte" if record.t_headers is None or not record.events else "next event"
            limit = self.limits.first_byte_s if what == "first byte" else self.limits.gap_s
            return (f"{record.label}: no {what} within {limit:g} s after {fmt.count(len(record.events), 'event')} "
                    "(the server stalled)")
        if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
            return f"{record.label}: the stream was cut after {fmt.count(len(record.events), 'event')} ({_first_line(exc)})"
        return f"{record.label}: {exc.__class__.__name__}: {_first_line(exc)}"

    def _deadline_message(self, record: RequestRecord) -> str:
        return (f"{record.label}: not finished within its deadline ({self.limits.total_s:g} s a request, "
                f"{self.limits.run_s:g} s the run) after {fmt.count(len(record.events), 'event')}; the connection was closed")

    def _scrub(self, text: str) -> str:
        for secret in self._secrets or [None]:
            text = scrub_value(scrub(text, ApiKey(secret) if secret else None), secret)
        return text

    def scrub_record(self, record: RequestRecord) -> None:
        """The key and every secret header's value out of what the server sent back into this record."""
        for secret in self._secrets or [""]:
            scrub_key(record, ApiKey(secret) if secret else None)


def fresh(record: RequestRecord) -> None:
    """What an attempt fills, emptied before it (a retry starts over)."""
    record.events, record.reported, record.usage, record.finish_reason = [], {}, None, None
    record.t_headers = record.t_done = record.response_id = None
    record.stalls = record.clock = record.t_first_payload = record.served_tier = None


def scrub_key(record: RequestRecord, key: ApiKey | None) -> None:
    """Take the key (and any Bearer value) out of everything the server sent back into this record."""
    secret = key.reveal() if key is not None else None
    for e in record.events:
        e.text = scrub_value(e.text, secret)
        if e.tokens is not None:
            e.tokens = scrub_value(e.tokens, secret)
    # the key echoed a token at a time runs across events: masked where the joined text holds it
    for e, text in zip(record.events, mask_across([e.text for e in record.events], secret)):
        e.text = text
    with_tokens = [e for e in record.events if e.tokens is not None]
    flat = mask_across([t for e in with_tokens for t in e.tokens], secret)  # type: ignore[union-attr]
    at = 0
    for e in with_tokens:
        e.tokens, at = flat[at:at + len(e.tokens)], at + len(e.tokens)  # type: ignore[arg-type]
    record.reported = scrub_value(record.reported, secret)
    record.usage = scrub_value(record.usage, secret)
    record.response_id = scrub_value(record.response_id, secret)
    record.finish_reason = scrub_value(record.finish_reason, secret)
    if record.error:
        record.error = scrub_value(record.error, secret)


def _first_line(value: object) -> str:
    text = str(value).strip()
    return text.splitlines()[0][:200] if text else value.__class__.__name__
