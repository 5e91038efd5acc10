"""Installing and finding PDKs, from the real ASAP7 files: from a folder, over HTTP, and refusing bad copies."""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import threading
from contextlib import contextmanager, nullcontext
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from chipgym.cli import main
from chipgym.errors import ChipgymError, PdkError, PdkMissingError
from chipgym.scoring.pdk import checksums, install, installed_pdks, pdk_home, pdk_root

SHARED = Path(os.environ.get("CHIPGYM_SHARED_PDK") or Path(__file__).resolve().parents[3] / "shared" / "pdk" / "asap7")
CORRUPTED = "asap7sc7p5t_SEQ_RVT_TT_nldm_220123.lib.gz"
MISSING = "asap7sc7p5t_28_R_1x_220121a.lef.gz"


@pytest.fixture(scope="module")
def shared() -> Path:
    if not (SHARED / "SHA256SUMS").is_file():
        pytest.skip(f"the ASAP7 files are not at {SHARED} (set CHIPGYM_SHARED_PDK to a copy)")
    return SHARED


@pytest.fixture(scope="module")
def installed(shared, tmp_path_factory) -> Path:
    return install("asap7", shared, home=tmp_path_factory.mktemp("home"), progress=False)


def copy_of(shared: Path, folder: Path, leave_out: str = "") -> Path:
    """A copy of the shared folder (links to its files), without ``leave_out``."""
    folder.mkdir()
    for file in shared.iterdir():
        if file.name != leave_out:
            (folder / file.name).symlink_to(file)
    return folder


@contextmanager
def served(folder: Path):
    """The URL of ``folder`` served by a local HTTP server."""
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_install_from_a_folder_unpacks_every_file(installed, shared, monkeypatch):
    names = sorted(p.name for p in installed.iterdir())
    assert names == sorted(["INSTALLED", *(name.removesuffix(".gz") for name in checksums("asap7"))])
    assert (installed / "LICENSE").read_bytes() == (shared / "LICENSE").read_bytes()
    plain = gzip.decompress((shared / CORRUPTED).read_bytes())
    assert (installed / CORRUPTED.removesuffix(".gz")).read_bytes() == plain
    assert f"source: {shared.resolve()}" in (installed / "INSTALLED").read_text()
    monkeypatch.setenv("CHIPGYM_PDK_HOME", str(installed.parent))
    assert pdk_root("asap7") == installed
    assert installed_pdks() == ["asap7"]
    assert list(installed.parent.iterdir()) == [installed]  # no staging folder left behind


def test_install_from_a_url_replaces_an_earlier_install(shared, tmp_path):
    earlier = tmp_path / "home" / "asap7"
    earlier.mkdir(parents=True)
    (earlier / "stale.lib").write_text("library (stale) {}")
    (earlier / "INSTALLED").write_text("source: elsewhere\n")
    with served(shared) as url:
        root = install("asap7", url, home=tmp_path / "home", progress=False)
    assert root == earlier
    assert not (root / "stale.lib").exists()
    assert f"source: {url}" in (root / "INSTALLED").read_text()
    assert (root / MISSING.removesuffix(".gz")).read_bytes() == gzip.decompress((shared / MISSING).read_bytes())
    assert list((tmp_path / "home").iterdir()) == [root]


def test_a_corrupted_file_is_rejected_and_nothing_is_installed(shared, tmp_path):
    source = copy_of(shared, tmp_path / "source", leave_out=CORRUPTED)
    data = bytearray((shared / CORRUPTED).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (source / CORRUPTED).write_bytes(data)
    with pytest.raises(PdkError) as error:
        install("asap7", source, home=tmp_path / "home", progress=False)
    message = str(error.value)
    assert CORRUPTED in message
    assert checksums("asap7")[CORRUPTED] in message
    assert hashlib.sha256(data).hexdigest() in message
    assert list((tmp_path / "home").iterdir()) == []


@pytest.mark.parametrize("over_http", [False, True], ids=["folder", "url"])
def test_a_missing_file_is_rejected(shared, tmp_path, over_http):
    source = copy_of(shared, tmp_path / "source", leave_out=MISSING)
    with served(source) if over_http else nullcontext(source) as where:
        with pytest.raises(PdkError, match=MISSING):
            install("asap7", where, home=tmp_path / "home", progress=False)
    assert list((tmp_path / "home").iterdir()) == []


def test_a_pdk_that_is_not_installed_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv("CHIPGYM_PDK_HOME", str(tmp_path))
    with pytest.raises(PdkMissingError, match="chipgym pdk install asap7 --from PATH_OR_URL") as error:
        pdk_root("asap7")
    assert isinstance(error.value, ChipgymError)
    assert installed_pdks() == []
    with pytest.raises(PdkError, match="unknown PDK 'sky130'; known: asap7"):
        pdk_root("sky130")


def test_pdk_home_defaults_to_the_users_data_folder(monkeypatch):
    monkeypatch.delenv("CHIPGYM_PDK_HOME", raising=False)
    assert pdk_home() == Path.home() / ".local" / "share" / "chipgym" / "pdk"


def test_cli_installs_lists_and_finds_a_pdk(shared, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CHIPGYM_PDK_HOME", str(tmp_path))
    assert main(["pdk", "path", "asap7"]) == 2
    assert "chipgym pdk install asap7 --from PATH_OR_URL" in capsys.readouterr().err
    assert main(["pdk", "list"]) == 0
    assert capsys.readouterr().out == f"asap7\tnot installed\t{tmp_path / 'asap7'}\n"
    assert main(["pdk", "install", "asap7", "--from", str(shared)]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'asap7'}\n"
    assert main(["pdk", "path", "asap7"]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'asap7'}\n"
    assert main(["pdk", "list"]) == 0
    assert capsys.readouterr().out == f"asap7\tinstalled\t{tmp_path / 'asap7'}\n"
