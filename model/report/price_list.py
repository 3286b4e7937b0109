"""A vendor's price list (tiers or task classes in a CSV or simple xlsx) merged into a workbook.

What the file does not say, the workbook keeps: a row whose name is already in the workbook
(case-insensitive) takes only the columns the file has, and every other field stays as it was.
Rows with new names are appended; for the columns the file lacks they take a blank row's
defaults, and the summary says so. Prices are taken only in the workbook's currency: a price the
file marks as another ("$9.50" in a EUR workbook, a "Price out (USD)" header, a Currency column)
refuses the whole import with the cell named; nothing is converted behind the analyst's back.
A workbook with no tiers yet adopts the file's one currency instead.
"""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model.report.importer import cell_text
from model.report.price_currency import currency_in, format_currency, money_currency
from model.report.sheet_reader import ERROR_CODES, MAX_COLUMNS, PRICE_LIST_ROWS, CellError, read_csv, read_xlsx
from model.workbook.rows import NOT_GIVEN_ON_NEW_CLASS, TaskClass, Tier, Workbook
from model.workbook.validation import (CLASS_FIELDS, TERMS_FIELDS, TIER_FIELDS, WORKLOAD_FIELDS, FieldSpec,
                                       ValidationError, WorkbookError, check_workbook)

# a vendor's terms (cached and long-context prices, their date and source, the SLA) and a workload's bands and cache
# are columns a price list may have too (model/workbook/vendor_terms.py)
KINDS: dict[str, tuple[type, tuple[FieldSpec, ...]]] = {"tiers": (Tier, TIER_FIELDS + TERMS_FIELDS),
                                                        "classes": (TaskClass, CLASS_FIELDS + WORKLOAD_FIELDS)}
_WORDS = {"tiers": ("tier", "tiers"), "classes": ("task class", "task classes")}
_MONEY = ("price_out", "price_in", "price_cached_in", "price_in_long", "price_out_long", "price_cached_in_long")
@dataclass(frozen=True)
class PricedCell:
    """A money cell of the file with the currency it names (by itself, its column or its row)."""

    place: str  # "cell D2" or "sheet Prices, cell D2"
    row_name: str
    label: str
    raw: str
    currency: str


@dataclass
class PriceList:
    kind: str
    source: str
    fields: tuple[str, ...]  # field names the file has a column for, the name first
    rows: list[dict[str, Any]]  # per data row: field name -> parsed value, for those fields only
    priced: list[PricedCell] = field(default_factory=list)

    def new_rows(self) -> list[Any]:
        """The rows as a blank workbook would take them: the file's values over the field defaults."""
        row_type = KINDS[self.kind][0]
        return [row_type(**values) for values in self.rows]


@dataclass
class MergeResult:
    workbook: Workbook
    kind: str
    added: list[str]
    updated: list[str]  # rows the file changed
    unchanged: list[str]  # rows the file names with values the workbook already had
    changed_columns: list[str]  # labels of the fields that changed in some updated row
    kept_columns: list[str]  # labels of the fields the file lacks (kept on updated rows)
    currency_note: str
    # "name (incomplete: needs c and v)" per new tier; "name (acceptance and context not given)" per new class
    incomplete: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for the status bar or the terminal: rows added, rows updated and which columns."""
        one, many = _WORDS[self.kind]

        def count(names: list[str], verb: str) -> str:
            shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
            return f"{len(names)} {verb}" + (f" ({shown})" if names else "")

        parts = [count(self.added, "added"), count(self.updated, "updated")]
        if self.unchanged:
            parts.append(count(self.unchanged, "already as in the file"))
        text = "; ".join(parts)
        if self.updated:
            text += f". Columns changed: {', '.join(self.changed_columns) or 'none'}"
        if self.kept_columns and (self.updated or self.unchanged):
            kept = self.kept_columns
            text += (f". Not in the file, so kept: {', '.join(kept)}" if len(kept) <= 4 else
                     f". The {len(kept)} columns the file lacks were kept")
        if self.incomplete and self.kind == "classes":
            # a class the file does not describe in full: no tier's mix or verdict until it is
            text += (f". What the file lacks is not given on new {many}, so no tier has a mix or verdict until it is "
                     f"entered: {'; '.join(self.incomplete)}")
        elif self.kept_columns and self.added:
            text += f". New {many} take a blank {one}'s values for the columns the file lacks"
            if self.incomplete:
                # in full: which tiers have no verdicts until the analyst enters what the file did not say
                text += (f"; made up, so marked incomplete with no verdicts until entered: "
                         f"{'; '.join(self.incomplete)}")
        return text + (f". {self.currency_note}" if self.currency_note else "") + "."


def read_price_list(path: str | os.PathLike[str], kind: str, *, decimal: str | None = None,
                    max_rows: int = PRICE_LIST_ROWS) -> PriceList:
    """The file's header and rows, each cell through the one validator; errors name the cell.

    Headers match a field's label or name, case-insensitive ("Price out /1M" or "price_out"),
    with or without a currency ("Price out (EUR)"); unknown columns are ignored (price lists
    carry more than we need). A name column is required.

    `decimal` is the decimal mark of numbers written as text ("." or ","); None detects it: a CSV
    separated by ";" is the European export and has decimal commas, any other file decimal points.
    At most `max_rows` data rows are read (sheet_reader.PRICE_LIST_ROWS); more is refused.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)} (got {kind!r})")
    if decimal not in (None, ".", ","):
        raise ValueError(f"the decimal mark must be '.' or ',' (got {decimal!r})")
    p = Path(path)
    formats: list[tuple[str, ...]] | None
    if p.suffix.lower() in (".xlsx", ".xlsm"):
        grid, _ = read_xlsx(p, sheet=None, max_rows=max_rows + 1, max_cols=MAX_COLUMNS, formats=True)  # + the header
        sheet = f"sheet {grid.title}, "
        numbers = [n for n, _ in grid.numbered_rows()]
        table = [list(grid.rows[n]) for n in numbers]
        formats = [grid.formats.get(n, ()) for n in numbers]
        mark = decimal or "."
    else:
        sheet = ""
        csv_table = read_csv(p, max_rows=max_rows)
        numbers = [n for n, _ in csv_table.rows]
        # Excel saves an error cell in a CSV as its code: "#N/A" is no more a name there than in an xlsx
        table = [[CellError(f.strip()) if f.strip() in ERROR_CODES else f for f in fields]
                 for _, fields in csv_table.rows]
        formats = None
        mark = decimal or ("," if csv_table.delimiter == ";" else ".")
    out, problems = _from_table(table, formats, kind, sheet, str(p), numbers, mark)
    if problems:
        raise WorkbookError(problems, str(p))
    return out


@dataclass
class _Columns:
    """What a list's header row says: the field of each known column, the currency a price column's header names,
    the column of currencies by row (a tier list's); problems with the header."""

    fields: dict[int, FieldSpec]
    currency: dict[int, str]
    currency_col: int | None
    problems: list[str]


def _from_table(table: list[list[Any]], formats: list[tuple[str, ...]] | None, kind: str, sheet: str,
                source: str, numbers: list[int], decimal: str) -> tuple[PriceList, list[str]]:
    """`numbers` holds the sheet row (or CSV line) of each table row, for messages."""
    specs = KINDS[kind][1]
    empty = PriceList(kind, source, (), [])
    start = next((i for i, r in enumerate(table) if any(cell_text(v) for v in r)), None)
    if start is None:
        return empty, [f"{sheet}no header row: the file is empty"]
    head = _read_header(table[start], specs, kind, sheet, numbers[start])
    columns, problems = head.fields, head.problems
    if specs[0] not in columns.values():
        return empty, problems + [f"{sheet}row {numbers[start]}: no {specs[0].label!r} (name) column among the headers"]
    others = [cell_text(h) for c, h in enumerate(table[start])
              if c not in columns and c != head.currency_col and cell_text(h)]
    if len(columns) == 1 and others:
        # unknown columns are fine next to known ones (price lists carry extra), but a file where
        # only the name matches is almost surely the other kind: rows with every value defaulted
        return empty, problems + [f"{sheet}row {numbers[start]}: only the name column matches a {_WORDS[kind][0]} field "
                                  f"(the others: {', '.join(others)}); is this the other kind of list?"]
    name_col = next(c for c, s in columns.items() if s is specs[0])
    rows: list[dict[str, Any]] = []
    priced: list[PricedCell] = []
    seen: dict[str, int] = {}
    for r in range(start + 1, len(table)):
        values = table[r]
        if all(cell_text(v) == "" for v in values):
            continue
        if formats is None and any(cell_text(v) for v in values[len(table[start]):]):
            # a CSV row wider than its header: an unquoted 12,50 in a comma-separated list is price
            # 12 and the next column 50, every field after it shifted one along
            problems.append(f"line {numbers[r]}: {len(values)} fields, but the header (line {numbers[start]}) has "
                            f"{len(table[start])}; a number with a decimal comma (12,50) must be quoted (\"12,50\") "
                            "in a comma-separated list, or separate the list with semicolons")
            continue
        parsed = _read_row(values, None if formats is None else formats[r], head, name_col, sheet, numbers[r],
                           decimal, priced)
        if parsed is None:
            continue
        key = parsed[specs[0].name].lower()
        if key in seen:
            problems.append(f"{sheet}row {numbers[r]}: the name {parsed[specs[0].name]!r} is already used in row {seen[key]}")
            continue
        seen[key] = numbers[r]
        rows.append(parsed)
    fields = tuple(s.name for s in specs if s in columns.values())
    return PriceList(kind, source, fields, rows, priced), problems


def _cell(sheet: str, c: int, number: int) -> str:
    """Where a cell is, for messages: "cell D2" or "sheet Prices, cell D2" (`sheet` says the sheet)."""
    from openpyxl.utils import get_column_letter

    return f"{sheet}cell {get_column_letter(c + 1)}{number}"


def _read_header(header: list[Any], specs: tuple[FieldSpec, ...], kind: str, sheet: str, number: int) -> _Columns:
    """The fields the header row names (by label, by name, by name with spaces; a tier list's price column may
    name its currency, and a Currency column gives each row's)."""
    lookup: dict[str, FieldSpec] = {}
    for spec in specs:
        for key in (spec.label, spec.name, spec.name.replace("_", " ")):
            lookup[key.lower()] = spec
    lookup.setdefault("name", specs[0])
    out = _Columns({}, {}, None, [])
    for c, head in enumerate(header):
        text = cell_text(head)
        spec = lookup.get(text.lower())
        if spec is None and kind == "tiers":
            code, rest = currency_in(text)
            spec = lookup.get(rest.strip(" ()[]_-/").lower()) if code else None
            if spec is not None and spec.name in _MONEY:
                out.currency[c] = code  # type: ignore[assignment]
            elif text.lower() == "currency":
                out.currency_col = c
                continue
        if spec is None:
            continue
        if spec in out.fields.values():
            out.problems.append(f"{_cell(sheet, c, number)}: column {spec.label!r} appears twice")
        out.fields[c] = spec
    return out


def _read_row(values: list[Any], formats: tuple[str, ...] | None, head: _Columns, name_col: int, sheet: str,
              number: int, decimal: str, priced: list[PricedCell]) -> dict[str, Any] | None:
    """One data row's fields parsed, None where any is refused (its problems added to head.problems); a price
    that names its currency is added to `priced`."""
    problems = head.problems
    name = cell_text(values[name_col]) if name_col < len(values) and not isinstance(values[name_col], CellError) else ""
    who = f"{name!r}, " if name else ""
    row_currency = None
    currency_col = head.currency_col
    if currency_col is not None and currency_col < len(values) and cell_text(values[currency_col]):
        row_currency, rest = currency_in(cell_text(values[currency_col]))
        if row_currency is None or rest:
            problems.append(f"{_cell(sheet, currency_col, number)}: {who}Currency: "
                            f"{cell_text(values[currency_col])!r} is not a currency code such as USD or EUR")
            return None
    parsed: dict[str, Any] = {}
    for c, spec in head.fields.items():
        raw = values[c] if c < len(values) else None
        place = _cell(sheet, c, number)
        if isinstance(raw, CellError):
            problems.append(f"{place}: {who}{spec.label}: holds the spreadsheet error {raw.code}, not a value; "
                            "correct it in the file")
            continue
        if spec.name in _MONEY and raw is not None and cell_text(raw):
            if formats is not None:
                raw = format_currency(raw, formats[c] if c < len(formats) else "")
            code, raw = money_currency(raw, head.currency.get(c), row_currency)
            if code == "conflict":
                problems.append(f"{place}: {who}{spec.label}: {raw!r} names another currency than its "
                                "column or row")
                continue
            if code is not None:
                shown = values[c] if isinstance(values[c], str) else f"{values[c]!r} formatted as {code}"
                priced.append(PricedCell(place, name, spec.label, shown, code))
        try:
            parsed[spec.name] = spec.parse(raw, decimal)
        except ValidationError as exc:
            problems.append(f"{place}: {who}{spec.label}: {exc}")
    return parsed if len(parsed) == len(head.fields) else None


def _provenance(prices: PriceList) -> dict[str, str]:
    """What an acceptance from this file says of itself, where the file does not say it.

    An α the file sets is the file's, not the measurement the row held before: it is marked
    "imported" with the file's name, so the results never call a listed number measured.
    """
    if prices.kind != "classes" or "alpha" not in prices.fields:
        return {}
    out = {}
    if "alpha_source" not in prices.fields:
        out["alpha_source"] = "imported"
    if "source_note" not in prices.fields:
        out["source_note"] = f"imported: {Path(prices.source).name}"
    return out


def merge_rows(wb: Workbook, prices: PriceList) -> MergeResult:
    """A checked copy of `wb` with the file's rows merged in; raises WorkbookError, changing nothing, on any problem."""
    row_type, specs = KINDS[prices.kind]
    labels = {s.name: s.label for s in specs}
    out = wb.copy()
    note = _currency_note(out, prices)
    target = out.tiers if prices.kind == "tiers" else out.classes
    by_name = {row.name.lower(): i for i, row in enumerate(target)}
    added: list[str] = []
    updated: list[str] = []
    unchanged: list[str] = []
    changed_fields: set[str] = set()
    # a baseline typed in another case still names the tier it means (one of the file's own, too)
    exact = {n.lower(): n for n in [t.name for t in out.tiers] + [r["name"] for r in prices.rows]}
    provenance = _provenance(prices)
    incomplete: list[str] = []  # new tiers whose mechanics the file does not give, in words
    for values in prices.rows:
        values = dict(values)
        if values.get("baseline"):
            values["baseline"] = exact.get(values["baseline"].lower(), values["baseline"])
        i = by_name.get(values["name"].lower())
        if provenance and "alpha" in values and (i is None or target[i].alpha != values["alpha"]):  # type: ignore[union-attr]
            values = {**provenance, **values}
        if i is None:
            target.append(_new_row(row_type, values, prices, incomplete))  # type: ignore[arg-type]
            added.append(values["name"])
            continue
        old = target[i]
        new, diff = _updated_row(old, values, provenance)
        if diff:
            target[i] = new  # type: ignore[call-overload]
            updated.append(old.name)
            changed_fields.update(diff)
        else:
            unchanged.append(old.name)
    check_workbook(out)  # the caller names the file: its cells are named already
    kept = [labels[s.name] for s in specs if s.name not in prices.fields]
    changed = [labels[s.name] for s in specs if s.name in changed_fields]
    return MergeResult(out, prices.kind, added, updated, unchanged, changed, kept, note, incomplete)


def _currency_note(out: Workbook, prices: PriceList) -> str:
    """Settle the currency of `out` (the file's, for an empty workbook) and say it; raises WorkbookError on prices in
    another currency than the workbook's."""
    currency = out.settings.currency
    marked = {p.currency for p in prices.priced}
    note = ""
    if not out.tiers and prices.kind == "tiers" and len(marked) == 1:
        currency = out.settings.currency = marked.pop()
        note = f"Prices in {currency}, as the file says; the workbook now counts in {currency}"
    else:
        wrong = [p for p in prices.priced if p.currency != currency]
        if wrong:
            p = wrong[0]
            more = f" (and {len(wrong) - 1} more price{'s' if len(wrong) > 2 else ''})" if len(wrong) > 1 else ""
            raise WorkbookError([f"{p.place}: {p.row_name!r}, {p.label}: {p.raw!r} is in {p.currency}{more}, but this "
                                 f"workbook's prices are in {currency}; nothing imported. Convert the list to "
                                 f"{currency}, or change the workbook's currency in Edit > Workbook settings if "
                                 "that is what is wrong"])
        if any(f in _MONEY for f in prices.fields):
            note = (f"Prices in {currency}, as the file says" if prices.priced else
                    f"The file names no currency: prices taken as the workbook's {currency}")
    return note


def _new_row(row_type: type, values: dict[str, Any], prices: PriceList, incomplete: list[str]) -> Any:
    """A row the file adds, with what the file does not give marked not given; its words go to `incomplete`."""
    row = row_type(**values)
    if isinstance(row, Tier):
        made_up = _made_up_mechanics(row, prices.fields)
        # nor are its prices, where the file has no column for them: 0 is a free tier, not "not given"
        made_up += [f for f in ("price_out", "price_in") if f not in prices.fields]
        if made_up:
            row.defaulted = ", ".join(made_up)
            if "speculative" in made_up:
                row.speculative = "unknown"  # not "yes": the file did not say
            why = "; ".join(w for w in (row.missing_mechanics(), row.missing_prices()) if w)
            incomplete.append(f"{row.name} ({why}; made up: {row.defaulted})")
    elif isinstance(row, TaskClass):  # what the file does not give is not given, as for a row added by hand
        row.defaulted = ", ".join(f for f in NOT_GIVEN_ON_NEW_CLASS if f not in prices.fields
                                  and not (f == "alpha" and ("profile" in values
                                                             or "acceptance_length" in values)))
        if row.defaulted:
            incomplete.append(f"{row.name} ({row.not_described()})")
    return row


def _updated_row(old: Any, values: dict[str, Any], provenance: dict[str, Any]) -> tuple[Any, list[str]]:
    """A copy of `old` with the file's `values`, and the fields the file changed."""
    values.pop("name")  # the key, matched case-insensitively: the workbook's spelling stays
    # a copy, not dataclasses.replace: the tier keeps its identity (a probe's result stays bound to it)
    new = copy.copy(old)
    for name, value in values.items():
        setattr(new, name, value)
        if isinstance(new, Tier):
            new.entered(name)
    # the provenance that follows a new α is not a column the file changed
    diff = [f for f in values if getattr(old, f) != getattr(new, f) and f not in provenance]
    return new, diff


# what a tier's verdicts rest on; a price list that lacks them must not have them made up
_MECHANICS = ("speculative", "k", "cost_model", "c", "v", "gpu", "pair")


def _made_up_mechanics(tier: Tier, given: tuple[str, ...]) -> list[str]:
    """The mechanics fields a new tier took from a blank row because the file has no column for them."""
    if tier.speculative == "no" and "speculative" in given:
        return []  # a standard tier needs only its prices
    return [f for f in _MECHANICS if f not in given and f != "cost_model"]
