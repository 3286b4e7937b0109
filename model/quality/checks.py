"""Task checks: a prompt line's `"check"` says what a good answer is, and every answer of both tiers is scored.

Kinds (one per check; docs/guide/quality.md):
- {"json": true}                      the text parses as JSON
- {"json_schema": {...}}              it parses and validates against the schema (the `jsonschema` library)
- {"regex": "..."}                    the pattern is found in it (Python's re.search)
- {"equals": "..."}                   it equals the string, leading and trailing whitespace aside
- {"contains": ["...", ...]}          it holds every string
- {"number": 42, "tolerance": 0.01}   its first number is within the tolerance (default 0) of 42
- {"python": true}                    it parses as Python (ast.parse): code that must at least be code
`"on": "prompt+answer"` checks the prompt's text followed by the answer (a completion-style prompt whose answer
finishes what the prompt began); the default is the answer alone. A malformed check raises CheckError, one line.
"""
from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

KINDS = ("json", "json_schema", "regex", "equals", "contains", "number", "python")
ON = ("answer", "prompt+answer")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
MAX_PATTERN = 2000  # characters of a regex: a check, not a program


class CheckError(ValueError):
    """A malformed check; str() says what is wrong in one line."""


@dataclass(frozen=True)
class Check:
    kind: str
    value: Any = field(compare=False, hash=False)
    tolerance: float = 0.0
    on: str = "answer"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {self.kind: list(self.value) if self.kind == "contains" else self.value}
        if self.kind == "number":
            out["tolerance"] = self.tolerance
        if self.on != "answer":
            out["on"] = self.on
        return out

    def describe(self) -> str:
        v = self.value
        what = {"json": lambda: "parses as JSON", "json_schema": lambda: "matches the JSON schema",
                "regex": lambda: f"matches /{v}/", "equals": lambda: f"equals {v!r}",
                "contains": lambda: f"contains {', '.join(map(repr, v))}",
                "number": lambda: f"is {v:g} ± {self.tolerance:g}", "python": lambda: "parses as Python"}[self.kind]()
        return what + (" (prompt and answer)" if self.on != "answer" else "")

    def score(self, answer: str, prompt: str = "") -> tuple[bool, str]:
        """(passed, why it failed: "" when it passed) for one answer."""
        text = prompt + answer if self.on == "prompt+answer" else answer
        return _SCORERS[self.kind](self, text)


def _json(check: Check, text: str) -> tuple[bool, str]:
    try:
        json.loads(text)
    except ValueError as exc:
        return False, f"not JSON ({str(exc).split(':')[0]})"
    return True, ""


def _json_schema(check: Check, text: str) -> tuple[bool, str]:
    import jsonschema

    try:
        data = json.loads(text)
    except ValueError as exc:
        return False, f"not JSON ({str(exc).split(':')[0]})"
    error = jsonschema.exceptions.best_match(jsonschema.validators.validator_for(check.value)(check.value).iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "the top level"
        return False, f"schema: at {where}, {error.message[:120]}"
    return True, ""


def _regex(check: Check, text: str) -> tuple[bool, str]:
    return (True, "") if re.search(check.value, text) else (False, f"no match for /{check.value}/")


def _equals(check: Check, text: str) -> tuple[bool, str]:
    return (True, "") if text.strip() == check.value.strip() else (False, f"not equal to {check.value!r}")


def _contains(check: Check, text: str) -> tuple[bool, str]:
    missing = [s for s in check.value if s not in text]
    return (False, f"missing {', '.join(map(repr, missing))}") if missing else (True, "")


def _number(check: Check, text: str) -> tuple[bool, str]:
    found = _NUMBER.search(text)
    if found is None:
        return False, "no number"
    x = float(found.group())
    if abs(x - check.value) <= check.tolerance:
        return True, ""
    return False, f"{found.group()} is not {check.value:g} ± {check.tolerance:g}"


def _python(check: Check, text: str) -> tuple[bool, str]:
    try:
        ast.parse(text)
    except SyntaxError as exc:
        return False, f"not Python ({exc.msg}, line {exc.lineno})"
    except ValueError as exc:  # a null byte
        return False, f"not Python ({exc})"
    return True, ""


_SCORERS = {"json": _json, "json_schema": _json_schema, "regex": _regex, "equals": _equals, "contains": _contains,
            "number": _number, "python": _python}


def parse_check(value: Any) -> Check:
    """The check a prompt line's "check" field gives; CheckError naming what is wrong."""
    if not isinstance(value, dict):
        raise CheckError("'check' must be an object such as {\"json\": true}")
    kinds = [k for k in value if k in KINDS]
    unknown = [k for k in value if k not in KINDS and k not in ("tolerance", "on")]
    if unknown:
        raise CheckError(f"'check' has an unknown field {unknown[0]!r} (kinds: {', '.join(KINDS)}; with them "
                         "'tolerance' for number, 'on')")
    if len(kinds) != 1:
        raise CheckError(f"'check' needs exactly one kind of {', '.join(KINDS)}, found {len(kinds)}")
    kind = kinds[0]
    v = value[kind]
    on = value.get("on", "answer")
    if on not in ON:
        raise CheckError(f"'check.on' must be one of {', '.join(ON)}")
    if "tolerance" in value and kind != "number":
        raise CheckError("'check.tolerance' goes with a number check only")
    if kind in ("json", "python") and v is not True:
        raise CheckError(f"'check.{kind}' must be true")
    if kind == "json_schema":
        _check_schema(v)
    if kind == "regex":
        if not isinstance(v, str) or not v or len(v) > MAX_PATTERN:
            raise CheckError(f"'check.regex' must be a pattern of 1 to {MAX_PATTERN} characters")
        try:
            re.compile(v)
        except re.error as exc:
            raise CheckError(f"'check.regex' is not a valid pattern ({exc})") from None
    if kind == "equals" and not isinstance(v, str):
        raise CheckError("'check.equals' must be a string")
    if kind == "contains" and not (isinstance(v, list) and v and all(isinstance(s, str) and s for s in v)):
        raise CheckError("'check.contains' must be a non-empty list of non-empty strings")
    tolerance = 0.0
    if kind == "number":
        if not _finite(v):
            raise CheckError("'check.number' must be a finite number")
        tolerance = value.get("tolerance", 0.0)
        if not _finite(tolerance) or tolerance < 0:
            raise CheckError("'check.tolerance' must be a number of 0 or more")
    return Check(kind, tuple(v) if kind == "contains" else v, float(tolerance), on)


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _check_schema(schema: Any) -> None:
    import jsonschema

    if not isinstance(schema, dict):
        raise CheckError("'check.json_schema' must be a JSON schema object")
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        raise CheckError(f"'check.json_schema' is not a valid schema ({exc.message[:120]})") from None
