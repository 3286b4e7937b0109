"""Servers the probe tests talk to over real loopback sockets: the demo pair in each style, and a
misbehaving one. Bounded: small prompt subsets, few tokens, short step times, short timeouts."""
from __future__ import annotations

import asyncio
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from model.mechanics import arithmetic as ar
from model.probe.client import Limits
from model.probe.demo_server import DemoModel, Generation, Step, create_app
from model.probe.endpoint import Endpoint
from model.probe.plan import ProbeSettings
from model.probe.prompt_file import ProbePrompt, load_probe_prompts
from tests.paths import ROOT

DEMO_PROMPTS = ROOT / "resources" / "prompts" / "demo.jsonl"
STEP_S = 0.02  # per-step pacing on loopback: 20 ms, as serve-demo; a loaded machine rarely delays a read that long
MAX_TOKENS = 24
FAST_LIMITS = Limits(connect_s=2.0, first_byte_s=5.0, gap_s=2.0, total_s=20.0, retries=2, max_retry_wait_s=1.0)


@lru_cache(maxsize=1)
def demo_pair() -> tuple[Any, Any]:
    from model.sampling.onnx_lm import load_pair
    from model.sampling.prompts import DEMO_DRAFT, DEMO_TARGET
    return load_pair(DEMO_DRAFT, DEMO_TARGET, "cpu")


def subset(per_class: int = 2) -> list[ProbePrompt]:
    """The first ``per_class`` demo prompts of every class."""
    out: list[ProbePrompt] = []
    counts: dict[str, int] = {}
    for p in load_probe_prompts(DEMO_PROMPTS):
        if counts.get(p.task_class, 0) < per_class:
            counts[p.task_class] = counts.get(p.task_class, 0) + 1
            out.append(p)
    return out


def demo_app(style: str, silent: bool | None = None, **kw: Any) -> tuple[Any, dict[str, DemoModel]]:
    from commands.serve_demo import demo_models
    models = demo_models(style, 4, pair=demo_pair(), silent=silent)
    return create_app(models, min_step_s=STEP_S, **kw), models


def settings_for(base_url: str, prompts: list[ProbePrompt], baseline: bool = True, **kw: Any) -> ProbeSettings:
    return ProbeSettings(fast=Endpoint(base_url, "demo-fast", **kw), prompts=prompts,
                         baseline=Endpoint(base_url, "demo-standard", **kw) if baseline else None,
                         max_tokens=MAX_TOKENS, fast_name="demo-fast", baseline_name="demo-standard")


def truth_alpha(truth: list[dict[str, Any]], ids: set[str], seen_only: bool = False, every_stretch: bool = False) -> float:
    """The server's own ML alpha over its full-K stretches, for the responses with these ids; ``seen_only``:
    over the stretches whose every token the client saw (not those with silent tokens, which send no event);
    ``every_stretch``: over every stretch that drafted, a draft cut short (the last of a response) and wholly
    accepted being no rejection, as model.engines.reports counts a server's report that tells them apart."""
    k = truth[0]["k"]
    if every_stretch:
        steps = [(a, d) for t in truth if t["id"] in ids for a, d in zip(t["accepted"], t["drafted"]) if d > 0]
        accepted = sum(a for a, _ in steps)
        return accepted / (accepted + sum(a < d for a, d in steps))
    counts = [a for t in truth if t["id"] in ids
              for a, d, v in zip(t["accepted"], t["drafted"], t.get("visible") or [a + 1 for a in t["accepted"]])
              if d == t["k"] and (not seen_only or v == a + 1)]
    return ar.histogram_alpha(np.bincount(np.asarray(counts, dtype=np.int64), minlength=k + 1))


def kept_truth_alpha(truth: list[dict[str, Any]], reading: Any, ids: set[str],
                     step_s: float | None = None) -> tuple[float, int, int]:
    """The server's own ML alpha over the full-K steps the probe kept (read as one step, not left out as
    merged) for the responses with these ids, the steps kept and those left out; ``reading`` is
    steps.read_steps' StepReading. Each group is matched to the server's steps by their visible tokens: a
    kept group that is two of the server's steps (a merge the probe did not see) fails here, unless
    (``step_s``, the server's pace) the server itself was off its pace by over a quarter of a step around
    them: a late step and two quick ones then time alike, which no reading of the client's can tell apart
    (a loaded machine's server does that; an engine's GPU keeps its pace)."""
    by_id = {t["id"]: t for t in truth}
    k = truth[0]["k"]
    counts: list[int] = []
    kept = left = 0
    for record, groups in reading.groups:
        if record.response_id not in ids:
            continue
        t = by_id[record.response_id]
        sent = [i for i, v in enumerate(t["visible"]) if v > 0]  # the steps that sent an event
        written = t["sent"] if len(t["sent"]) == len(sent) else None  # when each of them was written
        at = 0
        for number, g in enumerate(groups, start=1):
            first, tokens = at, 0
            while tokens < g.size:
                tokens += t["visible"][sent[at]]
                at += 1
            assert tokens == g.size, (record.label, "a group does not end where a server step does")
            if g.suspect:
                left += 1
                continue
            if at - first > 1 and step_s is not None and written is not None:
                gaps = [b - a for a, b in zip(written[max(first - 1, 0):at], written[max(first - 1, 0) + 1:at])]
                if any(abs(gap - step_s) > 0.25 * step_s for gap in gaps):
                    left += 1  # the server's own pause around them: not the probe's to see
                    continue
            assert at - first == 1, (record.label, f"kept group {number} is {at - first} of the server's steps")
            kept += 1
            i = sent[first]
            if t["drafted"][i] == k and t["visible"][i] == t["accepted"][i] + 1:
                counts.append(t["accepted"][i])
    alpha = ar.histogram_alpha(np.bincount(np.asarray(counts, dtype=np.int64), minlength=k + 1))
    return alpha, kept, left


# --- a misbehaving server: the model name says how; the first request of each model behaves ---

def bad_app() -> Any:
    """Models: ok, unauthorized, missing (404), malformed, cut, stall, endless, busy (one 429 with
    Retry-After on its second request), broken (500 from the second request on)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    seen: dict[str, int] = {}

    def chunk(text: str) -> str:
        data = {"id": "x", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
        return f"data: {json.dumps(data)}\n\n"

    async def good():
        for _ in range(3):
            yield chunk(" ok")
        yield 'data: {"id": "x", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 3}}\n\n'
        yield "data: [DONE]\n\n"

    async def chat(request: Request) -> Response:
        model = json.loads(await request.body())["model"]
        seen[model] = seen.get(model, 0) + 1
        if model == "busy" and seen[model] == 2:
            return JSONResponse({"error": {"message": "slow down"}}, status_code=429, headers={"retry-after": "0.2"})
        if seen[model] == 1 or model in ("ok", "busy"):
            return StreamingResponse(good(), media_type="text/event-stream")
        if model == "missing":
            return JSONResponse({"error": {"message": "The model does not exist"}}, status_code=404)
        if model == "unauthorized":
            return JSONResponse({"error": {"message": "invalid api key"}}, status_code=401)
        if model == "broken":
            return JSONResponse({"error": {"message": "internal"}}, status_code=500)

        async def events():
            yield chunk("one")
            if model == "malformed":
                yield "data: {not json\n\n"
            elif model == "cut":
                raise RuntimeError("connection dropped on purpose")
            elif model == "stall":
                await asyncio.sleep(30)
            elif model == "endless":
                while True:
                    await asyncio.sleep(0.05)
                    yield chunk(" more")
            yield "data: [DONE]\n\n"
        return StreamingResponse(events(), media_type="text/event-stream")

    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
    app.state.seen = seen
    return app


def write_prompts(path: Path, n: int = 2) -> Path:
    path.write_text("".join(json.dumps({"task_class": "code", "prompt": f"def f{i}():"}) + "\n" for i in range(n)))
    return path


# --- the demo server in a process of its own ---
# A server in the probe's own process shares its interpreter: its work on a big step delays the client's
# timer and reader, which no real server does. These run it apart, with its truth sent back at the end.

class DemoProcess:
    """serve-demo's app for ``style`` in a child process on 127.0.0.1; ``truth`` after the block ends."""

    def __init__(self, style: str, step_s: float = STEP_S, silent: bool | None = None) -> None:
        self.args = [style, str(step_s), "" if silent is None else str(int(silent))]
        self.base_url = ""
        self.truth: list[dict[str, Any]] = []
        self._proc: Any = None

    def __enter__(self) -> "DemoProcess":
        import subprocess
        import sys
        self._proc = subprocess.Popen([sys.executable, "-m", "tests.probe_servers", *self.args], cwd=ROOT,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.base_url = self._proc.stdout.readline().strip()
        if not self.base_url.startswith("http://127.0.0.1:"):
            self.__exit__()
            raise RuntimeError(f"the demo server did not start: {self.base_url!r}")
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._proc.poll() is None:
                self._proc.stdin.write("done\n")
                self._proc.stdin.flush()
                line = self._proc.stdout.readline()
                self.truth = json.loads(line) if line.strip() else []
                self._proc.wait(30)
        finally:
            if self._proc.poll() is None:
                self._proc.kill()
                self._proc.wait(5)
            self._proc.stdin.close()
            self._proc.stdout.close()


def _serve(style: str, step_s: str, silent: str) -> None:
    from commands.serve_demo import demo_models
    from model.probe.demo_server import LoopbackServer
    models = demo_models(style, 4, pair=demo_pair(), silent=bool(int(silent)) if silent else None)
    with LoopbackServer(create_app(models, min_step_s=float(step_s))) as server:
        print(server.base_url, flush=True)
        import sys
        sys.stdin.readline()
    print(json.dumps(models["demo-fast"].truth), flush=True)


if __name__ == "__main__":
    import sys
    _serve(*(sys.argv[1:4] + [""] * (3 - len(sys.argv[1:4]))))


def serving(style: str = "vllm") -> Any:
    """A module-scoped pytest fixture's body: the demo pair served on loopback in ``style`` for the module's tests."""
    import pytest

    pytest.importorskip("uvicorn")
    from model.probe.demo_server import LoopbackServer

    app, _ = demo_app(style)
    with LoopbackServer(app) as s:
        yield s
