"""The drc-v1 synthetic group: multi-constraint tasks of 2-5 interacting advanced-node rules.

Every task draws one :class:`~chipgym.tasks.drc.suite.tech.Tech` (layer names, GDS numbers and thresholds
that agree with each other) and a few kinds from one domain (metal, via or front-end); kinds come from
:mod:`~chipgym.tasks.drc.suite.beol`, :mod:`~chipgym.tasks.drc.suite.feol`, the drc-v0 synthetic group
and the classic checks.  Rule texts are numbered like a design manual and rendered as prose, a numbered
list or a "Rule | Description" table.

>>> import random
>>> drafts = synthetic_v1_drafts(random.Random(0), tasks=6)
>>> [len(d.rules) >= 2 for d in drafts], drafts[0].id
([True, True, True, True, True, True], 'synthetic-0000')
"""
from __future__ import annotations

import dataclasses
import random
from typing import Callable

from chipgym.tasks.drc.suite import beol, checks, feol, synthetic
from chipgym.tasks.drc.suite.rule import Rule, TaskDraft
from chipgym.tasks.drc.suite.tech import Tech, draw_tech

Kind = Callable[[random.Random, str, Tech], Rule]

COMPACT_DROP = ("_gt", "_hier", "_split")
"""Scene-name fragments dropped from reused probe families (the lt/eq pairs already decide every mutant)."""


MIN_SCENES = 6


def compact(rule: Rule) -> Rule:
    """The rule without the redundant just-above, hierarchy and split variants of its scenes (unless fewer
    than :data:`MIN_SCENES` would be left)."""
    keep = tuple(s for s in rule.scenes if not any(f in s.name for f in COMPACT_DROP))
    return dataclasses.replace(rule, scenes=keep) if len(keep) >= MIN_SCENES else rule


def v0_kind(kind: synthetic.Kind) -> Kind:
    """A drc-v0 synthetic kind (it draws its own thresholds) on the task's layer names."""
    return lambda rng, cat, t: compact(kind(rng, cat, t.ly))


def check_kind(make: Callable[..., Rule], roles: tuple[str, ...], keys: tuple[str, ...], **extra: object) -> Kind:
    """A classic check of :mod:`checks` on the layers of ``roles`` with the thresholds at ``keys``."""
    def kind(rng: random.Random, cat: str, t: Tech) -> Rule:
        values = [t.um2(k) if k in AREA_KEYS else t.um(k) for k in keys]
        return compact(make(rng, cat, *(t.ly[r] for r in roles), *values, **extra))
    return kind


AREA_KEYS = frozenset({"area", "hole", "od_a"})


def hv_contact_poly(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Contact to poly spacing for contacts inside the thick-oxide marker."""
    return compact(checks.separation_rule(rng, cat, t.ly["cut"], t.ly["poly"], t.um("hv_co"), "inside", t.ly["hv"],
                                          a_text=f"{t.ly['cut']} inside {t.ly['hv']}"))

KINDS: dict[str, tuple[Kind, str, str]] = {
    # metal: (kind, layer role of the rule name, rule code)
    "m_width": (check_kind(checks.width_rule, ("metal",), ("m_w",)), "metal", "W"),
    "m_space": (check_kind(checks.space_rule, ("metal",), ("m_s",)), "metal", "S"),
    "m_area": (check_kind(checks.area_rule, ("metal",), ("area",), width=0.1), "metal", "A"),
    "m_hole": (check_kind(checks.hole_rule, ("metal",), ("hole",)), "metal", "EA"),
    "m_notch": (check_kind(checks.notch_rule, ("metal",), ("notch",)), "metal", "N"),
    "m_wide": (beol.wide_metal_space, "metal", "S"),
    "m_iso": (beol.isolated_space, "metal", "S"),
    "m_plate": (beol.large_plate_space, "metal", "S"),
    "m_facing": (beol.projection_space, "metal", "S"),
    "m_jog": (beol.jog_length, "metal", "J"),
    "m_mk_width": (beol.marker_width, "metal", "W"),
    "m_mk_space": (beol.marker_space, "metal", "S"),
    "m_bbox_wide": (v0_kind(synthetic.wide_space), "metal", "S"),
    "m_eol": (v0_kind(synthetic.eol_space), "metal", "EOL"),
    "m_run": (v0_kind(synthetic.run_length_space), "metal", "PRL"),
    "m_via_hole": (v0_kind(synthetic.small_hole), "metal", "EA"),
    "m_float": (v0_kind(synthetic.floating_area), "metal", "A"),
    "m_near_via": (v0_kind(synthetic.via_proximity_width), "metal", "W"),
    # vias
    "v_size": (check_kind(checks.exact_rule, ("via",), ("v_w",)), "via", "W"),
    "v_space": (check_kind(checks.space_rule, ("via",), ("v_s",)), "via", "S"),
    "v_enc": (check_kind(checks.enclosure_rule, ("via", "metal"), ("enc",), size=0.1, whole=True), "via", "EN"),
    "v_enc_up": (check_kind(checks.enclosure_rule, ("via", "metal2"), ("enc_up",), size=0.1, whole=True), "via", "EN"),
    "v_covered": (check_kind(checks.inside_rule, ("via", "metal"), ()), "via", "C"),
    "v_stack": (check_kind(checks.separation_rule, ("via2", "via"), ("vv_s",)), "via2", "S"),
    "v_array": (beol.via_array_space, "via", "S"),
    "v_sides": (beol.via_side_enclosure, "via", "EN"),
    "v_corner": (beol.via_concave_corner, "via", "CC"),
    "v_redundant": (v0_kind(synthetic.redundant_via), "via", "R"),
    "v_eol_enc": (v0_kind(synthetic.eol_enclosure), "via", "EN"),
    # front end
    "p_space": (check_kind(checks.space_rule, ("poly",), ("p_s",)), "poly", "S"),
    "p_endcap": (check_kind(checks.extension_rule, ("poly", "diff"), ("endcap",)), "poly", "EX"),
    "od_ext": (check_kind(checks.extension_rule, ("diff", "poly"), ("od_ext",)), "diff", "EX"),
    "od_area": (check_kind(checks.area_rule, ("diff",), ("od_a",), width=0.1), "diff", "A"),
    "co_od": (check_kind(checks.enclosure_rule, ("cut", "diff"), ("co_od",), size=0.06), "cut", "EN"),
    "co_po": (check_kind(checks.enclosure_rule, ("cut", "poly"), ("co_po",), size=0.06), "cut", "EN"),
    "co_space": (check_kind(checks.space_rule, ("cut",), ("co_s",)), "cut", "S"),
    "co_size": (check_kind(checks.exact_rule, ("cut",), ("co_w",)), "cut", "W"),
    "np_enc": (check_kind(checks.enclosure_rule, ("diff", "nimp"), ("imp_enc",), size=0.3), "nimp", "EN"),
    "nw_width": (check_kind(checks.width_rule, ("well",), ("nw_w",)), "well", "W"),
    "nw_space": (check_kind(checks.space_rule, ("well",), ("nw_s",)), "well", "S"),
    "cpo_od": (check_kind(checks.separation_rule, ("cutpoly", "diff"), ("cpo_s",)), "cutpoly", "S"),
    "hv_co_po": (hv_contact_poly, "cut", "S"),
    "co_gate": (feol.contact_gate_space, "cut", "S"),
    "co_square": (feol.contact_square_space, "cut", "S"),
    "cpo_po": (check_kind(checks.overlap_rule, ("cutpoly", "poly"), ("cpo_ov",)), "cutpoly", "OV"),
    "gate_space": (feol.gate_space, "poly", "S"),
    "field_poly": (feol.field_poly_space, "poly", "S"),
    "hv_gate": (feol.hv_gate_length, "hv", "L"),
    "gate_length": (v0_kind(synthetic.gate_length), "poly", "L"),
    "co_on_gate": (v0_kind(synthetic.contact_on_gate), "cut", "G"),
    "nw_pdiff": (v0_kind(synthetic.implant_enclosure), "well", "EN"),
    "cpo_endcap": (v0_kind(synthetic.cut_poly_endcap), "cutpoly", "EX"),
    "implant": (v0_kind(synthetic.implant_coverage), "diff", "IMP"),
}
"""Every kind of the group by name, with the layer role and code its manual rule name is made of."""

DOMAINS: dict[str, tuple[str, ...]] = {
    "metal": tuple(k for k in KINDS if k.startswith("m_")),
    "via": tuple(k for k in KINDS if k.startswith("v_")) + ("m_width", "m_space", "m_eol", "m_near_via"),
    "feol": tuple(k for k in KINDS if not k.startswith(("m_", "v_"))),
}

EXCLUSIVE = ({"m_wide", "m_bbox_wide"}, {"m_space", "m_iso"}, {"co_space", "co_square"}, {"m_run", "m_facing"},
             {"m_hole", "m_via_hole"}, {"m_area", "m_float"}, {"p_endcap", "cpo_endcap"},
             {"v_enc", "v_eol_enc", "v_sides"}, {"v_size", "v_redundant"})
"""Kinds that state the same constraint with independently drawn values: never in one task."""

RULE_COUNTS = (2, 2, 2, 2, 3, 3, 3, 3, 4, 5)


def _fits(kinds: list[str], candidate: str) -> bool:
    return candidate not in kinds and not any(candidate in group and group & set(kinds) for group in EXCLUSIVE)


def pick_kinds(rng: random.Random, first: str) -> list[str]:
    """``first`` plus kinds of one of its domains (2-5 in all, no two exclusive ones), in random order."""
    domain = rng.choice([d for d, members in DOMAINS.items() if first in members])
    kinds, want = [first], rng.choice(RULE_COUNTS)
    for candidate in rng.sample(DOMAINS[domain], len(DOMAINS[domain])):
        if len(kinds) < want and _fits(kinds, candidate):
            kinds.append(candidate)
    rng.shuffle(kinds)
    return kinds


def manual_names(kinds: list[str], t: Tech) -> list[str]:
    """Manual-style rule names (``M2.S.1``, ``V2.EN.2``...), numbered per layer and code.

    >>> from chipgym.tasks.drc.suite.tech import draw_tech
    >>> manual_names(["m_width", "m_space", "m_wide"], draw_tech(random.Random(1)))
    ['M2.W.1', 'M2.S.1', 'M2.S.2']
    """
    names, seen = [], {}
    for k in kinds:
        _, role, code = KINDS[k]
        prefix = f"{t.ly[role].upper()}.{code}"
        seen[prefix] = seen.get(prefix, 0) + 1
        names.append(f"{prefix}.{seen[prefix]}")
    return names


STYLES = ("prose", "numbered", "table")
PROSE = ("{name}: {text}", "Rule {name}. {text}", "{text} ({name})")


def render(rng: random.Random, style: str, names: list[str], texts: list[str]) -> list[str]:
    """Rule texts in a manual layout: prose sentences, a numbered list or a two-column table.

    >>> render(random.Random(0), "table", ["M1.W.1", "M1.S.1"], ["Width is 1 um.", "Space is 1 um."])
    ['Rule | Description\\nM1.W.1 | Width is 1 um.\\n', 'M1.S.1 | Space is 1 um.\\n']
    """
    if style == "table":
        rows = [f"{n} | {x}\n" for n, x in zip(names, texts)]
        return ["Rule | Description\n" + rows[0]] + rows[1:]
    if style == "numbered":
        return [f"{i + 1}. {n} - {x}\n" for i, (n, x) in enumerate(zip(names, texts))]
    form = rng.choice(PROSE)
    return [form.format(name=n, text=x) for n, x in zip(names, texts)]


def draft_task(rng: random.Random, index: int, first: str) -> TaskDraft:
    """One multi-constraint task whose first kind is ``first``."""
    t = draw_tech(rng)
    kinds = pick_kinds(rng, first)
    names = manual_names(kinds, t)
    rules = [KINDS[k][0](rng, n.lower().replace(".", "_"), t) for k, n in zip(kinds, names)]
    style = rng.choice(STYLES)
    texts = render(rng, style, names, [r.text for r in rules])
    rules = [dataclasses.replace(r, text=x) for r, x in zip(rules, texts)]
    title = " + ".join(f"{n} {k.replace('_', ' ')}" for n, k in zip(names, kinds))
    return TaskDraft(f"synthetic-{index:04d}", title, "synthetic", "train", t.gds, tuple(rules),
                     {"kinds": kinds, "style": style})


def synthetic_v1_drafts(rng: random.Random, tasks: int = 510) -> list[TaskDraft]:
    """``tasks`` drafts; the first kind of task ``i`` cycles through :data:`KINDS` so each leads as often."""
    order = sorted(KINDS)
    return [draft_task(rng, i, order[i % len(order)]) for i in range(tasks)]
