"""`envsnap import`: stdin, output file, findings summary, and hostile inputs refused with exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from envsnap.snapshot import store
from tests.conftest import DATA

ENVSNAP = [sys.executable, "-m", "envsnap"]


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*ENVSNAP, *args], input=stdin, capture_output=True, check=False, timeout=120)


def test_import_from_stdin_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "imported.yaml"
    report = (DATA / "collect_env" / "gen2024_torch2.2_cpu_build_on_h100.txt").read_bytes()
    done = run("import", "collect-env", "-", "-o", str(out), stdin=report)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip() == str(out)
    assert done.stderr.decode().startswith("imported collect-env from <stdin>:")
    snap = store.load(out)
    assert snap.meta.origin
    assert snap.meta.origin.file == "<stdin>"


def test_hostile_reports_exit_2_with_one_line(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 40)
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.write(b"PyTorch version: 2.0.0\n")
        handle.seek(50 * 1024 * 1024)
        handle.write(b"\n")
    half = tmp_path / "half.txt"
    lines = (DATA / "collect_env" / "gen2021_torch1.10_nvcc_minor_mismatch.txt").read_text().splitlines()
    half.write_text("\n".join(lines[: len(lines) // 2]))
    bad_xml = tmp_path / "bad.xml"
    bad_xml.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY a "aaaa">]>\n<nvidia_smi_log>&a;</nvidia_smi_log>\n'
    )
    cases = [
        ("collect-env", garbage, "binary data"),
        ("collect-env", huge, "larger than 32 MB"),
        ("collect-env", half, "looks truncated"),
        ("pip-freeze", garbage, "binary data"),
        ("nvidia-smi-xml", bad_xml, "refusing a DOCTYPE"),
        ("nvidia-smi-xml", half, "not well-formed"),
    ]
    for kind, path, expected in cases:
        done = run("import", kind, str(path))
        err = done.stderr.decode()
        assert done.returncode == 2, (kind, path.name, err)
        assert err.count("\n") == 1, err
        assert expected in err, err
        assert err.startswith(f"envsnap: error: {path}"), err
        assert done.stdout == b""
