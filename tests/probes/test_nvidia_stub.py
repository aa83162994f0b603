"""End to end through the REAL nvidia-ml-py: a C stub libnvidia-ml.so.1 with two H100s.

The stub (tests/fakes/nvml_stub.c) is compiled with gcc into a temporary folder and found
through LD_LIBRARY_PATH by a subprocess running envsnap, so ctypes signatures, symbol version
suffixes (``_v2``/``_v3``) and struct layouts are exercised as on a GPU host. Functions the stub
does not export must come out as absent fields. Expected values are read from the H100 capture
the stub was written from (tests/data/nvidia/, see SOURCES.md).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fakes.fake_nvml import fixture_text
from tests.fakes.nvml_stub import build_nvml_stub

CAPTURE = "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"


@pytest.fixture(scope="module")
def stub_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_nvml_stub(tmp_path_factory.mktemp("nvml-stub"))


def _section(capture: str, title: str) -> str:
    """One ``# <state> :: <label>`` section of an nvidia_gpu_exporter capture."""
    parts = re.split(r"^#{80}\n", capture, flags=re.MULTILINE)
    for header, body in zip(parts[1::2], parts[2::2], strict=False):
        if header.startswith(f"# {title}\n"):
            return body
    raise AssertionError(f"no section {title!r} in the capture")


def _q_value(section: str, label: str) -> str:
    match = re.search(rf"^\s*{re.escape(label)}\s*:\s*(.+?)\s*$", section, flags=re.MULTILINE)
    assert match, label
    return match.group(1)


def _csv(section: str) -> list[dict[str, str]]:
    lines = [line for line in section.splitlines() if line.strip()]
    header = [name.split(" [")[0] for name in lines[0].split(", ")]
    return [dict(zip(header, line.split(", "), strict=True)) for line in lines[1:]]


def _run(stub: Path, tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, LD_LIBRARY_PATH=str(stub))
    return subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )


def test_envsnap_save_reads_two_h100s_through_the_real_bindings(stub_dir: Path, tmp_path: Path) -> None:
    capture = fixture_text(CAPTURE)
    idle_q = _section(capture, "idle :: query (-q)")
    load_q = _section(capture, "load :: query (-q)")
    query_gpu = _csv(_section(capture, "idle :: query-gpu (csv, what the exporter parses)"))[0]
    apps = _csv(_section(capture, "load :: query-compute-apps (per-process)"))

    done = _run(stub_dir, tmp_path, "-m", "envsnap", "save", "-o", "-", "--no-frameworks")
    assert done.returncode == 0, done.stderr
    snapshot: dict[str, Any] = yaml.safe_load(done.stdout)
    nvidia = snapshot["accelerators"]["nvidia"]

    assert nvidia["status"] == "ok"
    assert nvidia["source"] == "nvml"
    assert nvidia["driver_version"] == _q_value(idle_q, "Driver Version") == "590.48.01"
    assert nvidia["cuda_driver_version"] == _q_value(idle_q, "CUDA Version") == "13.1"
    devices = nvidia["devices"]
    assert len(devices) == 2
    total_mib = int(_q_value(idle_q.split("FB Memory Usage")[1], "Total").split()[0])
    for device in devices:
        assert device["name"] == _q_value(idle_q, "Product Name") == "NVIDIA H100 80GB HBM3"
        assert device["compute_capability"] == query_gpu["compute_cap"] == "9.0"
        assert device["memory_total_bytes"] == total_mib * 1024 * 1024
        assert device["architecture"] == _q_value(idle_q, "Product Architecture")
        assert device["power_limit_watts"] == float(_q_value(idle_q, "Current Power Limit").split()[0])
        # Not exported by the stub: FunctionNotFound in nvidia-ml-py, absent in the snapshot.
        for absent in (
            "ecc_enabled",
            "mig_enabled",
            "persistence_mode",
            "bar1_total_bytes",
            "pcie_link_gen_max",
        ):
            assert absent not in device
    assert [d["pci_bus_id"] for d in devices] == ["0000:00:09.0", "0000:00:0A.0"]

    samples = {s["index"]: s for s in snapshot["telemetry"]["devices"]}
    used_mib = int(_q_value(load_q.split("FB Memory Usage")[1], "Used").split()[0])
    assert samples[1]["memory_used_bytes"] == used_mib * 1024 * 1024
    assert samples[1]["gpu_util_percent"] == float(_q_value(load_q.split("Utilization")[1], "GPU").split()[0])
    assert samples[1]["power_draw_watts"] == float(_q_value(load_q, "Average Power Draw").split()[0])
    assert [(p["pid"], p["name"], p["used_memory_bytes"]) for p in samples[1]["processes"]] == [
        (int(app["pid"]), app["process_name"], int(app["used_gpu_memory"].split()[0]) * 1024 * 1024)
        for app in apps
    ]
    assert samples[0]["processes"] == []


def test_live_sampler_through_the_real_bindings(stub_dir: Path, tmp_path: Path) -> None:
    script = (
        "import json, msgspec\n"
        "from envsnap.live.sources import default_sampler\n"
        "sampler = default_sampler()\n"
        "names = [s.name for s in sampler.sources]\n"
        "first, second = sampler.sample(), sampler.sample()\n"
        "sampler.close()\n"
        "print(json.dumps([names, msgspec.to_builtins(second)]))\n"
    )
    done = _run(stub_dir, tmp_path, "-c", script)
    assert done.returncode == 0, done.stderr
    names, sample = json.loads(done.stdout)
    assert "nvml" in names
    capture = fixture_text(CAPTURE)
    temperatures = [
        float(_q_value(_section(capture, f"{state} :: query (-q)"), "GPU Current Temp").split()[0])
        for state in ("idle", "load")
    ]
    nvidia_samples = sorted(
        (d for d in sample["devices"] if d["vendor"] == "nvidia"), key=lambda d: d["index"]
    )
    assert [d["temperature_c"] for d in nvidia_samples] == temperatures
    assert sample.get("errors") is None
