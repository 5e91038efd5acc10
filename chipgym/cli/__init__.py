"""The ``chipgym`` command: ``chipgym doctor``, ``chipgym drc run|grade``, ``chipgym chip check``,
``chipgym pdk install|list|path``, ``chipgym cache info|clear``.

Each command group lives in its own module and adds its subcommands to the parser.
"""

from __future__ import annotations

import argparse
import signal
import sys

from chipgym.cli import cache, chip, doctor, drc, pdk
from chipgym.engines.tools import interrupt_all
from chipgym.errors import ChipgymError

INFRASTRUCTURE_FAILURE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chipgym", description="Gymnasium environments for chip-design agents.")
    commands = parser.add_subparsers(dest="command", required=True)
    doctor.add_commands(commands)
    drc.add_commands(commands)
    chip.add_commands(commands)
    pdk.add_commands(commands)
    cache.add_commands(commands)
    return parser


def _terminate(signum: int, frame) -> None:
    """SIGTERM unwinds like Ctrl-C: running tools stop and every temporary folder is removed."""
    interrupt_all()
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        return args.handler(args)
    except (ChipgymError, OSError, ValueError) as error:
        print(f"chipgym: {error}", file=sys.stderr)
        return INFRASTRUCTURE_FAILURE
