"""rocm-gfx-unsupported: gfx targets outside ROCm's support list, and HSA_OVERRIDE_GFX_VERSION."""

from __future__ import annotations

from envsnap.rules import rocm
from envsnap.snapshot.model import RocmToolkit, Toolkits
from tests.rules.conftest import accelerators, amd, env, snapshot, torch


def test_rx_6700_xt_is_not_supported_by_rocm_6_0() -> None:
    # rocm-smi capture of an RX 6700 XT under ROCm 6.0.2.
    (found,) = rocm.unsupported_gfx(snapshot(accelerators=accelerators(amd=amd("rx6700xt"))))
    assert found.id == "rocm-gfx-unsupported"
    assert found.severity == "warning"
    assert "gfx1031 — RDNA2 (RX 6700/6700 XT/6750 XT)" in found.title
    assert "ROCm 6.0.2" in found.title
    assert (found.source or "").startswith("https://rocm.docs.amd.com/")


def test_mi100_on_rocm_6_0_is_supported() -> None:
    assert list(rocm.unsupported_gfx(snapshot(accelerators=accelerators(amd=amd("mi100", 4))))) == []


def test_rocm_version_from_the_toolkit_when_amdsmi_did_not_say() -> None:
    # MI50 (gfx906) dropped from the support list in ROCm 6.x.
    toolkits = Toolkits(rocm=RocmToolkit(status="ok", version="6.1.2", path="/opt/rocm-6.1.2"))
    snap = snapshot(accelerators=accelerators(amd=amd("mi50")), toolkits=toolkits)
    (found,) = rocm.unsupported_gfx(snap)
    assert found.evidence[1].path == "toolkits.rocm.version"


def test_unknown_or_old_rocm_is_not_judged() -> None:
    assert list(rocm.unsupported_gfx(snapshot(accelerators=accelerators(amd=amd("mi50"))))) == []
    old = snapshot(accelerators=accelerators(amd=amd("rx6700xt", rocm_version="5.7.1")))
    assert list(rocm.unsupported_gfx(old)) == []


def test_hsa_override_names_what_it_overrides() -> None:
    snap = snapshot(
        accelerators=accelerators(amd=amd("rx6700xt")), environment=env(HSA_OVERRIDE_GFX_VERSION="10.3.0")
    )
    (found,) = rocm.hsa_override(snap)
    assert found.severity == "warning"
    assert "makes every GPU report gfx1030 instead of gfx1031" in found.title
    assert "different GPU family" not in found.title


def test_hsa_override_of_another_family_and_an_unneeded_one() -> None:
    other = snapshot(
        accelerators=accelerators(amd=amd("rx6700xt")), environment=env(HSA_OVERRIDE_GFX_VERSION="11.0.0")
    )
    (found,) = rocm.hsa_override(other)
    assert "different GPU family" in found.title
    unneeded = snapshot(
        accelerators=accelerators(amd=amd("mi210")),
        frameworks=torch("2.6.0+rocm6.2.4", hip="6.2.41133", arch_list=["gfx90a", "gfx942"]),
        environment=env(HSA_OVERRIDE_GFX_VERSION="9.0.10"),
    )
    (found,) = rocm.hsa_override(unneeded)
    assert "not needed" in found.title


def test_invalid_hsa_override() -> None:
    (found,) = rocm.hsa_override(snapshot(environment=env(HSA_OVERRIDE_GFX_VERSION="gfx1030")))
    assert "is not MAJOR.MINOR.STEPPING" in found.title


def test_no_override_is_silent() -> None:
    assert (
        list(rocm.hsa_override(snapshot(accelerators=accelerators(amd=amd("rx6700xt")), environment=env())))
        == []
    )
