"""The guide's first sections: the analyst's day from the beginning, and where each measurement comes from.

They open the in-app guide (gui/window/help.py) and the Help menu jumps to each; the numbers' own
sections follow them there.
"""
from __future__ import annotations

DAY_SECTIONS: list[tuple[str, str, str]] = [
    ("day", "Getting started: the analyst's day",
     "<ol>"
     "<li><b>Enter the tiers and their prices.</b> One row per tier on the <i>Tiers</i> tab: the vendor's standard "
     "tier (Speculative = no) and its fast tier (yes, or unknown until confirmed), the list prices per million "
     "output and input tokens, and on the fast tier the <i>Baseline</i>: the standard tier it is priced against. "
     "A vendor's price list imports with File &gt; Import tiers from CSV/xlsx.</li>"
     "<li><b>Describe your workload.</b> On <i>Task classes</i>: monthly output and input tokens, a typical "
     "context length, and an acceptance &alpha; per class (code and JSON accept well, prose does not).</li>"
     "<li><b>Give each fast tier its mechanics:</b> K (draft tokens per step) and c and v, typed or from the "
     "roofline (see <a href='#where_cv'>where to get c and v</a>).</li>"
     "<li><b>Measure what you can.</b> Probe the fast tier through its API (Tools &gt; Probe a tier), measure "
     "acceptance on an open draft/target pair (Tools &gt; Measure acceptance), or import an engine's metrics "
     "(File &gt; Import measured acceptance). Each Apply is one undo step and is marked probed, measured or "
     "imported.</li>"
     "<li><b>Read the verdicts.</b> The <i>Per tier</i> table: the speed verdict (against plain decoding), the "
     "value verdict (does the speed over the baseline pay for the price over it), the claim, and beside the "
     "model's speedup the <i>Measured</i> one, and the <i>Fair price</i> to negotiate with. A measured acceptance "
     "carries its interval; a verdict it cannot settle reads <i>undecided</i>: measure more (see "
     "<a href='#certainty'>intervals</a>). The grid shows each class; F1 on any cell explains it.</li>"
     "<li><b>Export.</b> File &gt; Export to Excel writes the report, its first sheet a one-page brief for a "
     "manager; File &gt; Export brief as PDF prints that page for a mail.</li></ol>"),
    ("probe", "Probe a tier (Tools > Probe a tier)",
     "Measures a vendor's tier from outside, through its OpenAI-compatible API: the base URL, the model and where "
     "its key comes from (the <i>name</i> of an environment variable, or a keyring entry: never the key). The "
     "probe streams prompts per task class, reads the steps a speculative server emits (several tokens at once), "
     "and says whether the tier runs speculative decoding, with the acceptance per class and, against a baseline "
     "tier, the measured speedup. It says what it will send and cost before it sends anything. <b>Apply</b> writes "
     "to the tier the probe ran on, whatever the tier box shows later; if that tier was deleted, Apply is off and "
     "says why. Try it on <tt>specledger serve-demo</tt>."),
    ("measure", "Measure acceptance (Tools > Measure acceptance)",
     "Runs an ONNX draft/target pair on your prompts (a JSONL file with a task class per prompt) and counts "
     "accepted draft tokens per class. Use a pair like the vendor's (their draft and target, or the same family "
     "and sizes): acceptance depends on the pair. The demo pair is tiny and only shows the workflow."),
    ("price_lists", "Price lists (File > Import tiers or task classes)",
     "A CSV or xlsx with a header row. A row whose name the workbook has takes only the columns the file has. "
     "A new tier whose Speculative, K or cost inputs the file does not give is marked <i>incomplete</i> and gets "
     "no verdicts until you enter them: nothing is made up into a verdict. Prices must be in the workbook's "
     "currency (a price marked in another refuses the import, naming the cell)."),
    ("metrics", "Engine metrics (File > Import measured acceptance)",
     "Acceptance from what an engine already counts: vLLM's or SGLang's /metrics scrapes (two scrapes give the "
     "run between them), TensorRT-LLM, TGI and llama.cpp logs and records, a vllm bench result. Every source is "
     "shown in the three conventions before anything changes; give K where the file does not say it."),
    ("where_cv", "Where to get c and v",
     "<b>c</b> (a draft step over a target step) and <b>v</b> (a verify pass over a target step) are the vendor's "
     "costs. Ask the vendor for the draft model, the target model, the GPU and the batch they run at; with those, "
     "Cost model = roofline derives c and v at every context from datasheet bandwidth and model shapes, which "
     "stands in well while decoding is memory-bound (small batches). If the vendor gives timings (a draft step "
     "and a verify step in milliseconds), type c and v. A probe that measures a speedup far from the model's "
     "says which inputs to doubt."),
]
