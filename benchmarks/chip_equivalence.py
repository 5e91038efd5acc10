"""The equivalence proof's verdict and wall time on every fixture of every chip task, per profile.

    .venv/bin/python benchmarks/chip_equivalence.py [--profiles osu018 asap7]

Everything runs in a fresh ``$CHIPGYM_CACHE``: synthesis, then the proof, cold; the profile's merged and
rewritten liberty is made before the first proof is timed. ASAP7 needs ``chipgym pdk install asap7`` (or
``$CHIPGYM_PDK_HOME`` pointing at an installed copy).
"""
from __future__ import annotations

import argparse
import os
import tempfile

from chipgym.scoring.equivalence import check_equivalence, equivalence_liberty
from chipgym.scoring.pdk import installed_pdks
from chipgym.scoring.profile import load_profile
from chipgym.scoring.synthesis import synthesize
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.registry import load_task, task_names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", nargs="+", default=["osu018", "asap7"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chipgym-equivalence-bench-") as cache:
        os.environ["CHIPGYM_CACHE"] = cache
        prove_every_fixture(args.profiles)


def prove_every_fixture(profiles: list[str]) -> None:
    print("task\tfixture\tprofile\tproven\tseconds\tdetail")
    for profile_name in profiles:
        if profile_name != "osu018" and profile_name not in installed_pdks():
            print(f"# {profile_name}: not installed (chipgym pdk install {profile_name})")
            continue
        profile = load_profile(profile_name)
        equivalence_liberty(profile)
        for name in task_names():
            task = load_task(name)
            for fixture, folder in task.fixtures.items():
                netlist = synthesize(load_design(folder, profile_name), profile, task.simulation_ports)
                result = check_equivalence(netlist, profile)
                print(f"{name}\t{fixture}\t{profile_name}\t{result.proven}\t{result.seconds:.1f}\t{result.detail}",
                      flush=True)


if __name__ == "__main__":
    main()
