"""``chipgym doctor``: every external tool, its version, and how to install what is missing."""

from __future__ import annotations

import importlib.metadata
import tempfile
from pathlib import Path

from chipgym.engines import cgroup
from chipgym.engines.versions import TOOLS, tool_version
from chipgym.errors import InfrastructureError
from chipgym.scoring.profile import PROFILES, load_profile

PYTHON_MODULES = ("gymnasium", "numpy", "gdstk", "klayout", "pyyaml", "tqdm")


def sandbox_check() -> str | None:
    """Runs a tiny deck in a real sandboxed worker; None when it works, else what went wrong."""
    import gdstk

    from chipgym.engines.klayout import DrcPool

    deck = 'source($input)\nreport("doctor", $output)\ninput(1, 0).width(0.5).output("w", "width < 0.5 um")'
    with tempfile.TemporaryDirectory() as folder:
        layout = Path(folder) / "doctor.gds"
        library = gdstk.Library()
        library.new_cell("TOP").add(gdstk.rectangle((0, 0), (0.2, 1), layer=1))
        library.write_gds(layout)
        try:
            with DrcPool(workers=1) as pool:
                [result] = pool.run(deck, [layout])
        except InfrastructureError as error:
            return str(error)
    if result.counts != {"w": 1}:
        return f"the test deck gave {result.status.value} {result.counts} {result.error}"
    return None


def run(args) -> int:
    healthy = True
    for tool in TOOLS.values():
        version = tool_version(tool.name)
        healthy &= version is not None or not tool.required
        shown = version or f"MISSING: {tool.install}"
        print(f"{tool.command:10} {shown:45} ({tool.needed_for})")
    for profile in sorted(PROFILES):
        try:
            load_profile(profile).require_files()
            shown = "installed"
        except InfrastructureError as error:
            shown = f"MISSING: {error}"
        print(f"{profile:10} {shown:45} (the {profile} scoring profile's cell library)")
    for module in PYTHON_MODULES:
        try:
            version = importlib.metadata.version(module)
        except importlib.metadata.PackageNotFoundError:
            version, healthy = None, False
        print(f"{module:10} {version or 'MISSING: pip install ' + module}")
    if healthy:
        problem = sandbox_check()
        print(f"{'sandbox':10} {problem or 'a deck ran in a sandboxed KLayout worker'}")
        healthy = problem is None
    no_group = cgroup.available()
    print(f"{'cgroups':10} " + (f"none: {no_group}; sandboxes keep per-process limits only" if no_group
                                else "each sandbox's memory and processes are capped in total"))
    print("all good" if healthy else "some tools are missing or broken: see above")
    return 0 if healthy else 1


def add_commands(commands) -> None:
    parser = commands.add_parser("doctor", help="check the external tools and the sandbox")
    parser.set_defaults(handler=run)
