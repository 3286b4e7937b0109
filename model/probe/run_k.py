"""The run's K, settled (docs/design/probe-analysis.md#steps-and-k): the largest step the timing saw, else the
server's draft tokens over the steps the client saw whole (llama.cpp reports no K), else the K the server reports;
where they disagree, which one won and why is said in the analysis' notes.
"""
from __future__ import annotations

from model.common import formatting as fmt
from model.probe.events import RequestRecord
from model.probe.reported import k_from_server, past_the_text, reported_acceptance
from model.probe.steps import StepReading


def settled_k(steps: StepReading, timing_ok: bool, fast: list[RequestRecord], notes: list[str]) -> tuple[int | None, str]:
    """K and where it came from: the timing's largest step, else the server's draft tokens over the steps seen,
    else the K the server reports; what overrode what goes into ``notes``."""
    k, k_source = (steps.k_estimate, "timing") if timing_ok and steps.k_estimate else (None, "")
    server_k = k_from_server(steps.groups)
    if server_k is not None:
        # the server's draft tokens know K better than the largest step seen, which a low alpha may never show
        if k is not None and server_k.k is not None and server_k.k != k:
            notes.append(f"{server_k.text}; the largest step seen said K = {k}: K from the server is used")
            k, k_source = server_k.k, "server"
        elif k is not None and server_k.k is None and server_k.mean_drafts and k < server_k.mean_drafts - 1e-9:
            notes.append(f"{server_k.text}; the largest step seen said K = {k}, fewer than the server drafts: "
                         "no K")
            k, k_source = None, ""
        else:
            notes.append(server_k.text)
            if k is None and server_k.k is not None:
                k, k_source = server_k.k, "server"
    rep_all, _ = reported_acceptance(fast)
    tail = [r for r in fast if past_the_text(r) and r.reported]
    if tail:
        notes.append(f"the server's draft counts of {fmt.count(len(tail), 'request')} run past the end of their text "
                     "(silent tokens after the end-of-text token, drafted and accepted as the model ran on to the "
                     "token budget): left out of the reported alpha, which is about the text")
    if rep_all is not None and rep_all.k is not None and rep_all.k != k:
        # the server's own K (vLLM's num_spec_tokens) wins: timing sees K only where a step accepted every draft,
        # which at a low alpha few do, so its K reads short
        if k is not None:
            notes.append(f"the server reports K = {rep_all.k}; the largest step seen said K = {k} (few steps reach the "
                         f"last positions): the server's K is used")
        k, k_source = rep_all.k, "reported"
    return k, k_source
