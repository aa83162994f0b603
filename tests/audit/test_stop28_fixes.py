"""Fixes after measurement rounds 384-399 (#22, stop 28), each with the real files and a twin.

- NetKet 3.23 (round 397): ``netket/models/tensor_networks/mps.py``, a Matrix Product State model, was read
  as an MPS backend file, so a JAX project with float64 on by default came out "already supported on Apple
  MPS" (*lower* for *higher*, two levels off; NetKet left the corpus). A Python file named ``mps`` is
  evidence of an Apple backend only where its code drives an Apple GPU (torch.mps, the 'mps' device, Metal,
  MLX). TensorKrowch's ``models/mps.py`` (in the corpus) is the same kind of file.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from envsnap.audit import scan_tree
from envsnap.audit.scan import APPLE_GPU_CODE
from tests.audit.conftest import project

TENSOR_NETWORK = '''"""A periodic Matrix Product State (MPS) for a chain of spins."""
import jax.numpy as jnp
from flax import linen as nn


class MPSPeriodic(nn.Module):
    bond_dim: int

    def contract_mps(self, tensors):
        return jnp.trace(jnp.linalg.multi_dot(tensors))
'''


def _mps_ports(root: Path) -> list[str]:
    return [
        s.file or ""
        for s in scan_tree(str(root)).signals
        if s.kind == "port" and s.subject == "mps" and any("backend file" in d for d in s.detail)
    ]


def test_a_tensor_network_named_mps_is_not_an_apple_backend(tmp_path: Path) -> None:
    model = tmp_path / "spins" / "models" / "tensor_networks" / "mps.py"
    model.parent.mkdir(parents=True)
    model.write_text(TENSOR_NETWORK, encoding="utf-8")
    assert _mps_ports(tmp_path) == []


def test_a_module_named_mps_that_drives_the_apple_gpu_still_is(tmp_path: Path) -> None:
    """The twin: the same file name holding an accelerator member (Lightning's ``accelerators/mps.py``)."""
    for body in (
        "import torch\ndef available():\n    return torch.backends.mps.is_available()\n",
        "import torch\ndef place(x):\n    return x.to(device='mps')\n",
        "import mlx.core as mx\n",
    ):
        accelerator = tmp_path / "trainer" / "accelerators" / "mps.py"
        accelerator.parent.mkdir(parents=True, exist_ok=True)
        accelerator.write_text(body, encoding="utf-8")
        assert _mps_ports(tmp_path) == ["trainer/accelerators/mps.py"], body


def test_tensorkrowch_matrix_product_states_are_not_a_metal_port(tmp_path: Path) -> None:
    real = Path(project("real-tensorkrowch"))
    assert _mps_ports(real) == []
    # The real file with one line that binds the Apple device: the evidence comes back.
    tree = tmp_path / "tk"
    shutil.copytree(real, tree)
    mps = tree / "tensorkrowch" / "models" / "mps.py"
    mps.write_text(mps.read_text(encoding="utf-8") + "\nDEVICE = torch.device('mps')\n", encoding="utf-8")
    assert _mps_ports(tree) == ["tensorkrowch/models/mps.py"]


def test_the_apple_gpu_pattern_reads_real_backends_not_names() -> None:
    assert APPLE_GPU_CODE.search(b"if torch.backends.mps.is_available():")
    assert APPLE_GPU_CODE.search(b'if device.type == "mps":')
    assert APPLE_GPU_CODE.search(b'SOURCE = """#include <metal_stdlib>\nkernel void add(...)"""')
    assert not APPLE_GPU_CODE.search(b"super().__init__(name='mps')")  # TensorKrowch's network name
    assert not APPLE_GPU_CODE.search(TENSOR_NETWORK.encode())


def test_a_fifo_named_mps_is_never_opened(tmp_path: Path) -> None:
    """The new read goes through the guarded reader: a FIFO named ``mps.py`` would block an open()."""
    (tmp_path / "pkg").mkdir()
    os.mkfifo(tmp_path / "pkg" / "mps.py")
    (tmp_path / "pkg" / "model.py").write_text("import torch\n", encoding="utf-8")
    assert _mps_ports(tmp_path) == []


def test_a_hostile_file_named_mps_is_read_capped_and_linear(tmp_path: Path) -> None:
    """Two megabytes of near misses for every alternative of the pattern: read once, capped, no match."""
    body = (
        "metal  " * 40 + "devic device" + " " * 40 + "'mp type(  'mp " + "import  Metl " * 10 + "\n"
    ) * 4000
    (tmp_path / "mps.py").write_text(body[: 2 * 1024 * 1024], encoding="utf-8")
    assert _mps_ports(tmp_path) == []
