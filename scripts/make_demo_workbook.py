"""Writes resources/demo_workbook.json: fictional vendors, plausible numbers (see docs/reference/demo-data.md#the-demo-workbook)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.workbook.rows import Override, TaskClass, Tier, Workbook  # noqa: E402
from model.workbook.json_file import DEMO_WORKBOOK, save_workbook  # noqa: E402

LIT = ("assumed, inside the per-task ranges reported in the literature "
       "(Leviathan et al. 2023; Chen et al. 2023; Spec-Bench, Xia et al. 2024)")


def demo() -> Workbook:
    tiers = [
        Tier("Northwind Standard", "Northwind AI", "no", price_out=10.0, price_in=2.5, notes="Plain decoding of the 8B-class model."),
        Tier("Northwind Turbo", "Northwind AI", "yes", k=5, cost_model="roofline", gpu="H100 SXM", pair="Llama 1B -> 8B", batch=4,
             claimed_speedup=3.0, claim_context=4096, price_out=20.0, price_in=2.5, baseline="Northwind Standard",
             notes="Vendor deck: '3x faster at 4K context'. Draft/target sizes confirmed on the call."),
        Tier("Helix Standard", "Helix Cloud", "no", price_out=8.0, price_in=2.0),
        Tier("Helix Fast", "Helix Cloud", "unknown", k=4, cost_model="typed", c=0.08, v=1.1,
             claimed_speedup=2.5, claim_context=8192, price_out=14.0, price_in=3.5, baseline="Helix Standard",
             notes="Not confirmed that it runs speculative decoding; c and v typed from their latency sheet."),
        Tier("Apex Standard", "Apex Inference", "no", price_out=12.0, price_in=3.0),
        Tier("Apex Express", "Apex Inference", "yes", k=6, cost_model="roofline", gpu="H100 SXM", pair="Llama 8B -> 70B", batch=8,
             claimed_speedup=3.0, claim_context=4096, price_out=24.0, price_in=3.0, baseline="Apex Standard",
             notes="70B target, 8B draft (per vendor)."),
        Tier("Orbital Standard", "Orbital Labs", "no", price_out=9.0, price_in=2.25),
        Tier("Orbital Rapid", "Orbital Labs", "yes", k=4, cost_model="roofline", gpu="H200", pair="Qwen 0.5B -> 32B", batch=16,
             claimed_speedup=2.2, claim_context=32768, price_out=13.5, price_in=2.25, baseline="Orbital Standard"),
    ]
    classes = [
        TaskClass("code", 120e6, 400e6, 16384, 0.80, "assumed", LIT),
        TaskClass("json", 60e6, 300e6, 4096, 0.85, "assumed", LIT),
        TaskClass("extraction", 40e6, 800e6, 32768, 0.78, "assumed", LIT),
        TaskClass("summarisation", 50e6, 900e6, 16384, 0.65, "assumed", LIT),
        TaskClass("prose", 80e6, 100e6, 2048, 0.50, "assumed", LIT),
        TaskClass("creative", 30e6, 20e6, 2048, 0.40, "assumed", LIT),
    ]
    overrides = [Override("Helix Fast", "creative", 0.30, "assumed", "their draft is distilled on code; prose guesses are poor")]
    return Workbook(tiers, classes, overrides, title="SpecLedger demo: four vendors, six task classes")


if __name__ == "__main__":
    save_workbook(demo(), DEMO_WORKBOOK)
    print(f"wrote {DEMO_WORKBOOK}")
