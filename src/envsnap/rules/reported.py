"""Errors printed around a pasted report that no table-driven check explains (compat-rules.md B2.2, B3.1).

``no kernel image is available for execution on the device`` (CUDA) and ``HIP error: invalid
device function`` (ROCm) are what a build without code for the GPU prints at the first kernel
launch. When the arch checks already name the GPU and the missing architecture, they say it
better; when the report lacks what they need (no GPU name the tables know, no arch list), the
printed error is still the evidence, and the finding says what to look for.
"""

from __future__ import annotations

from collections.abc import Iterator

from envsnap.rules import arch, facts
from envsnap.rules.base import ev, finding, rule
from envsnap.snapshot.model import Finding, Snapshot

ID = "arch-not-in-build"


@rule(ID)
def printed_no_kernel(snapshot: Snapshot) -> Iterator[Finding]:
    """The paste shows a missing-kernel error, and no arch check found the cause from the tables."""
    message = facts.reported(snapshot, "no-kernel-image", "hip-invalid-device-function")
    if message is None:
        return
    if any(True for _ in arch.cuda_arch(snapshot)) or any(True for _ in arch.rocm_arch(snapshot)):
        return
    rocm = message.kind == "hip-invalid-device-function"
    label = facts.torch_label(snapshot)
    target = "gfx target" if rocm else "compute capability (sm_XY)"
    yield finding(
        ID,
        "error",
        f"The report shows '{message.text[:90]}': {label} or an extension has no code for this GPU",
        f"Compare the GPU's {target} with the build's list (`python -c \"import torch; "
        'print(torch.cuda.get_arch_list())"`) and install a build that includes it; if torch lists it, '
        "rebuild the extension that failed for this GPU.",
        arch.ROCM_SOURCE if rocm else arch.CUDA_SOURCE,
        [ev(f"meta.origin.messages[{message.kind}]", message.text)],
    )
