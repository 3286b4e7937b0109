"""The in-app guide: every number on screen, in the seed note's freight terms, with its formula."""
from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from gui.window.guide_day import DAY_SECTIONS
from model.workbook.row_edits import NEW_ROW_POLICY

# anchor -> (title, body html); the order is the reading order of the guide
SECTIONS: list[tuple[str, str, str]] = [
    ("stretch", "Stretch and K",
     "A small <b>draft</b> model proposes a stretch of <b>K</b> tokens; the <b>target</b> model checks the whole "
     "stretch in one verify pass. At the first wrong draft token the target emits its own token there and the rest "
     "of the stretch is thrown away; if all K are right the target adds one bonus token. "
     "In freight terms: the draft loads a trailer with K slots, the target checks the load."),
    ("alpha", "Acceptance alpha (and the three conventions)",
     "<b>alpha</b> is the chance that one draft token is accepted (per token, independent tokens assumed). "
     "It depends on the task: constrained output (code idioms, JSON) accepts well, open prose does not. "
     "Vendors quote acceptance three ways; for a given K they convert:"
     "<ul><li>per-token alpha (this app);</li>"
     "<li>draft acceptance rate = accepted / drafted tokens = trailer fill F (vLLM);</li>"
     "<li>mean acceptance length = tokens per stretch E (vLLM, Spec-Bench).</li></ul>"
     "The grid <i>Acceptance on each tier's draft</i> overrides a class's alpha for one tier, because acceptance "
     "is measured against that tier's draft. The results tooltip says which alpha was used and where it came from."),
    ("tokens", "Tokens per stretch E",
     "E = 1 + alpha + alpha<sup>2</sup> + ... + alpha<sup>K</sup> = (1 - alpha<sup>K+1</sup>) / (1 - alpha); "
     "E = K + 1 when alpha = 1. It counts the target's own token, so even a useless draft yields 1."),
    ("fill", "Trailer fill F",
     "F = (E - 1) / K: the share of the K slots that carried cargo (accepted draft tokens). "
     "The empty share 1 - F is waste: drafted, paid for, discarded. The <i>Trailer fill</i> chart draws it."),
    ("cost", "Draft cost c and verify cost v",
     "<b>c</b> = time of one draft forward pass / time of one target decode step. "
     "<b>v</b> = time of the target's verify pass over K + 1 tokens / one decode step (1.0 when verifying is "
     "as cheap as decoding: small batch, memory-bound; more at large batch). Type them (Cost model = typed) or "
     "let the roofline model derive them from GPU, draft/target pair, batch and context (Cost model = roofline). "
     "Both grow with context because each pass reads the KV cache."),
    ("load", "Batch and concurrency: the server's load and yours",
     "Speculative decoding pays while the server is memory-bound and fades as its batch grows: the verify pass "
     "computes K + 1 tokens per stream, so at a large batch the fast tier can be slower than the standard one. "
     "Two numbers are easy to mix up. The roofline's <b>Batch</b> is the <i>server's</i> batch: the sequences the "
     "engine verifies together, yours and every other customer's. You cannot see it; a vendor rarely says it. "
     "A tier's <b>Concurrency</b> (Tools &gt; Probe a tier, <i>Your load</i>) is <i>yours</i>: the parallel "
     "streams your batch job keeps open. Probe with <i>Concurrency</i> 1,4,16 to measure the speedup over the "
     "baseline at each level; Apply keeps them on the tier, and where one was measured at the tier's own "
     "concurrency the comparison and the report judge the price at that load and say so. The <i>Speedup vs "
     "concurrency</i> chart shows the measured points, the claim at one stream (a claim is made on a quiet "
     "server), the price ratio the speedup must stay above to be worth the premium, and, for a roofline tier, "
     "the roofline's speedup against the server's batch as a dashed line: where your points fall on it says "
     "what batch the vendor's server behaves like. A level the server throttled (429s) is marked and not used: "
     "its speed measured the rate limit."),
    ("speedup", "Speedup S",
     "One stretch costs K c + v target steps and emits E tokens, so S = E / (K c + v) against plain decoding "
     "of the target. S &lt; 1 means the fast tier is slower than the raw target for that class."),
    ("break_even", "Break-even alpha*",
     "The acceptance at which the mechanism pays for itself: E(alpha*, K) = K c + v. "
     "If K c + v &le; 1 it always pays (alpha* = 0); if K c + v &ge; K + 1 it never pays at this K, and the app "
     "says <i>none</i> instead of inventing a number. <b>Margin</b> = alpha - alpha*, in percentage points: how far "
     "above (or below) break-even this class runs."),
    ("verdict", "Verdict: gain, marginal, tax",
     "<span style='background:#c9e8c9'>&nbsp;gain&nbsp;</span> S &ge; 1 + marginal band (Settings, default 5%); "
     "<span style='background:#ffe4b0'>&nbsp;marginal&nbsp;</span> 1 &le; S &lt; 1 + band; "
     "<span style='background:#f6c4c4'>&nbsp;tax&nbsp;</span> S &lt; 1: half-empty trailers, the draft's cost is "
     "on the invoice and the speed is not delivered. Grey: the tier does not run speculative decoding. "
     "<span style='background:#ddd3f0'>&nbsp;undecided&nbsp;</span> the speedup's interval reaches both sides of a "
     "verdict's line: measure more before acting on it (see <a href='#certainty'>intervals</a>). "
     "This is the <b>speed verdict</b>: it says whether the tier is faster than plain decoding, not whether the "
     "speed is worth what it costs; the value verdict below says that."),
    ("value", "Value verdict: is the speed worth the premium?",
     "The speed verdict compares a tier with plain decoding; the <b>value verdict</b> compares its speed with its "
     "price, both against the tier it is priced against (its baseline). "
     "<b>Price ratio</b> = the traffic priced on the tier / the same traffic priced on the baseline: per class, that "
     "class's input and output tokens (a class with no tokens entered is priced per output token); for the mix, "
     "monthly cost / the baseline's monthly cost (the premium + 1). "
     "<span style='background:#b9dcf2'>&nbsp;worth the premium&nbsp;</span> when the speedup over the baseline is "
     "at least the price ratio, so one unit of speed costs no more than on the baseline (Cost per 1x no higher); "
     "<span style='background:#f2c6de'>&nbsp;not worth it&nbsp;</span> otherwise: faster, perhaps, but you pay "
     "more for the speed than it gives; <span style='background:#ddd3f0'>&nbsp;undecided&nbsp;</span> where the "
     "interval on the speedup over the baseline reaches both sides of the price ratio. A tier can be a <i>gain</i> and <i>not worth it</i> at once. "
     "<b>Price break-even alpha</b>: the acceptance at which the speedup over the baseline equals the price ratio, "
     "solved like a claim's alpha (0% when even alpha = 0 pays; <i>none</i> when not even alpha = 1 does). "
     "The baseline's own speedup is held where it is (1 for plain decoding). "
     "For the mix one alpha cannot describe classes that differ: <i>Value needs</i> is the one acceptance "
     "that, held by every class, would make the mix break even on price, and <i>Runs like</i> is the one "
     "acceptance that gives the mix speedup you have now (both an alpha, <tt>α 66.2%</tt>, or where a class is a "
     "profile or a length a mean acceptance length, <tt>AL 2.80 @K4</tt>). n/a: no baseline, or the tier does not run speculative "
     "decoding. The results grid shows either verdict (show: Speed verdict / Value verdict) and colours its cells "
     "by the verdict that goes with the number shown."),
    ("certainty", "Intervals, undecided verdicts and the fair price",
     "A measured acceptance carries an <b>interval</b> at the confidence in Settings (95% by default), with the "
     "request (prompt) as the unit, since the tokens of one request are not independent; under 5 requests there "
     "is none, and a count-only import (a scrape, a log line) says <i>interval unknown</i>. A typed acceptance may "
     "carry a range of its own (the vendor's, or your doubt). Every speedup then shows its interval, "
     "<tt>1.44x (1.31–1.58)</tt>; the mix's comes from the classes together, their errors independent. Where an "
     "interval reaches both sides of a break-even the verdict is <i>undecided</i>: Tools &gt; Probe a tier, "
     "<i>Run until decided</i>, buys the requests that settle it and says what they cost first. "
     "<b>Fair price</b> (Per tier): the price at which the speed over the baseline is exactly worth it, as a "
     "factor on both list prices (speedup over the baseline / price ratio): above 1.00x the list price is a "
     "good deal, below it the tier charges more than its speed is worth. <i>open at</i> is the factor at the "
     "interval's pessimistic end, the number to open a negotiation with. <i>Value needs</i> is the "
     "acceptance to guarantee: what the vendor would have to commit to for the list price to pay, beside "
     "<i>Runs like</i>, what your mix runs like now. Where a class is a profile or a length both are "
     "mean acceptance lengths at the tier's K (AL: tokens per verify step), since no one alpha applies."),
    ("shapes", "Profiles and mean acceptance lengths",
     "A class (or an override) can hold, instead of one alpha, a <b>per-position profile</b> (the acceptance at "
     "each draft position) or a <b>mean acceptance length</b> measured at a stated K, as engines and the Measure "
     "panel report them. The comparison then takes E from it, and the grid shows <tt>AL 3.58</tt> (the mean "
     "acceptance length at the tier's K; <tt>*</tt> where that K is past the positions measured, so the profile "
     "was extended) and the break-evens in tokens per step, <tt>E* 1.90</tt> (K c + v, or what the price "
     "needs), with the margin in tokens per step. In the Task classes table and the Acceptance grid a profile's "
     "cell draws a small bar per draft position beside its alpha (p_1 on the left, full height 100%: bars "
     "falling to the right are a draft that is right early and wrong late), and a length reads "
     "<tt>AL 2.40 @K4</tt>. The alpha beside it is its one-number summary; typing an "
     "alpha replaces the profile or length."),
    ("optimal_k", "Best K",
     "The whole K from 1 to K max (or the tier's own K, if larger) that maximises S for this class, and the speedup it would give; "
     "a lower K wastes fewer slots when acceptance is low."),
    ("cost_factor", "FLOPs per token: the cost including the draft",
     "(K c<sub>flops</sub> + K + 1) / E: arithmetic per emitted token relative to plain decoding. When the GPU is "
     "memory-bound the vendor pays roughly 1/S of the time per token; when compute-bound it tends to this factor. "
     "It is what the speed costs the vendor, next to what they charge you for it. c<sub>flops</sub> is the draft's "
     "parameter count over the target's for a roofline tier; for a typed tier the typed time ratio c stands in for it."),
    ("mix", "Mix speedup",
     "Over the workload, time adds up, not speed: with monthly output-token shares w<sub>i</sub>, "
     "mix S = sum(w<sub>i</sub>) / sum(w<sub>i</sub> / S<sub>i</sub>), a weighted harmonic mean. "
     "An average of speedups would overstate it."),
    ("pricing", "Monthly cost, premium, cost per 1x",
     "Monthly cost = output tokens x output price + input tokens x input price (prices per million). "
     "Premium = monthly cost / the baseline tier's monthly cost - 1. Cost per 1x = monthly cost / mix speedup. "
     "<i>vs baseline</i> = mix speedup / the baseline's mix speedup."),
    ("claim", "The vendor's claim and the alpha it needs",
     "A claim \"S<sub>claim</sub> at context L\" implies an acceptance: solve S(alpha; K, c(L), v(L)) = S<sub>claim</sub>. "
     "Compare it with your measured alphas. The claim <i>holds</i> if your mix speedup reaches it within the "
     "tolerance in Settings. <i>Out of reach</i>: not even alpha = 1 gives that speedup at this K."),
    ("context", "Context length",
     "Longer context makes every pass read more KV cache, so c and v change and the gain shrinks: "
     "a 3x claim at 4K is not a 3x claim at 64K. The <i>Speedup vs context</i> chart shows it per class."),
    ("editing", "Editing the tables",
     "The inputs edit like a spreadsheet: type or F2 to edit, Enter and Tab commit and move, Delete clears, "
     "Ctrl+C / Ctrl+V copy and paste blocks in Excel's tab-separated format, Ctrl+Z / Ctrl+Y undo and redo "
     "every edit, one step per action; the last 500 steps are kept, the oldest dropped first. "
     "Ctrl+C copies every digit, so a value pasted back where it came from changes nothing and makes no "
     "undo step; text a spreadsheet would run as a formula (starting with =, +, -, @, a tab or a line break) "
     "is copied with a leading apostrophe, while numbers stay numbers. A paste starts at the current cell. "
     "A refused value names the cell and the rule in the status bar and stays in the cell's editor, so a typo "
     "can be fixed where it is; Escape gives the old value back. "
     f"<b>New rows</b> (Edit &gt; Add row, Ctrl++, or a paste running past the last row) are {NEW_ROW_POLICY}: "
     "a new task class weighs in the mix at once with the copied tokens and acceptance, marked <i>assumed</i> "
     "and <i>filled from</i> that row, so replace them with its own. After Add row only the new row is selected. "
     "<b>Delete rows</b> (Ctrl+-) removes the selected rows with their overrides; deleting more than one asks "
     "first and names them."),
]

# F1 on an input cell: the section that says what that field does to the numbers
ANCHOR_FOR_FIELD = {
    "name": "editing", "vendor": "editing", "notes": "editing", "speculative": "verdict", "k": "stretch",
    "cost_model": "cost", "c": "cost", "v": "cost", "gpu": "cost", "pair": "cost", "batch": "load",
    "concurrency": "load",
    "claimed_speedup": "claim", "claim_context": "claim", "price_out": "pricing", "price_in": "pricing",
    "baseline": "pricing", "tokens_out": "mix", "tokens_in": "pricing", "context": "context", "alpha": "alpha",
    "alpha_source": "alpha", "source_note": "alpha",
}

# F1 on a column of the per-tier summary; the rest open at the mix
ANCHOR_FOR_SUMMARY = {"Speed verdict": "verdict", "Value verdict": "value", "Claim holds": "claim",
                      "Claim needs alpha": "claim", "Fair price": "certainty", "Value needs": "certainty",
                      "Runs like": "certainty", "Price ratio": "value", "Measured": "probe",
                      "Monthly cost": "pricing", "Premium": "pricing", "Cost per 1x": "pricing",
                      "vs baseline": "pricing", "FLOPs/token": "cost_factor", "Claim": "claim"}

ANCHOR_FOR_METRIC = {"speedup": "speedup", "break_even": "break_even", "margin": "break_even",
                     "speed_verdict": "verdict", "value_verdict": "value", "price_break_even": "value",
                     "price_ratio": "value",
                     "trailer_fill": "fill", "alpha": "alpha", "optimal_k": "optimal_k", "cost_factor": "cost_factor"}


SECTIONS[:0] = DAY_SECTIONS  # the guide starts at the beginning of the day, then explains every number


def version() -> str:
    """The installed SpecLedger's version (pyproject's), or 'unknown' when run from an uninstalled tree."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("specledger")
    except PackageNotFoundError:
        return "unknown"


def about_html() -> str:
    return (f"<h3>SpecLedger {version()}</h3><p>Is a vendor's speculative-decoding fast tier worth its price on your "
            "workload? Break-even acceptance, priced comparison, measured acceptance, and a report for the "
            "negotiation.</p><p>Help &gt; Getting started walks through an analyst's day; F1 on any cell explains "
            "that number.</p>")


def guide_html() -> str:
    contents = " &middot; ".join(f"<a href='#{a}'>{t}</a>" for a, t, _ in SECTIONS)
    body = "".join(f"<h3><a name='{a}'></a>{t}</h3><p>{b}</p>" for a, t, b in SECTIONS)
    return f"<h2>The SpecLedger guide: the analyst's day, then every number</h2><p>{contents}</p>{body}"


class HelpDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("SpecLedger guide")
        self.resize(720, 640)
        self.browser = QTextBrowser(self)
        self.browser.setOpenLinks(True)
        self.browser.setHtml(guide_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)

    def show_section(self, anchor: str = "") -> None:
        self.show()
        if anchor:
            self.browser.scrollToAnchor(anchor)
        else:
            self.browser.verticalScrollBar().setValue(0)
        self.raise_()
