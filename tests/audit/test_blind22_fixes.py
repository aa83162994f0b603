"""Fixes from blind round 22 (#22), each on an excerpt of the real project that showed it (braintaichi 0.0.5):

- Taichi Lang was unknown: a Taichi project had no finding, so every target read "standard ops". Its
  backends decide (the taichi row of alternatives.yaml): ti.gpu reaches Intel GPUs through Vulkan and Apple
  GPUs through Metal as installed, but AMD Instinct GPUs only through the experimental AMDGPU backend
  (moderate).
- A JAX project that registers a compiled XLA custom call for the GPU platform
  (``xla_client.register_custom_call_target(name, fn, platform="gpu")``) ships a CUDA kernel library that
  JAX's plugins do not port: a HIP rebuild on ROCm (moderate), no way at all on Intel or Apple GPUs (higher).
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.conftest import audit_files

# braintaichi 0.0.5 braintaichi/rand/_taichi_rand.py (trimmed): Taichi functions, no CUDA anywhere.
TAICHI_RAND = """\
import taichi as ti

ti_float = ti.float32


@ti.func
def lfsr88_next_key(key: ti.types.vector(4, ti.u32)):
    z1 = key[1]
    b = (((z1 << 6) ^ z1) >> 13)
    return ti.math.uvec4(key[0], ((z1 & 4294967294) << 18) ^ b, key[2], key[3])
"""

# braintaichi 0.0.5 braintaichi/_primitive/_mlir_translation_rule.py (lines 30-55): the compiled custom calls.
REGISTER = """\
from jax.interpreters import mlir
from jax.lib import xla_client

# --- REGISTER CUSTOM CALL TARGETS on CPU platforms ###
try:
    from braintaichi import cpu_ops  # noqa

    for _name, _value in cpu_ops.registrations().items():
        xla_client.register_custom_call_target(_name, _value, platform="cpu")
except ImportError:
    cpu_ops = None

# --- REGISTER CUSTOM CALL TARGETS on GPU platforms ###
try:
    from braintaichi import gpu_ops  # noqa

    for _name, _value in gpu_ops.registrations().items():
        xla_client.register_custom_call_target(_name, _value, platform="gpu")
except ImportError:
    gpu_ops = None
"""


def test_taichi_reaches_amd_instinct_gpus_only_through_an_experimental_backend(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"bt/rand.py": TAICHI_RAND}, "rocm:gfx942")
    assert result.verdict.risk == "moderate"
    assert any("AMDGPU backend" in f.meaning for f in result.findings if f.risk == "moderate")


def test_taichi_runs_on_intel_and_apple_gpus_as_installed(tmp_path: Path) -> None:
    # Twin: Vulkan (Intel) and Metal (Apple) ship in Taichi's wheels: nothing to port.
    for target in ("xpu", "mps"):
        result = audit_files(tmp_path, {"bt/rand.py": TAICHI_RAND}, target)
        assert result.verdict.risk == "lower", target


def test_a_gpu_custom_call_has_no_intel_or_apple_path(tmp_path: Path) -> None:
    for target in ("xpu", "mps"):
        result = audit_files(tmp_path, {"bt/rule.py": REGISTER}, target)
        calls = [f for f in result.findings if f.rule == "xla-custom-call"]
        assert [f.location for f in calls] == ["bt/rule.py:18"], target
        assert result.verdict.risk == "higher", target


def test_a_gpu_custom_call_is_a_hip_rebuild_on_rocm(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"bt/rule.py": REGISTER}, "rocm:gfx942")
    calls = [f for f in result.findings if f.rule == "xla-custom-call"]
    assert len(calls) == 1
    assert calls[0].risk == "moderate"
    assert "HIP" in calls[0].meaning


def test_cpu_and_rocm_custom_calls_are_not_flagged(tmp_path: Path) -> None:
    # Twin: a CPU custom call runs wherever the CPU does, and a ROCM one is the port itself.
    text = REGISTER.replace('platform="gpu"', 'platform="ROCM"')
    for target in ("rocm:gfx942", "xpu", "mps"):
        result = audit_files(tmp_path, {"bt/rule.py": text}, target)
        assert not [f for f in result.findings if f.rule == "xla-custom-call"], target
        assert result.verdict.risk != "higher", target
