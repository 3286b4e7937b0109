"""A small hostile HTTP server on 127.0.0.1 for the probe's fuzz cases, raw asyncio so it can misbehave
below HTTP: the request's model name says how. It runs in a thread; every connection ends when the
client closes it or the server is stopped."""
from __future__ import annotations

import asyncio
import gzip
import json
import threading
from typing import Any

CHUNK = {"id": "x", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": " ok"},
                                                                    "logprobs": None, "finish_reason": None}]}


def _sse(obj: Any) -> bytes:
    return f"data: {json.dumps(obj)}\n\n".encode()


def _head(status: str = "200 OK", kind: str = "text/event-stream", extra: str = "") -> bytes:
    return f"HTTP/1.1 {status}\r\ncontent-type: {kind}\r\nconnection: close\r\n{extra}\r\n".encode()


# vLLM-style per-request speculation fields (metrics.speculative_decoding) no server can mean, by model name
SPEC_FIELDS = {
    # a histogram of 4 steps all accepting every draft, beside counts of 4 steps accepting 1 in 4
    "spec-hist-contradicts": {"num_spec_tokens": 2, "num_spec_steps": 4, "num_draft_tokens": 8,
                              "num_accepted_draft_tokens": 2, "acceptance_histogram": [0, 0, 4]},
    "spec-k-100": {"num_spec_tokens": 100, "num_spec_steps": 1, "num_draft_tokens": 100, "num_accepted_draft_tokens": 1},
    "spec-accepted-over": {"num_spec_tokens": 2, "num_spec_steps": 1, "num_draft_tokens": 2, "num_accepted_draft_tokens": 6},
}


class HostileServer:
    def __init__(self) -> None:
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="hostile-server", daemon=True)
        self._server: Any = None
        self.bomb = gzip.compress(b"\n" * (200 * 1024 * 1024), compresslevel=1)  # inflates to 200 MB

    def __enter__(self) -> "HostileServer":
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", 0), self._loop).result(10)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()
        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in
                       (line.partition(":") for line in head.decode("latin-1").split("\r\n")[1:] if line)}
            body = json.loads(await reader.readexactly(int(headers.get("content-length", "0"))))
            key = headers.get("authorization", "").removeprefix("Bearer ")
            await self._behave(str(body.get("model")), key, writer)
        except (asyncio.CancelledError, ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _forever(self, writer: asyncio.StreamWriter, data: bytes, every: float) -> None:
        while True:
            writer.write(data)
            await writer.drain()
            await asyncio.sleep(every)

    async def _behave(self, model: str, key: str, writer: asyncio.StreamWriter) -> None:
        if model == "drip-headers":
            writer.write(b"HTTP/1.1 200 OK\r\nx-slow: ")
            await self._forever(writer, b"a", 0.3)
        if model == "no-answer":
            await asyncio.sleep(3600)
        if model == "error-endless":  # an error body that never ends, as fast as the client reads
            writer.write(_head("400 Bad Request", "application/json"))
            await self._forever(writer, b"a" * 65536, 0)
        if model == "retry-nan":
            writer.write(b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: nan\r\n"
                         b"content-length: 2\r\nconnection: close\r\n\r\n{}")
            await writer.drain()
            return
        writer.write(_head(extra="content-encoding: gzip\r\n" if model == "gzip-bomb" else
                           f"fireworks-speculation-acceptance: {key}\r\n" if model == "echo-key" else ""))
        if model == "drip-body":
            await self._forever(writer, b":", 0.3)
        if model == "comments":
            await self._forever(writer, b": keep-alive\n\n", 0.2)
        if model == "event-then-comments":  # one event, then only comments: the gap limit, not the deadline
            writer.write(_sse(CHUNK))
            await self._forever(writer, b": keep-alive\n\n", 0.2)
        if model == "event-then-drip":  # one event, then a byte at a time
            writer.write(_sse(CHUNK))
            await self._forever(writer, b" ", 0.2)
        if model == "flood":  # far more one-token events than were asked for, as fast as the client reads
            block = _sse(CHUNK) * 1000
            while True:
                writer.write(block)
                await writer.drain()
        if model == "silent":
            await writer.drain()
            await asyncio.sleep(3600)
        if model == "endless-line":
            writer.write(b"data: ")
            await self._forever(writer, b"a" * 65536, 0)
        if model == "gzip-bomb":
            writer.write(self.bomb)
            await writer.drain()
            return
        usage: Any = {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6}
        chunk = dict(CHUNK)
        if model == "echo-key":
            chunk = {"id": f"chatcmpl-{key}", "object": "chat.completion.chunk",
                     "choices": [{"index": 0, "delta": {"content": f" your key is {key} ok"},
                                  "logprobs": {"content": [{"token": key, "logprob": 0.0}]}, "finish_reason": None}]}
        for _ in range(3):
            writer.write(_sse(chunk))
        last = {"id": "x", "choices": [], "usage": usage}
        if model == "echo-key":
            last["timings"] = {"draft_n": 6, "draft_n_accepted": 3, "echo": f"Bearer {key}"}
        text = json.dumps(last)
        if model == "usage-huge":
            text = text.replace('"completion_tokens": 3', '"completion_tokens": 1e32')
        elif model == "usage-negative":
            text = text.replace('"completion_tokens": 3', '"completion_tokens": -1397605')
        elif model == "usage-bigint":  # an integer past any float, but within Python's digit limit
            text = text.replace('"completion_tokens": 3', '"completion_tokens": 1' + "0" * 400)
        elif model == "deep-json":  # nested past the parser's recursion limit
            text = text.replace('"usage"', '"metrics": ' + "[" * 100_000 + "]" * 100_000 + ', "usage"')
        elif model == "bills-more":  # bills far more output than the request asked for
            text = text.replace('"completion_tokens": 3', '"completion_tokens": 100000')
        elif model == "usage-nan":
            text = text.replace('"completion_tokens": 3', '"completion_tokens": NaN')
        elif model == "timings-nan":
            text = text.replace('"usage"', '"timings": {"draft_n": NaN, "draft_n_accepted": 1}, "usage"')
        elif model in SPEC_FIELDS:
            text = text.replace('"usage"', f'"metrics": {{"speculative_decoding": {json.dumps(SPEC_FIELDS[model])}}}, "usage"')
        writer.write(f"data: {text}\n\ndata: [DONE]\n\n".encode())
        await writer.drain()
