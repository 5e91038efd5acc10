"""``chipgym pdk ...``: install the process design kits that scoring needs, and find them."""

from __future__ import annotations

from chipgym.scoring.pdk import KNOWN_PDKS, install, installed_pdks, pdk_home, pdk_root


def install_pdk(args) -> int:
    print(install(args.name, args.source))
    return 0


def list_pdks(args) -> int:
    installed = installed_pdks()
    for name in KNOWN_PDKS:
        print(f"{name}\t{'installed' if name in installed else 'not installed'}\t{pdk_home() / name}")
    return 0


def print_path(args) -> int:
    print(pdk_root(args.name))
    return 0


def add_commands(commands) -> None:
    pdk = commands.add_parser("pdk", help="process design kits").add_subparsers(dest="pdk_command", required=True)
    run = pdk.add_parser("install", help="fetch a PDK, check its files against the shipped checksums, unpack it")
    run.add_argument("name", metavar="NAME", choices=KNOWN_PDKS, help=f"one of {', '.join(KNOWN_PDKS)}")
    run.add_argument("--from", dest="source", metavar="PATH_OR_URL", required=True,
                     help="a folder, or an http(s) URL of one, holding the PDK's files")
    run.set_defaults(handler=install_pdk)
    run = pdk.add_parser("list", help="the known PDKs, installed or not, and where they are or go")
    run.set_defaults(handler=list_pdks)
    run = pdk.add_parser("path", help="the folder of an installed PDK")
    run.add_argument("name", metavar="NAME", choices=KNOWN_PDKS, help=f"one of {', '.join(KNOWN_PDKS)}")
    run.set_defaults(handler=print_path)
