"""Synthetic training text for the demo draft/target pair, built without a network.

Each task class gets its own generator. The predictable classes (code, json,
extraction) are built from a few fixed idioms, schemas and copy patterns, so a
small model can learn to continue them almost exactly; the open classes (prose,
creative) draw every content word from large lists, so no model, however large,
can guess the next word well. The acceptance gap the demo shows comes from this
difference in predictability, not from anything in the sampler.
"""
from __future__ import annotations

import random

EOS = "<|endoftext|>"

_NAMES = ["items", "values", "rows", "records", "lines", "users", "orders", "events", "tokens", "paths"]
_FUNCS = ["load", "parse", "filter", "collect", "merge", "count", "clean", "index", "group", "flatten"]
_FIRST = ["Alice", "Bruno", "Chen", "Dana", "Elif", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kira", "Luca"]
_LAST = ["Moreau", "Silva", "Wang", "Novak", "Kaya", "Haddad", "Okafor", "Berg", "Costa", "Meyer", "Sato", "Rossi"]
_CITIES = ["Lyon", "Porto", "Osaka", "Krakow", "Izmir", "Tunis", "Lagos", "Bergen", "Quito", "Leeds"]
_TEAMS = ["billing", "search", "platform", "mobile", "security", "data", "support", "design"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
_ACTIONS = ["ship the new release", "fix the login bug", "cut cloud costs", "hire two engineers",
            "rewrite the importer", "update the docs", "close the audit", "migrate the database"]
_TOPICS = ["the roadmap", "the outage", "the budget", "the hiring plan", "customer churn", "the launch"]

# Content words for the open classes: many, evenly likely, so the next word is a guess.
_ADJ = ("quiet bright old silver hollow gentle bitter restless narrow golden distant pale wild crooked "
        "humble tender frozen velvet hidden broken patient sudden amber crimson weary stubborn idle "
        "careless hungry lonely brave clever dusty faint fierce grim hasty loyal modest noble proud").split()
_NOUN = ("river window garden stranger lantern harbor mountain letter kitchen village forest bridge "
         "mirror engine island candle station orchard ladder meadow compass shadow traveler sailor "
         "teacher merchant painter widow soldier farmer clock violin market tower valley storm "
         "feather anchor chapel cellar blanket harvest wagon").split()
_VERB = ("watched carried followed remembered painted crossed forgot built opened answered found "
         "waited praised buried lifted mended traded burned counted chased welcomed guarded").split()
_PREP = "near beyond under behind across beside toward through".split()
_ADV = "slowly softly suddenly quietly gladly barely always never often rarely".split()


def _code(r: random.Random) -> str:
    parts = []
    for _ in range(r.randint(3, 5)):
        fn, arg = r.choice(_FUNCS), r.choice(_NAMES)
        kind = r.randrange(4)
        if kind == 0:
            parts.append(f"def {fn}_{arg}({arg}):\n    result = []\n    for item in {arg}:\n"
                         f"        if item is not None:\n            result.append(item)\n    return result\n")
        elif kind == 1:
            parts.append(f"def {fn}_{arg}(path):\n    with open(path, \"r\", encoding=\"utf-8\") as f:\n"
                         f"        {arg} = [line.strip() for line in f]\n    return {arg}\n")
        elif kind == 2:
            cls = fn.capitalize() + arg.capitalize()
            parts.append(f"class {cls}:\n    def __init__(self, {arg}):\n        self.{arg} = {arg}\n\n"
                         f"    def __len__(self):\n        return len(self.{arg})\n")
        else:
            parts.append(f"def {fn}_{arg}({arg}):\n    counts = {{}}\n    for key in {arg}:\n"
                         f"        counts[key] = counts.get(key, 0) + 1\n    return counts\n")
    parts.append("if __name__ == \"__main__\":\n    main()\n")
    return "\n".join(parts)


def _json(r: random.Random) -> str:
    recs = []
    for _ in range(r.randint(2, 4)):
        first, last = r.choice(_FIRST), r.choice(_LAST)
        recs.append(
            "  {\n"
            f"    \"id\": {r.randint(100, 999)},\n"
            f"    \"name\": \"{first} {last}\",\n"
            f"    \"email\": \"{first.lower()}.{last.lower()}@example.com\",\n"
            f"    \"city\": \"{r.choice(_CITIES)}\",\n"
            f"    \"active\": {r.choice(['true', 'false'])}\n"
            "  }")
    return "[\n" + ",\n".join(recs) + "\n]\n"


def _extraction(r: random.Random) -> str:
    out = []
    for _ in range(r.randint(2, 3)):
        author = f"{r.choice(_LAST)}, {r.choice(_FIRST)[0]}."
        year, page = r.randint(1990, 2023), r.randint(2, 300)
        quote = f"The {r.choice(_TEAMS)} results in {r.choice(_CITIES)} were {r.choice(['stable', 'mixed', 'strong', 'weak'])}"
        out.append(f"Source: \"{quote}\" ({author} {year}, p. {page}).\n"
                   f"Exact citation: \"{quote}\" ({author} {year}, p. {page}).\n")
    return "\n".join(out)


def _summarisation(r: random.Random) -> str:
    # several reports per document, so generation goes on past the first summary
    return "\n".join(_report(r) for _ in range(r.randint(2, 4)))


def _report(r: random.Random) -> str:
    team, day, action, topic = r.choice(_TEAMS), r.choice(_DAYS), r.choice(_ACTIONS), r.choice(_TOPICS)
    filler = (f"The meeting was held in {r.choice(_CITIES)} and {r.choice(_FIRST)} "
              f"{r.choice(['took notes', 'led it', 'joined late', 'asked questions'])}.")
    return (f"Report: The {team} team met on {day} to discuss {topic}. {filler} "
            f"After a long debate they agreed to {action} within {r.randint(2, 9)} weeks.\n"
            f"Summary: On {day}, the {team} team agreed to {action}.\n")


def _zipf(n: int, exponent: float) -> list[float]:
    return [1.0 / (rank + 1) ** exponent for rank in range(n)]


def _affinity(keys: list[str], values: list[str], seed: int) -> dict[str, list[str]]:
    """For each key a fixed ranking of the values: which word tends to follow which."""
    r = random.Random(seed)
    return {k: r.sample(values, len(values)) for k in keys}


# Word choice in the open classes depends on context through fixed random rankings
# with long Zipf tails: no single next word is likely, and following the context
# takes capacity. A large model learns more of these rankings than a small one, so
# their distributions drift apart here, as a real draft's do on open-ended text.
_NOUN_VERB = _affinity(_NOUN, _VERB, 101)
_VERB_NOUN = _affinity(_VERB, _NOUN, 102)
_NOUN_ADJ = _affinity(_NOUN, _ADJ, 103)
_THEMES = [random.Random(200 + t).sample(_ADJ + _NOUN + _VERB + _ADV, 60) for t in range(16)]
_SOFT = 0.8


def _after(r: random.Random, ranking: list[str]) -> str:
    return r.choices(ranking, weights=_zipf(len(ranking), _SOFT))[0]


def _prose(r: random.Random) -> str:
    sentences = []
    for _ in range(r.randint(5, 8)):
        subject, obj, place = r.choice(_NOUN), None, r.choice(_NOUN)
        verb = _after(r, _NOUN_VERB[subject])
        obj = _after(r, _VERB_NOUN[verb])
        sentences.append(f"The {_after(r, _NOUN_ADJ[subject])} {subject} {verb} the {obj} "
                         f"{r.choice(_PREP)} the {_after(r, _NOUN_ADJ[place])} {place}.")
    return " ".join(sentences) + "\n"


def _creative(r: random.Random) -> str:
    # each poem keeps to one theme's words; which theme is only visible from the lines so far
    theme = r.choice(_THEMES)
    weights = _zipf(len(theme), _SOFT)
    lines = []
    for _ in range(r.randint(14, 22)):
        words = r.choices(theme, weights=weights, k=r.randint(3, 6))
        lines.append(" ".join(words) + r.choice([",", ";", "", ".", " -"]))
    return "\n".join(lines) + "\n"


GENERATORS = {"code": _code, "json": _json, "extraction": _extraction,
              "summarisation": _summarisation, "prose": _prose, "creative": _creative}


def build_corpus(docs_per_class: int, seed: int = 0) -> dict[str, list[str]]:
    """Documents per task class, reproducible from the seed."""
    r = random.Random(seed)
    return {name: [gen(r) for _ in range(docs_per_class)] for name, gen in GENERATORS.items()}


# Where each prompt stops inside a held-out document: a prefix that sets up the class.
_PROMPT_CUTS = {"code": 70, "json": 70, "prose": 60, "creative": 50}
_PROMPT_MARKERS = {"extraction": "Exact citation:", "summarisation": "Summary:"}


def build_prompts(per_class: int, seed: int = 12345) -> list[dict[str, str]]:
    """Prompts cut from held-out documents (a seed the training corpus never uses)."""
    r = random.Random(seed)
    rows = []
    for name, gen in GENERATORS.items():
        for _ in range(per_class):
            doc = gen(r)
            marker = _PROMPT_MARKERS.get(name)
            if marker is not None:
                # the continuation is the copy or the summary: the class's point
                cut = doc.index(marker) + len(marker)
            else:
                # end on a word, just before a space: a prompt ending in a newline or in
                # indentation splits a BPE token the models only ever saw whole
                limit = _PROMPT_CUTS[name]
                cut = next((i for i in range(min(limit, len(doc) - 1), 20, -1)
                            if doc[i] == " " and not doc[i - 1].isspace()), limit)
            rows.append({"task_class": name, "prompt": doc[:cut]})
    return rows


def write_prompts(path: str, per_class: int = 8) -> None:
    import json

    with open(path, "w", encoding="utf-8") as f:
        for row in build_prompts(per_class):
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    # rewrite the demo prompts alone (no torch needed): python scripts/demo_corpus.py OUT.jsonl
    import sys

    write_prompts(sys.argv[1] if len(sys.argv) > 1 else "resources/prompts/demo.jsonl")
