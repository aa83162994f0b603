"""Unknown is not removed: sections an imported snapshot lacks are not compared, and reports say so."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from envsnap import cli
from envsnap.compare.diff import diff, not_compared
from envsnap.errors import ExitCode
from envsnap.fleet.view import UNKNOWN, fleet
from envsnap.snapshot import store
from envsnap.snapshot.model import AmdInfo, Frameworks, JaxInfo, Origin
from tests.fakes.diff_snapshots import (
    FLASH_ATTN_COMMIT,
    PIP_FREEZE,
    PIP_FREEZE_DIRECT,
    imported,
    make,
    nvidia_import,
    with_nvidia,
)


def test_a_pip_freeze_import_is_compared_on_packages_only() -> None:
    """Same packages: no changes at all, and every layer the import lacks is named as not compared."""
    live, frozen = make(), imported("pip-freeze", PIP_FREEZE)
    assert diff(live, frozen) == ()
    assert not_compared(live, frozen) == (
        ("host", "new"),
        ("python", "new"),
        ("environment", "new"),
        ("accelerators", "new"),
        ("toolkits", "new"),
        ("frameworks", "new"),
    )
    assert not_compared(frozen, live)[0] == ("host", "old")


def test_a_pip_freeze_import_still_shows_package_changes() -> None:
    frozen = imported("pip-freeze", PIP_FREEZE.replace("filelock==4.3.1", "filelock==4.3.2"))
    assert [(c.path, c.kind, c.old, c.new) for c in diff(make(), frozen)] == [
        ("packages[filelock]", "changed", "4.3.1", "4.3.2")
    ]


def test_an_nvidia_smi_import_does_not_remove_the_packages_or_other_layers() -> None:
    changes = diff(make(), nvidia_import())
    # The NVIDIA section itself is compared, but a field the import lacks (it records no compute
    # capability) is not compared either: only values both sides hold can differ.
    assert all(c.kind == "changed" and c.path.startswith("accelerators.nvidia") for c in changes)
    assert not any(c.path.endswith(".compute_capability") for c in changes)
    skipped = dict(not_compared(make(), nvidia_import()))
    assert skipped["packages"] == "new"
    assert {"host", "python", "toolkits", "frameworks"} <= set(skipped)


def test_a_skipped_section_is_known_and_compared() -> None:
    """ok -> skipped is a real change; only a section absent from the file is unknown."""
    gone = with_nvidia(make(), status="skipped", reason="NVIDIA driver not installed", devices=None)
    changes = diff(make(), gone)
    assert [(c.path, c.new, c.impact) for c in changes] == [
        ("accelerators.nvidia", "skipped: NVIDIA driver not installed", "breaking")
    ]
    assert not_compared(make(), gone) == ()


def test_a_vendor_section_missing_from_an_import_is_unknown() -> None:
    live = make()
    assert live.accelerators is not None
    amd = AmdInfo(status="skipped", reason="amdsmi not installed and no amdgpu devices in sysfs")
    with_amd_probe = msgspec.structs.replace(
        live, accelerators=msgspec.structs.replace(live.accelerators, amd=amd)
    )
    importer = nvidia_import()
    assert ("accelerators.amd", "new") in not_compared(with_amd_probe, importer)
    assert not any(c.path.startswith("accelerators.amd") for c in diff(with_amd_probe, importer))


def test_a_framework_missing_from_a_probe_was_removed_but_from_an_import_is_unknown() -> None:
    base = make()
    assert base.frameworks is not None
    jax = JaxInfo(status="ok", version="0.4.31", jaxlib_version="0.4.31")
    with_jax = msgspec.structs.replace(base, frameworks=msgspec.structs.replace(base.frameworks, jax=jax))
    probed = [(c.path, c.kind) for c in diff(with_jax, base)]
    assert probed == [("frameworks.jax", "removed")]
    from_import = msgspec.structs.replace(
        base, meta=msgspec.structs.replace(base.meta, origin=Origin(kind="import", format="collect-env"))
    )
    assert diff(with_jax, from_import) == ()
    assert not_compared(with_jax, from_import) == (("frameworks.jax", "new"),)


def test_an_imported_package_without_a_version_is_not_a_version_change() -> None:
    """``-e git+...`` and ``name @ url`` lines carry no version: "" is unknown, not "1.0 -> ''"."""
    frozen = imported("pip-freeze", PIP_FREEZE_DIRECT)
    base = make()
    installed = msgspec.structs.replace(
        base,
        packages=(
            *(base.packages or ()),
            *(
                msgspec.structs.replace(p, version="2.6.3")
                for p in frozen.packages or ()
                if p.name == "flash_attn"
            ),
        ),
    )
    changes = diff(installed, frozen)
    assert not any(c.path == "packages[flash-attn]" for c in changes)
    assert [c.path for c in changes] == ["packages[triton]"]  # added: the live side lacks it
    assert FLASH_ATTN_COMMIT in str(frozen.packages)


def test_fleet_leaves_hosts_that_lack_a_section_out_of_it() -> None:
    snapshots = [make(hostname=f"gpu-{i}") for i in range(3)]
    snapshots.append(imported("pip-freeze", PIP_FREEZE.replace("filelock==4.3.1", "filelock==4.3.2")))
    snapshots.append(nvidia_import())
    labels = ["gpu-0", "gpu-1", "gpu-2", "frozen", "smi"]
    report = fleet(snapshots, labels)
    assert [field.path for field in report.fields if field.layer == "packages"] == ["packages[filelock]"]
    filelock = next(f for f in report.fields if f.path == "packages[filelock]")
    assert filelock.deviants == (3,)
    assert filelock.unknown == (4,)
    assert filelock.values[4] is UNKNOWN
    assert filelock.majority_count == 3
    assert not any(3 in f.deviants for f in report.fields if f.layer != "packages")
    not_known = dict(report.not_compared)
    assert not_known["packages"] == (4,)
    assert not_known["host"] == (3, 4)


def test_cli_names_the_layers_not_compared(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "live.yaml"
    smi = tmp_path / "smi.yaml"
    store.save(make(), good)
    store.save(nvidia_import(), smi)
    # Same machine: the fields the import lacks are not compared, so nothing differs.
    assert cli.run(["diff", str(good), str(smi)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "packages[" not in out
    last = out.rstrip().splitlines()[-1]
    assert last.startswith("not compared: host, python, packages, environment")
    assert last.endswith("(absent in smi)")
    assert cli.run(["diff", str(good), str(smi), "--json"]) == ExitCode.OK
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert {"section": "packages", "absent_in": "new"} in summary["not_compared"]
    assert cli.run(["diff", str(good), str(smi), "--only", "packages"]) == ExitCode.OK
    assert capsys.readouterr().out.splitlines()[1] == "not compared: packages (absent in smi)"


def test_frameworks_section_absent_everywhere_is_not_mentioned() -> None:
    bare = msgspec.structs.replace(make(), frameworks=None)
    assert all(section != "frameworks" for section, _ in not_compared(bare, bare))
    assert not_compared(bare, msgspec.structs.replace(bare, frameworks=Frameworks())) == (
        ("frameworks", "old"),
    )
