"""``chipgym doctor``: every external tool, its version, and how to install what is missing; with
``--ray-address``, which nodes of a Ray cluster lack a tool."""

from __future__ import annotations

import importlib.metadata
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

from chipgym.engines import cgroup
from chipgym.engines.versions import TOOLS, tool_version
from chipgym.errors import InfrastructureError
from chipgym.scoring.profile import PROFILES, load_profile

PYTHON_MODULES = ("gymnasium", "numpy", "gdstk", "klayout", "pyyaml", "tqdm", "pyverilator-mm", "matplotlib")


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


@dataclass(frozen=True)
class Check:
    """One thing chipgym needs: what was found (a version, ``installed``) or None, and how to fix it."""

    name: str
    found: str | None
    fix: str
    needed_for: str
    required: bool = True


def checks() -> list[Check]:
    """The tools, the scoring profiles' cell libraries and the Python modules, as found on this machine."""
    found = [Check(t.command, tool_version(t.name), t.install, t.needed_for, t.required) for t in TOOLS.values()]
    for profile in sorted(PROFILES):
        try:
            load_profile(profile).require_files()
            found.append(Check(profile, "installed", "", f"the {profile} scoring profile's cell library"))
        except InfrastructureError as error:
            found.append(Check(profile, None, str(error), f"the {profile} scoring profile's cell library",
                               required=False))
    for module in PYTHON_MODULES:
        try:
            version = importlib.metadata.version(module)
        except importlib.metadata.PackageNotFoundError:
            version = None
        found.append(Check(module, version, f"pip install {module}", "Python"))
    return found


def missing_here() -> tuple[str, list[str]]:
    """This machine's host name and what it lacks of the required checks, each with its fix."""
    return socket.gethostname(), [f"{c.name} ({c.fix})" for c in checks() if c.found is None and c.required]


def cluster_report(address: str) -> dict[str, tuple[str, list[str]]]:
    """Per alive node of the Ray cluster at ``address`` (node id -> host, what it lacks), from a Ray task
    pinned to each node; a node where chipgym itself does not import lacks ``chipgym``."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    started = not ray.is_initialized()
    if started:
        ray.init(address=address, logging_level="ERROR", log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=0, max_retries=0)(missing_here)
        nodes = [node for node in ray.nodes() if node["Alive"]]
        pending = {node["NodeID"]: remote.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
            node["NodeID"], soft=False)).remote() for node in nodes}
        report = {}
        for node in nodes:
            try:
                report[node["NodeID"]] = ray.get(pending[node["NodeID"]], timeout=300)
            except (ray.exceptions.RayError, TimeoutError) as error:
                report[node["NodeID"]] = (node["NodeManagerAddress"], [f"chipgym ({type(error).__name__}: "
                                                                       f"install the package on this node)"])
        return report
    finally:
        if started:
            ray.shutdown()


def run_cluster(address: str) -> int:
    report = cluster_report(address)
    for node, (host, missing) in sorted(report.items(), key=lambda item: item[1][0]):
        print(f"node {node[:12]} {host:20} " + ("all tools present" if not missing else "MISSING: "
                                                  + "; ".join(missing)))
    lacking = sum(bool(missing) for _host, missing in report.values())
    print(f"{len(report)} nodes, " + (f"{lacking} lack a tool: see above" if lacking else "all good"))
    return 1 if lacking else 0


def run(args) -> int:
    if args.ray_address:
        return run_cluster(args.ray_address)
    healthy = True
    for check in checks():
        healthy &= check.found is not None or not check.required
        shown = check.found or f"MISSING: {check.fix}"
        print(f"{check.name:10} {shown:45} ({check.needed_for})")
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
    parser.add_argument("--ray-address", help="check every node of this Ray cluster instead (HEAD:6379 or 'auto')")
    parser.set_defaults(handler=run)
