"""The readers added after blind round 8 (NCCL_DEBUG lines, IPEX's torch.xpu device list, a rocminfo
agent pasted from below its Name line, the MPS fallback warning) get the hostile-input checks the other
readers have: terminal escapes, Rich markup, a huge field and a secret in the paste never reach the output
as such."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

PASTES = {
    "nccl": (
        f"node:1:1 [0] NCCL INFO cudaDriverVersion 12000\nnode:1:1 [0] NCCL WARN {HOSTILE}\n"
        f"NCCL_IB_HCA={SECRET}\n"
    ),
    "ipex": (
        "PyTorch version: 2.0.1a0+cxx11.abi\nIPEX version: 2.0.110+xpu\nIs XPU available: True\n"
        f"GPU models and configuration: \n[0] _DeviceProperties(name='Intel {HOSTILE[:150]}', "
        f"platform_name='Intel(R) Level-Zero')\nLevel Zero version: {HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "rocminfo": (
        f"  Marketing Name:          AMD {HOSTILE}\n  Device Type:             GPU\nHF_TOKEN={SECRET}\n"
    ),
    "mps": (
        "UserWarning: The operator 'aten::nonzero' is not currently supported on the MPS backend and will "
        f"fall back to run on the CPU. {HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path, markup_as_written=False)
