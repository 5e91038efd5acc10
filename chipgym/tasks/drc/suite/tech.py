"""A drawn technology for one multi-constraint task: layer names, GDS numbers and consistent thresholds.

Thresholds are integer nm drawn so that rules of one task agree with each other (wide-metal
spacing > minimum spacing, end-of-line enclosure > enclosure, array via spacing > via spacing, ...).
The ranges also keep the drc-v0 kinds reused in drc-v1 consistent (their own spacings start at 100 nm).

>>> import random
>>> t = draw_tech(random.Random(0))
>>> t.nm["wide_s"] > t.nm["m_s"], t.nm["arr_d"] >= t.nm["arr_s"] > t.nm["v_s"]
(True, True)
>>> sorted(t.gds)[:2] == sorted(t.gds)[:2] and len(set(t.gds.values())) == len(t.gds)
True
"""
from __future__ import annotations

import random
from dataclasses import dataclass

ROLE_NAMES: dict[str, tuple[str, ...]] = {
    "diff": ("od", "rx", "aa"), "poly": ("po", "pc", "gc"), "cut": ("co", "ct"), "well": ("nw", "nwel"),
    "nimp": ("np", "sn"), "pimp": ("pp", "sp"), "cutpoly": ("cpo", "pcut"), "hv": ("od2", "thkox", "hvmk"),
    "marker": ("rmk", "mkr", "dmk", "exclmk"),
}
"""Foundry-style names per role; metals and vias are drawn as a level pair (m1/v1/m2, m2/v2/m3, ...)."""


@dataclass(frozen=True)
class Tech:
    """Layer names by role, GDS (layer, datatype) by name, thresholds in nm (areas in nm²) by key."""

    ly: dict[str, str]
    gds: dict[str, tuple[int, int]]
    nm: dict[str, int]

    def um(self, key: str) -> float:
        """A length threshold in um."""
        return self.nm[key] / 1000

    def um2(self, key: str) -> float:
        """An area threshold in um²."""
        return self.nm[key] / 1e6


def _step(rng: random.Random, lo: int, hi: int, step: int = 5) -> int:
    return rng.randrange(lo, hi + 1, step)


def draw_thresholds(rng: random.Random) -> dict[str, int]:
    """Every threshold a synthetic kind may read, drawn once per task with the relations kept."""
    v: dict[str, int] = {}
    v["m_w"], v["m_s"] = _step(rng, 40, 100), _step(rng, 40, 95)
    v["wide_w"], v["wide_s"] = _step(rng, 300, 900, 10), v["m_s"] + _step(rng, 30, 150)
    v["big_a"], v["big_s"] = _step(rng, 200_000, 800_000, 50_000), v["m_s"] + _step(rng, 20, 120)
    v["proj_s"] = v["m_s"] + _step(rng, 10, 60)
    v["area"], v["hole"] = _step(rng, 10_000, 60_000, 5_000), _step(rng, 50_000, 300_000, 10_000)
    v["notch"], v["jog"] = v["m_s"] + _step(rng, 0, 40), _step(rng, 10, v["m_w"] - 10)
    v["mk_w"], v["mk_s"] = v["m_w"] + _step(rng, 10, 60), v["m_s"] + _step(rng, 10, 80)
    v["v_w"] = _step(rng, 40, 100, 10)
    v["v_s"] = v["v_w"] + _step(rng, 0, 40)
    v["arr_n"] = rng.choice((3, 4))
    v["arr_s"] = v["v_s"] + _step(rng, 10, 30)
    v["arr_d"] = v["arr_s"] + _step(rng, 20, 80, 10) + v["arr_s"] % 2
    v["enc"] = _step(rng, 5, 20)
    v["enc_side"] = v["enc"] + _step(rng, 15, 60)
    v["enc_up"], v["vv_s"], v["v_cc"] = _step(rng, 5, 40), _step(rng, 30, 100), _step(rng, 40, 150, 10)
    v["p_s"] = _step(rng, 60, 150)
    v["g_s"], v["endcap"], v["od_ext"] = v["p_s"] + _step(rng, 20, 80), _step(rng, 40, 150), _step(rng, 60, 200)
    v["co_w"] = _step(rng, 40, 80, 10)
    v["co_s"], v["co_g"] = v["co_w"] + _step(rng, 10, 40), _step(rng, 20, 80)
    v["co_od"], v["co_po"] = _step(rng, 5, 30), _step(rng, 5, 30)
    v["imp_enc"], v["nw_w"], v["nw_s"] = _step(rng, 50, 200), _step(rng, 300, 800, 10), _step(rng, 300, 1000, 10)
    v["fpo_s"], v["cpo_s"], v["cpo_ov"] = _step(rng, 20, 80), _step(rng, 30, 120), _step(rng, 20, 100)
    v["hv_l"], v["hv_co"] = _step(rng, 200, 500, 10), v["co_g"] + _step(rng, 10, 50)
    v["od_a"] = _step(rng, 20_000, 100_000, 5_000)
    return v


def draw_tech(rng: random.Random) -> Tech:
    """Layer names (a metal level, its via and the metal above), distinct GDS numbers, thresholds."""
    level = rng.randint(1, 5)
    ly = {role: rng.choice(names) for role, names in ROLE_NAMES.items()}
    ly |= {"metal": f"m{level}", "via": f"v{level}", "metal2": f"m{level + 1}", "via2": f"v{level + 1}"}
    numbers = rng.sample(range(1, 256), len(ly))
    gds = {name: (num, rng.choice((0, 0, 0, 1, 20, 44))) for name, num in zip(ly.values(), numbers)}
    return Tech(ly, gds, draw_thresholds(rng))
