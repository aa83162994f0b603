"""Rules fixed after blind batch 12: each test is a real excerpt from the thread it names."""

from __future__ import annotations

from envsnap.rules import evaluate
from envsnap.snapshot.finalize import finalize
from tests.rules.pasted import findings_of, snapshot_of


def gfx_targets(text: str) -> list[str | None]:
    """The gfx target of every AMD GPU the paste yields."""
    accelerators = snapshot_of(text).accelerators
    amd = accelerators.amd if accelerators is not None else None
    if amd is None:
        return []
    return [device.gfx_target for device in amd.devices or ()]


ROCMINFO_W6600 = """```
root@cdd69b58e233:/var/lib/jenkins# rocminfo
*******
Agent 2
*******
  Name:                    gfx1032
  Uuid:                    GPU-XX
  Marketing Name:          AMD Radeon PRO W6600
  Vendor Name:             AMD
  Feature:                 KERNEL_DISPATCH
  Profile:                 BASE_PROFILE
  Device Type:             GPU
  Compute Unit:            28
"""
"""ROCm/legacy-rocm-build#1797 (inside the rocm/pytorch image; no ROCm release printed)."""

ROCMINFO_MI300X = """  Name:                    gfx942
  Uuid:                    GPU-8af705259683161c
  Marketing Name:          AMD Instinct MI300X
  Vendor Name:             AMD
  Feature:                 KERNEL_DISPATCH
  Device Type:             GPU
"""
"""ROCm/ROCm#4414 (a supported CDNA3 target, no release printed)."""

RX580_OLD_GPU = """/home/lasercat/.local/lib/python3.6/site-packages/torch/cuda/__init__.py:87: UserWarning: 
    Found GPU0 Ellesmere [Radeon RX 470/480/570/570X/580/580X] which is of gfx803.
    PyTorch no longer supports this GPU because it is too old.
    The minimum cuda capability that we support is gfx900.
    
  warnings.warn(old_gpu_warn % (d, name, major, capability[1]))
tensor([9], device='cuda:0')
"""
"""ROCm/pytorch#627 (ROCm 3.x era, gfx803 was still a ROCm target then)."""


def test_rocminfo_rdna2_target_without_a_release_is_unsupported() -> None:
    assert gfx_targets(ROCMINFO_W6600) == ["gfx1032"]
    assert ("rocm-gfx-unsupported", "warning") in findings_of(ROCMINFO_W6600)


def test_supported_target_without_a_release_is_not_warned() -> None:
    assert gfx_targets(ROCMINFO_MI300X) == ["gfx942"]
    assert not {f for f in findings_of(ROCMINFO_MI300X) if f[0] == "rocm-gfx-unsupported"}


def test_gcn_target_without_a_release_is_left_alone() -> None:
    # Older ROCm releases supported gfx803: without the release the verdict is unknown.
    assert gfx_targets(RX580_OLD_GPU) == ["gfx803"]
    assert not {f for f in findings_of(RX580_OLD_GPU) if f[0] == "rocm-gfx-unsupported"}


PROMPT = r"(venv) C:\Users\jfran\Documents\Artificial Intelligence\automatic>"
PIP_SHOW_TORCH_TORCHVISION = (
    f"{PROMPT}pip show torch\n"
    "Name: torch\n"
    "Version: 2.4.0+cu121\n"
    "Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration\n"
    "Home-page: https://pytorch.org/\n"
    "\n"
    f"{PROMPT}pip show torchvision\n"
    "Name: torchvision\n"
    "Version: 0.20.1+cu124\n"
    "Summary: image and video datasets and models for torch deep learning\n"
)
"""vladmandic/sdnext#3531 (after an xFormers install: 'operator torchvision::nms does not exist')."""


def test_companion_of_another_release_is_one_finding() -> None:
    found = evaluate(finalize(snapshot_of(PIP_SHOW_TORCH_TORCHVISION)))
    companion = [f for f in found if f.id == "companion-version-mismatch"]
    assert [str(f.severity) for f in companion] == ["error"]
    assert "0.19" in companion[0].title
    # the fix reinstalls from torch's own index, which also settles the +cu124 tag
    assert "cu121" in companion[0].fix


def test_companion_of_the_same_release_still_reports_its_variant() -> None:
    text = PIP_SHOW_TORCH_TORCHVISION.replace("0.20.1+cu124", "0.19.0+cu124")
    assert findings_of(text) >= {("companion-version-mismatch", "warning")}
    assert ("companion-version-mismatch", "error") not in findings_of(text)
