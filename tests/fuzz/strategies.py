"""Hostile values: text with control characters, lone surrogates, decimal commas, percents,
thousands marks and suffixes; numbers at the edges; the wrong JSON types."""
from __future__ import annotations

from hypothesis import strategies as st

# characters a spreadsheet, a pasted cell or a vendor's export can hold, the odd ones weighted in
ODD_CHARS = "\x00\x01\x07\x0b\x0c\x1b\x1f\x7f\x85\u2028\ufffe\ud800\udc00\t\n\r"
NUMBERISH = "0123456789.,%-+ekKmMx$€_ "


def hostile_text(max_size: int = 24) -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(alphabet=st.sampled_from(list(NUMBERISH)), max_size=max_size),
        st.text(alphabet=st.sampled_from(list(ODD_CHARS + "abcXYZ =@")), max_size=max_size),
        st.text(max_size=max_size),
        st.sampled_from(["2,50", "0,1", "1,5", "1,500", "1.500", "12,50", "80%", "1e309", "-0", "nan", "inf",
                         "1,234.5", "1.234,5", "=1+1", "@SUM(1)", "+cmd", "yes", "roofline", "H100 SXM", "x" * 201]),
    )


def hostile_number() -> st.SearchStrategy[object]:
    return st.one_of(st.integers(-10**400, 10**400), st.floats(allow_nan=True, allow_infinity=True),
                     st.sampled_from([0, 1, 4, 16, 0.5, 1e308, -1e-320, 2**63, 10**20]))


def hostile_json_value() -> st.SearchStrategy[object]:
    scalar = st.one_of(st.none(), st.booleans(), hostile_number(), hostile_text())
    return st.one_of(scalar, st.lists(scalar, max_size=3), st.dictionaries(st.text(max_size=5), scalar, max_size=3))
