"""Vendors' fast modes as editable tier presets: the fast tier and the standard tier it is priced against, with the
model, the API, the body fields and headers (never a secret: a key comes from the environment variable named), the
list prices with the date they were read and their source, and the SLA where the vendor publishes one.

The presets are resources/vendor_presets.json, read through the one validator. Their prices are never presented as
current: every tier a preset adds says in its `price_source` when and where the prices were read, and that text
is shown wherever the tier's cost is (the window, `compare`, the report, the brief).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from model.workbook.json_file import RESOURCES
from model.workbook.row_edits import unique_name
from model.workbook.rows import Tier, Workbook
from model.workbook.validation import SPECS, ValidationError, check_workbook, parse_field

PRESETS_FILE = RESOURCES / "vendor_presets.json"


@dataclass(frozen=True)
class VendorPreset:
    name: str
    as_of: str  # the date the prices and SLA were read (ISO)
    source: str  # where they were read
    about: str  # what the prices cover (bands, what fast mode excludes), in a sentence
    tiers: tuple[Tier, ...]  # the standard tier first, then the fast tier priced against it

    def price_source(self) -> str:
        return f"list prices as read {self.as_of} from {self.source}; not current, check them"


def _tier(values: dict[str, Any], preset: str, price_source: str) -> Tier:
    if not isinstance(values, dict):
        raise ValidationError(f"vendor preset {preset!r}: a tier must be an object")
    fields: dict[str, Any] = {}
    for key, value in values.items():
        if key not in SPECS[Tier]:
            raise ValidationError(f"vendor preset {preset!r}: unknown tier field {key!r}")
        fields[key] = parse_field(Tier, key, value, str(values.get("name", "")))
    fields["price_source"] = price_source
    return Tier(**fields)


def presets_from_dict(data: Any) -> list[VendorPreset]:
    """The presets a file holds, every tier field through the validator; ValidationError names what is wrong."""
    if not isinstance(data, dict) or data.get("format") != "specledger-vendor-presets" or not isinstance(
            data.get("presets"), list):
        raise ValidationError("not a SpecLedger vendor presets file")
    out = []
    for item in data["presets"]:
        name, as_of, source, about = (str(item.get(k, "")).strip() if isinstance(item, dict) else "" for k in
                                      ("name", "as_of", "source", "about"))
        if not (name and as_of and source) or not isinstance(item.get("tiers"), list):
            raise ValidationError("a vendor preset needs a name, the date its prices were read (as_of), its source "
                                  "and its tiers")
        preset = VendorPreset(name, as_of, source, about, ())
        tiers = tuple(_tier(values, name, preset.price_source()) for values in item["tiers"])
        check_workbook(Workbook(tiers=list(tiers)), f"vendor preset {name!r}")
        out.append(VendorPreset(name, as_of, source, about, tiers))
    return out


def load_vendor_presets(path: Path = PRESETS_FILE) -> list[VendorPreset]:
    return presets_from_dict(json.loads(path.read_text(encoding="utf-8")))


def add_preset(workbook: Workbook, preset: VendorPreset) -> list[str]:
    """Append the preset's tiers to ``workbook`` (one edit), renamed where a name is taken and their baselines
    following; returns the names they were added under. Every field stays editable: a preset is a starting point."""
    taken = [t.name for t in workbook.tiers]
    renamed: dict[str, str] = {}
    added = []
    for template in preset.tiers:
        tier = Tier(**{name: getattr(template, name) for name in SPECS[Tier]})  # a fresh identity per use
        tier.name = unique_name(template.name, taken)
        renamed[template.name] = tier.name
        taken.append(tier.name)
        added.append(tier)
    for tier in added:
        tier.baseline = renamed.get(tier.baseline, tier.baseline)
    workbook.tiers.extend(added)
    return [t.name for t in added]
