"""The ``chipgym`` command: ``chipgym doctor``, ``chipgym drc run|grade``, ``chipgym chip check``,
``chipgym pdk install|list|path``, ``chipgym cache info|clear``, ``chipgym replay FILE...``,
``chipgym eval``, ``chipgym select``, ``chipgym export-trajectories LOGS``, ``chipgym train drc|chip``.

Each command group lives in its own module and adds its subcommands to the parser.
"""

from __future__ import annotations

import argparse
import sys

from chipgym.cli import cache, chip, doctor, drc, eval, pdk, replay, select, train, trajectories
from chipgym.cli.exit_codes import INFRASTRUCTURE_FAILURE
from chipgym.engines.tools import exit_cleanly_on_sigterm


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chipgym", description="Gymnasium environments for chip-design agents.")
    commands = parser.add_subparsers(dest="command", required=True)
    doctor.add_commands(commands)
    drc.add_commands(commands)
    chip.add_commands(commands)
    pdk.add_commands(commands)
    cache.add_commands(commands)
    replay.add_commands(commands)
    eval.add_commands(commands)
    select.add_commands(commands)
    trajectories.add_commands(commands)
    train.add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    exit_cleanly_on_sigterm()
    try:
        return args.handler(args)
    except (OSError, ValueError) as error:  # every ChipgymError is one of them
        print(f"chipgym: {error}", file=sys.stderr)
        return INFRASTRUCTURE_FAILURE
