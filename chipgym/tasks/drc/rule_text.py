"""What an agent reads of a DRC task, and reading it back: the ``rule`` and ``layers`` observations
(:func:`rule_text`, :func:`layers_text`), their categories and layers (:func:`rules_in`, :func:`layers_in`),
the lengths and areas a rule states (:func:`rule_numbers`) and the layers it names (:func:`named_layers`):
one place for the env, the template policies, Best-of-N selection and the scripted agent."""

from __future__ import annotations

import re
from typing import Sequence

from chipgym.tasks.drc.task import DrcTaskView


def rule_text(task: DrcTaskView) -> str:
    """The ``rule`` observation of a task: its title, description and output categories."""
    return "\n".join([task.title, "", task.description, "", "Output one category per rule:"]
                     + [f"- {category}: {text}" for text, category in task.rules])


def layers_text(task: DrcTaskView) -> str:
    """The ``layers`` observation of a task: one ``name: layer/datatype`` line per layer."""
    return "\n".join(f"{name}: {layer}/{datatype}" for name, (layer, datatype) in task.layers.items())


def rules_in(rule: str) -> list[tuple[str, str]]:
    """The (category, sentence) pairs of a ``rule`` observation (:func:`rule_text`), in order.

    >>> rules_in("Met1\\n\\nOutput one category per rule:\\n- m1.1: met1 width >= 0.14 um")
    [('m1.1', 'met1 width >= 0.14 um')]
    """
    return re.findall(r"^- (\S+): (.*)$", rule, flags=re.MULTILINE)


def layers_in(layers: str) -> dict[str, tuple[int, int]]:
    """The named layers of a ``layers`` observation (:func:`layers_text`).

    >>> layers_in("met1: 68/20\\nvia: 68/44")
    {'met1': (68, 20), 'via': (68, 44)}
    """
    return {name: (int(layer), int(datatype))
            for name, layer, datatype in re.findall(r"^(\S+): (\d+)/(\d+)$", layers, flags=re.MULTILINE)}


# a number, then (not consumed, so that both numbers of "0.3 x 0.4 um" are found) a unit, maybe after "x N"
_LENGTH = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?=\s*(?:(?:x|×)\s*\d+(?:\.\d+)?\s*)?(um|µm|μm|nm)(?![a-zA-Z]))")


def rule_numbers(text: str) -> list[float]:
    """The lengths and areas of a rule text, in um or um2, in order of first mention, each once: numbers
    with a unit (``0.14 um``, ``0.3 x 0.3 µm``, ``0.05 um²``; nm become um); counts, ratios and angles are not.

    >>> rule_numbers("m1.2: Minimum met1 spacing is 0.14 um, 2 vias, and 0.14 µm again; area 0.083 um², 50 nm")
    [0.14, 0.083, 0.05]
    """
    found = [float(value) / (1000 if unit == "nm" else 1) for value, unit in _LENGTH.findall(text)]
    return list(dict.fromkeys(round(value, 6) for value in found))


def named_layers(text: str, names: Sequence[str]) -> list[int]:
    """Indices of the layer ``names`` that start a word of ``text`` ("diff" in "diffusion", but not "via" in
    "via2"), in order of first mention.

    >>> named_layers("via2 must be inside met3; diffusion too", ["diff", "met3", "via", "via2"])
    [3, 1, 0]
    """
    lowered = text.lower()
    found = sorted((match.start(), i) for i, name in enumerate(names)
                   if name and (match := re.search(rf"(?<![\w.]){re.escape(name.lower())}(?!\d)", lowered)))
    return [i for _, i in found]
