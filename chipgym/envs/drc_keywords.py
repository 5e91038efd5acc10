"""The scripted agent of ``chipgym/DrcScript-v0`` (``chipgym eval --agent scripted``), which needs no model:
keyword rules turn each rule sentence into a DSL check. For each rule it reads the layers named in the sentence,
the first number, and keywords (width, spacing, enclose, area, hole, notch, inside, overlap, extend) and writes
one check; where a rule reads two ways it writes both candidates, runs each on the public examples, and submits
the first that matches them all. It knows nothing of chained or unusual rules: a floor for simple rules, not a
ceiling.

>>> checks_for("met1 width must be at least 0.14 um", ["met1"])
['met1.width(0.14)', 'met1.width(0.14, projection)']
"""

from __future__ import annotations

import itertools
import re

from chipgym.envs import drc_actions
from chipgym.envs.base import Plan
from chipgym.tasks.drc.rule_text import layers_in, rules_in

NUMBER = re.compile(r"(\d+(?:\.\d+)?)\s*(?:um|µm)")
MAX_CANDIDATES = 16  # decks tried on the public examples


def checks_for(sentence: str, layers: list[str]) -> list[str]:
    """Candidate DSL expressions (without .output) for one rule sentence; empty when it cannot tell."""
    text = sentence.lower()
    named = sorted((text.find(name.lower()), name) for name in layers if name.lower() in text)
    names = [name for _, name in named]
    match = NUMBER.search(sentence)
    value = float(match.group(1)) if match else None
    if not names:
        return []
    a, b = names[0], names[1] if len(names) > 1 else names[0]
    if "hole" in text and value is not None:
        return [f"{a}.holes.with_area(nil, {value})"]
    if "area" in text and value is not None:
        return [f"{a}.with_area(nil, {value})"]
    if "notch" in text and value is not None:
        return [f"{a}.notch({value})"]
    if "enclos" in text and value is not None:
        inner, outer = (b, a) if re.search(rf"{re.escape(a.lower())}\s+(must|shall)\s+enclose", text) else (a, b)
        return [f"{inner}.enclosed({outer}, {value})", f"{outer}.enclosing({inner}, {value})"]
    if ("extend" in text or "extension" in text) and value is not None:
        return [f"{a}.enclosing({b}, {value}, projection)", f"{a}.sized(0).enclosing({b}, {value})"]
    if "overlap" in text and value is not None:
        return [f"{a}.overlap({b}, {value})", f"{b}.overlap({a}, {value})"]
    if "inside" in text or "covered" in text or "outside" in text:
        return [f"{a}.not_inside({b})", f"({a} - {b})"]
    if "overlap" in text or "touch" in text or "interact" in text:
        return [f"{a}.not_interacting({b})"]
    if value is None:
        return []
    if any(word in text for word in ("spac", "apart", "distance")):
        if a != b:
            return [f"{a}.separation({b}, {value})", f"{a}.separation({b}, {value}, projection)"]
        return [f"{a}.space({value})", f"{a}.space({value}, projection)"]
    if "wid" in text:
        return [f"{a}.width({value})", f"{a}.width({value}, projection)"]
    return []


def candidate_decks(observation: dict) -> list[str]:
    """Every combination of the candidates of each rule, as complete decks (at most MAX_CANDIDATES)."""
    rules, layers = rules_in(observation["rule"]), layers_in(observation["layers"])
    prelude = ["source($input)", 'report("scripted", $output)']
    prelude += [f"{name} = input({layer}, {datatype})" for name, (layer, datatype) in layers.items()]
    options = []
    for category, text in rules:
        checks = checks_for(text, list(layers)) or ["polygons.dup"]
        options.append([f'{check}.output("{category}", "scripted")' for check in checks])
    return ["\n".join(prelude + list(combo)) + "\n"
            for combo in itertools.islice(itertools.product(*options), MAX_CANDIDATES)]


def keyword_plan(observation: dict[str, str]) -> Plan:
    """Runs each candidate deck on the public examples and submits the first that matches them all (else the
    first candidate)."""
    decks = candidate_decks(observation)
    chosen = decks[0]
    for deck in decks:
        yield drc_actions.write(deck)
        info = yield drc_actions.run()
        if info.get("run", {}).get("layouts_matched") == 1.0:
            chosen = deck
            break
    yield drc_actions.write(chosen)
    yield drc_actions.submit()
