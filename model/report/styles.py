"""Cell writing and looks for the Excel report (XlsxWriter): formats, and the one place cells are written.

Every formula is written with SpecLedger's value as its saved result, so the file
reads right before anything recalculates it (mail previews, Protected View,
pandas, openpyxl with data_only). The same value is recorded for the tests,
which hold a real spreadsheet engine to it.

Imported only by the Excel modules, which the GUI imports lazily, so XlsxWriter
stays out of the window's start-up.
"""
from __future__ import annotations

import functools
import math
from typing import Any

from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell

from model.common.formatting import CURRENCY_SYMBOLS
from model.report.fast_sheet import ReportSheet
from model.workbook.rows import CURRENCIES
from model.comparison.verdicts import TOO_FEW_LABEL

PERCENT = "0.0%"
ALPHA_PERCENT = '"α "0.0%'  # an alpha in a column whose other rows may hold lengths ("AL 2.80", "E* 2.75")
TIMES = '0.00"x"'
TIMES1 = '0.0"x"'
NUMBER = "0.000"
INTEGER = "#,##0"
SIGNED_PERCENT = "+0.0%;-0.0%;0.0%"
CONTEXT_K = '0.#"K"'  # context lengths written in units of 1024 tokens, as the app shows them

NAVY, GREY_TEXT, GREY_FILL, INPUT_FILL = "#1F3864", "#595959", "#E7E6E6", "#FFF9E5"
TITLE = {"bold": True, "font_size": 14, "font_color": NAVY}
HEADING = {"bold": True, "font_size": 11, "font_color": NAVY}
LABEL = {"bold": True}
NOTE = {"italic": True, "font_color": GREY_TEXT}
# Values SpecLedger computed that have no closed form in a spreadsheet: grey and
# italic, so a reader knows they will not follow an edited input.
COMPUTED = {"italic": True, "font_color": GREY_TEXT, "bg_color": GREY_FILL}
INPUT = {"bg_color": INPUT_FILL}  # the cells an analyst is invited to edit
WRAP = {"text_wrap": True, "valign": "top"}
RIGHT = {"align": "right"}
CENTRE = {"align": "center"}
INDENT = {"align": "left", "indent": 1}  # text right after a right-aligned number column
BANNER = {"bold": True, "font_color": "#9C0006"}

VERDICT_LOOKS = {
    "gain": {"bg_color": "#C6EFCE", "font_color": "#006100"},
    "marginal": {"bg_color": "#FFEB9C", "font_color": "#9C5700"},
    "tax": {"bg_color": "#FFC7CE", "font_color": "#9C0006"},
    # the interval reaches both sides of a break-even: the window's pale violet
    "undecided": {"bg_color": "#DDD3F0", "font_color": "#3F2A78"},
    # the point's verdict on a class measured from too few requests for an interval: the window's sand
    "too few": {"bg_color": "#E9DFC0", "font_color": "#5C4A12"},
    # mechanics an import made up (Tier.defaulted): no verdict until they are entered; the window's teal
    "incomplete": {"bg_color": "#CFE6E4", "font_color": "#1F4E4A"},
}

# Plain words for the report's jargon headers, attached to the header cells as notes
HEADER_NOTES = {
    "Grey values": "Grey cells are numbers SpecLedger computed (no spreadsheet formula exists for them). This column "
                   "says when an input they rest on was edited here since export, so they are out of date: "
                   "import into SpecLedger and export again.",
    "Price break-even acceptance (SpecLedger)": ("The acceptance at which the tier's speed over its standard tier "
                                                 "exactly pays for its price over it: above it the premium is worth "
                                                 "paying. Ask the vendor to guarantee at least this. α 66.2% is a "
                                                 "per-token alpha; where a class is a profile or a length no alpha "
                                                 "applies, and the cell is a mean acceptance length in tokens per "
                                                 "verify step at the tier's K: AL 2.80 for the tier's mix (Summary), "
                                                 "E* 2.75 for one class (Comparison)."),
    "Alpha the claim needs (SpecLedger)": "The acceptance at which the vendor's claimed speedup would come true at "
                                          "the claim's context. 'out of reach': no acceptance can deliver the claim.",
    "Price break-even alpha": "The acceptance at which the speed over the standard tier pays for the price over it.",
    "Mix low": "The mix speedup at the low end of its interval, at the confidence on Inputs: the classes' intervals "
               "combined as independent. Blank where no class has an interval (an assumed alpha with no range).",
    "Mix high": "The mix speedup at the high end of its interval (see Mix low).",
    "Speedup, low end": "The speedup at the low end of the acceptance's interval (Alpha low on Inputs); blank "
                        "without one. The verdicts say undecided where the two ends fall on different sides.",
    "Break-even length E*": "K c + v: the tokens a verify step must deliver for the draft to pay for itself, for any "
                            "draft (chain, tree, a per-position profile). Compare it with E, the tokens per stretch.",
    "Cost weight on tier": "The class's monthly tokens at the tier's prices (its prices alone where the class has "
                           "no tokens): what the value verdict weighs against the baseline's.",
    "Cost weight on baseline": "The class's monthly tokens at the baseline tier's prices; blank without a baseline.",
    "Baseline speedup": "The baseline tier's speedup on this class (its own row above): speed over the baseline is "
                        "Speedup divided by it.",
    **{f"Speedup, alpha {shift} pts": f"The speedup with the acceptance moved by {shift} points: an alpha by the "
       "points; a per-position profile or a mean acceptance length has no one alpha, so every conditional rate "
       "p1..pK (extrapolated ones too; a length's flat i.i.d. alpha) moves by them. Clipped to 0%..100%."
       for shift in ("-20", "-10", "+10")},
}

# A user's text starting with one of these would be a formula (or a DDE/@ function
# in some spreadsheets) if typed; it must stay inert text in the file.
FORMULA_LEADS = ("=", "+", "-", "@")


# Printing: A4 landscape less the 0.5-inch side margins is this many pixels wide at 100% (Excel's 96 dpi).
PRINTABLE_PX = 1027
# Scaled below this, 11-point text prints under 7 points, too small to read on paper: a wider sheet
# prints on more pages across instead, its name columns repeated on each.
MIN_PRINT_SCALE = 0.6
DEFAULT_WIDTH = 8.43  # a column's width in characters when none is set
# A4 landscape less the 0.6-inch top and bottom margins is about 678 pixels tall at 100%; a little less for
# rows LibreOffice draws a pixel or two taller than Excel
PRINTABLE_HEIGHT_PX = 660


def column_px(width: float) -> int:
    """A column's width in pixels as Excel lays it out (7-pixel digits, 5 pixels of padding)."""
    return int(width * 12 + 0.5) if width < 1 else int(width * 7 + 5)


@functools.lru_cache(maxsize=4096)  # the Comparison asks it of the same few words on every row
def wrapped_lines(text: str, width: float) -> int:
    """About how many lines `text` takes wrapped at spaces in a column `width` characters wide
    (a width unit is one digit; proportional text in Calibri runs about 1.25 characters a unit; a longer word breaks)."""
    per_line = max(1, int(width * 1.25))
    if "\n" in text:  # a note's own line breaks (multiline fields keep them) start lines of their own
        return sum(wrapped_lines(part, width) for part in text.split("\n"))
    lines, used = 1, 0
    for word in text.split():
        if used and used + 1 + len(word) > per_line:
            lines, used = lines + 1, 0
        if not used and len(word) > per_line:
            lines += (len(word) - 1) // per_line
            used = (len(word) - 1) % per_line + 1
        else:
            used += len(word) + (1 if used else 0)
    return lines


_HEADER_LOOKS = {align: {"text_wrap": True, "valign": "bottom", "align": align} for align in ("left", "center", "right")}
_INDENTED_HEADER = {**_HEADER_LOOKS["left"], "indent": 1}


def money_format(currency: str, decimals: int = 0) -> str:
    body = "#,##0" + ("." + "0" * decimals if decimals else "")
    symbol = CURRENCY_SYMBOLS.get(currency)
    if symbol:
        return f'"{symbol}"{body}'
    # the code is user text: keep it to letters so it cannot break the format string
    code = "".join(ch for ch in currency if ch.isalnum())[:8]
    return f'{body} "{code}"' if code else body


def col_name(col: int) -> str:
    """Column letters of a 1-based column."""
    return xl_col_to_name(col - 1)


def cell_name(row: int, col: int, absolute: bool = False) -> str:
    """A1 name of a 1-based (row, col)."""
    return xl_rowcol_to_cell(row - 1, col - 1, absolute, absolute)


class Formats:
    """XlsxWriter formats made once per look and reused (a format per cell would bloat the file)."""

    def __init__(self, book: Any) -> None:
        self.book = book
        self._cache: dict[tuple, Any] = {}
        # by the looks' identities: the common case, a few module constants per cell, without hashing their items;
        # each entry keeps its look dicts alive, so an id in a key can never be reused by another dict
        self._by_id: dict[tuple, tuple[Any, tuple]] = {}

    def get(self, num_format: str | None = None, *looks: dict[str, Any] | None) -> Any:
        fast = (num_format, *map(id, looks))
        hit = self._by_id.get(fast)
        if hit is not None:
            return hit[0]
        key = (num_format, *(tuple(sorted(look.items())) if look else () for look in looks))
        fmt = self._cache.get(key)
        if fmt is None:
            props: dict[str, Any] = {}
            for look in looks:
                if look:
                    props.update(look)
            if num_format:
                props["num_format"] = num_format
            fmt = self._cache[key] = self.book.add_format(props) if props else None
        self._by_id[fast] = (fmt, looks)
        return fmt


class SheetWriter:
    """One sheet of the report, addressed 1-based like the layout; records each formula's value."""

    def __init__(self, book: Any, formats: Formats, name: str, expected: list[tuple[str, int, int, Any]] | None
                 ) -> None:
        """``expected``: where each formula's value is recorded (sheet, row, col, value); None records nothing."""
        self.ws = book.add_worksheet(name, worksheet_class=ReportSheet)
        self.name = name
        self.formats = formats
        self.expected = expected
        self._header_formats: dict[tuple[int, int], Any] = {}  # an Excel table rewrites its header: it reuses these
        self._widths: dict[int, float] = {}  # 1-based column -> width, as set: what the printed page is laid out by
        self._hidden: set[int] = set()
        self.print_last_col: int | None = None  # set where a sheet prints only its first columns (a print area)

    def text(self, row: int, col: int, text: Any, *looks: dict[str, Any] | None) -> None:
        """Text that is text: never read as a formula, whatever it starts with (quote prefix when it would be)."""
        value = "" if text is None else str(text)
        quote = {"quote_prefix": True} if value.startswith(FORMULA_LEADS) else None
        fmt = self.formats.get(None, *looks, quote)
        if value:
            self.ws.write_string(row - 1, col - 1, value, fmt)
        elif fmt is not None:
            self.ws.write_blank(row - 1, col - 1, None, fmt)

    def number(self, row: int, col: int, value: float | int | None, num_format: str | None = None,
               *looks: dict[str, Any] | None) -> None:
        fmt = self.formats.get(num_format, *looks)
        if value is None:
            if fmt is not None:
                self.ws.write_blank(row - 1, col - 1, None, fmt)
        else:
            self.ws.write_number(row - 1, col - 1, value, fmt)

    def computed(self, row: int, col: int, value: Any, num_format: str | None = None) -> None:
        """SpecLedger's number (or word, e.g. "never") for a result with no closed form: grey."""
        if isinstance(value, str):
            self.text(row, col, value, COMPUTED, RIGHT)
        else:
            self.number(row, col, value, num_format, COMPUTED)

    def formula(self, row: int, col: int, formula: str, value: Any, num_format: str | None = None,
                *looks: dict[str, Any] | None) -> None:
        """A formula of SpecLedger's making (user text never enters one), saved with SpecLedger's value."""
        if self.expected is not None:
            self.expected.append((self.name, row, col, value))
        self.ws.write_formula(row - 1, col - 1, formula, self.formats.get(num_format, *looks), value)

    def computed_writer(self, num_format: str | None = None) -> Any:
        """computed() with its look resolved once, for the report's long loops: write(row, col, value)."""
        fmt, text = self.formats.get(num_format, COMPUTED), self.text
        write = self.ws._write_number  # past write_number's argument conversion: the loops give 1-based ints

        def write_one(row: int, col: int, value: Any) -> None:
            if isinstance(value, str):
                text(row, col, value, COMPUTED, RIGHT)
            else:
                write(row - 1, col - 1, value, fmt)
        return write_one

    def writer(self, num_format: str | None = None, *looks: dict[str, Any] | None) -> Any:
        """formula() with its look resolved once, for the report's long loops: write(row, col, formula, value)."""
        fmt, name, write = self.formats.get(num_format, *looks), self.name, self.ws._write_formula
        if self.expected is None:
            return lambda row, col, formula, value: write(row - 1, col - 1, formula, fmt, value)
        record = self.expected.append

        def write_one(row: int, col: int, formula: str, value: Any) -> None:
            record((name, row, col, value))
            write(row - 1, col - 1, formula, fmt, value)
        return write_one

    def header_row(self, row: int, labels: list[str], first_col: int = 1, text_columns: set[str] | None = None,
                   centred: set[str] | None = None) -> None:
        """Headers over numbers sit right, like the numbers; over text (all, if no set is given) left; all wrap.

        A left header right after a right one is indented, so the two do not read as one run of words."""
        before = ""
        for i, label in enumerate(labels):
            if text_columns is None or label in text_columns:
                align = "left"
            elif centred and label in centred:
                align = "center"
            else:
                align = "right"
            look = _INDENTED_HEADER if align == "left" and before == "right" else _HEADER_LOOKS[align]
            before = align
            self.text(row, first_col + i, label, LABEL, look)
            self._header_formats[(row, first_col + i)] = self.formats.get(None, LABEL, look)

    def widths(self, widths: dict[int, float]) -> None:
        for col, width in widths.items():
            self.ws.set_column(col - 1, col - 1, width)
            self._widths[col] = width

    def hide(self, col: int, width: float) -> None:
        """A helper column other cells read, out of sight and off the printed page."""
        self.ws.set_column(col - 1, col - 1, width, None, {"hidden": True})
        self._hidden.add(col)

    def print_layout(self, key_cols: int = 0) -> tuple[int, float]:
        """(pages across, print scale) for this sheet's columns.

        One page wide unless that would scale below MIN_PRINT_SCALE; then as few pages across as keep
        the scale above it, each repeating the first `key_cols` columns (a sheet with none stays one wide).
        """
        last = self.print_last_col or (self.ws.dim_colmax + 1 if self.ws.dim_colmax is not None else 1)
        px = [0 if c in self._hidden else column_px(self._widths.get(c, DEFAULT_WIDTH)) for c in range(1, last + 1)]
        total = sum(px)
        if not key_cols or total * MIN_PRINT_SCALE <= PRINTABLE_PX:
            return 1, min(1.0, PRINTABLE_PX / total)
        key = sum(px[:key_cols])
        pages = math.ceil((total - key) / (PRINTABLE_PX / MIN_PRINT_SCALE - key))
        return pages, min(1.0, pages * PRINTABLE_PX / (total + (pages - 1) * key))

    def rows_px(self, first: int, last: int) -> int:
        """The height of rows `first`..`last` (1-based) in pixels as set so far (default 20 each)."""
        sizes = self.ws.row_sizes
        return sum(sizes[r][0] if r in sizes else self.ws.default_row_height for r in range(first - 1, last))

    def table(self, name: str, first_row: int, last_row: int, labels: list[str], first_col: int = 1,
              filters: bool = True) -> None:
        """An Excel table (banding, and filter buttons unless `filters` is off) over cells already written;
        it needs one data row at least. A filter button covers the last letters of a right-aligned header:
        a short table that nobody filters is better read without them."""
        last_row = max(last_row, first_row + 1)
        self.ws.add_table(first_row - 1, first_col - 1, last_row - 1, first_col + len(labels) - 2, {
            "name": name, "style": "Table Style Light 9", "autofilter": filters,
            "columns": [{"header": label, "header_format": self._header_formats.get((first_row, first_col + n))}
                        for n, label in enumerate(labels)],
        })

    def money_follows_currency(self, cells: str, currency: str, exported: str, decimals: int = 0) -> None:
        """Money cells show the symbol of the currency Inputs names now, not only the one at export.

        A number format cannot be a formula, but a conditional format can carry one: one rule per other
        currency the validator allows (Excel 2010 and LibreOffice apply them). `cells` may list ranges
        separated by spaces; `currency` is the absolute reference of the Inputs currency cell.
        """
        first = cells.split()[0]
        for code in CURRENCIES:
            if code != exported:
                self.ws.conditional_format(first, {"type": "formula", "criteria": f'={currency}="{code}"',
                                                   "format": self.formats.get(money_format(code, decimals)),
                                                   "multi_range": cells})

    def explain_headers(self, row: int, labels: list[str]) -> None:
        """A plain-language note on each jargon header in `labels` (a cell comment: shown on hover, not printed)."""
        for col, label in enumerate(labels, start=1):
            if label in HEADER_NOTES:
                self.ws.write_comment(row - 1, col - 1, HEADER_NOTES[label], {"x_scale": 2, "y_scale": 1.2})

    def colour_words(self, cells: str, words: dict[str, str]) -> None:
        """Conditional formatting, so a verdict that changes after an edit changes colour too."""
        for word, look in words.items():
            self.ws.conditional_format(cells, {"type": "cell", "criteria": "==", "value": f'"{word}"',
                                               "format": self.formats.get(None, VERDICT_LOOKS[look])})

    def colour_verdicts(self, cells: str) -> None:
        self.colour_words(cells, {"gain": "gain", "marginal": "marginal", "tax": "tax", "undecided": "undecided"})

    def colour_legend(self, row: int, entries: list[tuple[str, str]], widths: dict[int, float], note: str) -> None:
        """The key to the sheet's verdict colours, one row: each look's words on its colour from column B, merged
        across as many columns as they need (a neighbour's colour would cut them), then ``note`` in grey italics."""
        self.text(row, 1, "Colours", LABEL)
        col = 2
        for look, words in entries:
            end, room = col, widths.get(col, DEFAULT_WIDTH)
            while room < len(words) + 2:
                end += 1
                room += widths.get(end, DEFAULT_WIDTH)
            fmt = self.formats.get(None, CENTRE, VERDICT_LOOKS[look])
            if end > col:
                self.ws.merge_range(row - 1, col - 1, row - 1, end - 1, words, fmt)
            else:
                self.ws.write_string(row - 1, col - 1, words, fmt)
            col = end + 1
        self.text(row, col, note, NOTE)

    def colour_too_few(self, cells: str) -> None:
        """Verdicts labelled as resting on too few requests (model.comparison.verdicts.labelled), whatever the verdict."""
        self.ws.conditional_format(cells, {"type": "text", "criteria": "ends with", "value": f"({TOO_FEW_LABEL})",
                                           "format": self.formats.get(None, VERDICT_LOOKS["too few"])})

    def page(self, title: str, exported: str, header_rows: tuple[int, int] | None = None, key_cols: int = 0) -> None:
        """Printed (and PDF) pages: readable text (see print_layout), the header row and the name columns on
        every page, the workbook and sheet in the header, the export date and page numbers in the footer."""
        ws = self.ws
        ws.set_landscape()
        ws.set_paper(9)  # A4
        across, _ = self.print_layout(key_cols)
        ws.fit_to_pages(across, 0)
        if across > 1:
            ws.repeat_columns(0, key_cols - 1)
            ws.print_across()  # a row's later columns on the very next page, not after every row's first ones
        ws.set_margins(left=0.5, right=0.5, top=0.6, bottom=0.6)
        if header_rows:
            ws.repeat_rows(header_rows[0] - 1, header_rows[1] - 1)
        # '&' starts a header code: a workbook title with one must print as itself
        safe = title.replace("&", "&&")[:80]
        ws.set_header(f"&L&\"-,Bold\"{safe}&R{self.name}")
        ws.set_footer(f"&LSpecLedger report, exported {exported}&Rpage &P of &N")
