"""The vendor-style server (model.probe.vendor_server) for the probe's tests: a cheap word generator instead of the
demo pair (the pace, not the text, is the known truth), and settings that ask for the fast tier as each API does."""
from __future__ import annotations

from typing import Any

from model.probe.demo_server import Generation, Step
from model.probe.endpoint import Endpoint
from model.probe.plan import ProbeSettings
from model.probe.prompt_file import ProbePrompt
from model.probe.vendor_server import Pace, VendorTruth, create_vendor_app

FAST_BODY = {"openai-chat": {"service_tier": "priority"}, "openai-responses": {"service_tier": "priority"},
             "anthropic-messages": {"speed": "fast"}}


def word_generate(prompt: str, max_tokens: int) -> Generation:
    """max_tokens tokens of a few characters each, stopping at the budget (finish "length")."""
    words = [f" w{i % 97}" for i in range(max_tokens)]
    return Generation(max(len(prompt.split()), 1), [Step((w,)) for w in words], 0, "length")


def vendor_app(pace: Pace, **kw: Any) -> tuple[Any, VendorTruth]:
    truth = VendorTruth()
    return create_vendor_app(word_generate, pace, truth=truth, **kw), truth


def prompts(n: int, classes: tuple[str, ...] = ("code", "prose")) -> list[ProbePrompt]:
    out = []
    for i in range(n):
        c = classes[i % len(classes)]
        out.append(ProbePrompt(c, ({"role": "user", "content": f"{c} prompt number {i}: say something"},), i + 1))
    return out


def vendor_settings(base_url: str, api: str, n: int, max_tokens: int = 32, baseline: bool = True,
                    **kw: Any) -> ProbeSettings:
    """The fast tier and the same model at standard speed as its baseline, through ``api``."""
    extra = {"api": api} if api != "openai-chat" else {}
    fast = Endpoint(base_url, "vendor-model", extra_body=FAST_BODY[api], **extra, **kw)
    base = Endpoint(base_url, "vendor-model", **extra, **kw) if baseline else None
    return ProbeSettings(fast=fast, prompts=prompts(n), baseline=base, max_tokens=max_tokens,
                         fast_name="fast tier", baseline_name="standard tier")
