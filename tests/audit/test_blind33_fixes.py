"""Fixes from blind round 33 (#22), each on an excerpt of the real project that showed it (sglang 0.5.23
wheel; PyPI, see tests/data/projects/real-sglang/SOURCE.md):

- sglang documents Intel GPUs and Apple Silicon (its own XpuSRTPlatform and MpsSRTPlatform), but its
  ``srt/utils/common.py`` has ``check_cuda_result``, a function whose body imports ``cuda.bindings.runtime``
  (cuda-python, no build off NVIDIA). That import made the project's own XPU and MPS paths "unimportable"
  (higher, two levels from the documented lower): an import in a function body leaves the module
  importable; only what calls that function needs the package. Only module-level imports cut the path now.
- The same module imports triton at its top. On Apple Silicon ``_platform_stubs.py`` registers a mock
  ``triton`` in ``sys.modules`` first (``if "triton" not in sys.modules and importlib.util.find_spec("triton")
  is None``), so the import succeeds and the MPS path never runs a kernel. The scanner now sees such a
  stand-in and the package's imports count as guarded.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

import time
from pathlib import Path

from envsnap.audit.judges.packages import INSIDE_FUNCTION
from envsnap.audit.scanners import python as python_scanner
from envsnap.audit.scanners.python import scan_python
from tests.audit.conftest import audit_files, raised

# sglang-0.5.23.dist-info/METADATA (the requirement lines, trimmed).
METADATA = """\
Metadata-Version: 2.4
Name: sglang
Version: 0.5.23
Requires-Python: >=3.11
Requires-Dist: cuda-python>=13.0
Requires-Dist: torch==2.14.1
"""
# sglang/srt/platforms/xpu.py and mps.py (trimmed).
XPU_PLATFORM = '''\
"""XPU device operations for the SRT platform layer."""
import torch


class XpuDeviceMixin:
    device_name: str = "xpu"
    device_type: str = "xpu"

    def get_device(self, device_id: int = 0) -> "torch.device":
        return torch.device("xpu", device_id)

    def empty_cache(self) -> None:
        torch.xpu.empty_cache()

    def synchronize(self) -> None:
        torch.xpu.synchronize()
'''
MPS_PLATFORM = '''\
"""Apple MPS support for SRT's in-tree platform layer."""
import torch


class MpsDeviceMixin:
    device_name: str = "mps"
    device_type: str = "mps"

    def get_device(self, local_rank: int = 0) -> torch.device:
        return torch.device("mps")

    def synchronize(self) -> None:
        synchronize = getattr(torch.mps, "synchronize", None)
        if callable(synchronize):
            synchronize()
'''
# sglang/srt/utils/common.py (the imports and check_cuda_result, trimmed).
COMMON = """\
import torch
import torch.distributed as dist
import triton


def check_cuda_result(raw_output):
    import cuda.bindings.runtime as cuda_rt

    err, *results = raw_output
    if err != cuda_rt.cudaError_t.cudaSuccess:
        raise Exception(f"CUDA error: {err}")

    return results
"""
# sglang/_platform_stubs.py (the registration and the install, trimmed).
STUBS = '''\
"""Install compatibility stubs needed by SGLang on Apple Silicon MPS.

Triton is also stubbed because it is unavailable on macOS.
"""
import importlib
import sys
import types


class _MockModule(types.ModuleType):
    def __getattr__(self, name: str):
        return _MockModule(f"{self.__name__}.{name}")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda fn: fn


def _make_mock(name: str) -> _MockModule:
    """Create a ``_MockModule`` and register it in ``sys.modules``."""
    mod = _MockModule(name)
    sys.modules[name] = mod
    return mod


def install_platform_stubs() -> None:
    if "triton" not in sys.modules and importlib.util.find_spec("triton") is None:
        triton = _make_mock("triton")
        triton.__version__ = "3.0.0"
        tl = _make_mock("triton.language")
        triton.language = tl
'''


def _sglang(common: str = COMMON, stubs: str | None = STUBS) -> dict[str, str]:
    files = {
        "sglang-0.5.23.dist-info/METADATA": METADATA,
        "sglang/__init__.py": "",
        "sglang/srt/platforms/xpu.py": XPU_PLATFORM,
        "sglang/srt/platforms/mps.py": MPS_PLATFORM,
        "sglang/srt/utils/common.py": common,
    }
    if stubs is not None:
        files["sglang/_platform_stubs.py"] = stubs
    return files


def test_function_local_import_leaves_the_xpu_path(tmp_path: Path) -> None:
    result = audit_files(tmp_path, _sglang(), "xpu")
    assert result.verdict.risk == "lower"
    assert "cuda-only-import" in raised(result)  # named as a place to check
    assert not any("an import it needs has no build there" in reason for reason in result.verdict.reasons)


def test_module_level_import_is_a_blocker_named_to_check(tmp_path: Path) -> None:
    # Twin: the same import at the module's top fails when the module loads: a higher finding, not said to
    # be inside a function. A CUDA package binds no module to a device (packages.BINDS_MODULE, measured on
    # rounds 23-35): the project's XPU path still sets the verdict, and the import is named first to check.
    common = "import cuda.bindings.runtime as cuda_rt\n" + COMMON
    result = audit_files(tmp_path, _sglang(common=common), "xpu")
    cuda = [f for f in result.findings if f.code.startswith("import cuda.bindings")]
    assert {f.risk for f in cuda} == {"higher"}
    assert [INSIDE_FUNCTION in f.meaning for f in cuda] == [False, True]  # the top one, the function's
    assert result.verdict.risk == "lower"
    assert result.verdict.reasons[1].startswith("to check on Intel XPU: cuda-only-import")


def test_triton_stand_in_leaves_the_mps_path(tmp_path: Path) -> None:
    result = audit_files(tmp_path, _sglang(), "mps")
    assert result.verdict.risk == "lower"
    triton = [f for f in result.findings if f.code == "import triton"]
    assert triton
    assert all(f.risk != "higher" for f in triton)
    assert "registers a module of its own" in triton[0].meaning


def test_find_spec_without_a_registration_is_no_stand_in(tmp_path: Path) -> None:
    # Twin: a file that only asks whether triton is missing (a feature check) installs nothing; the
    # module-level `import triton` still fails on a Mac.
    stubs = STUBS.replace("    sys.modules[name] = mod\n", "")
    result = audit_files(tmp_path, _sglang(stubs=stubs), "mps")
    assert "higher" in {f.risk for f in result.findings if f.code == "import triton"}
    assert not [s for s in scan_python("sglang/_platform_stubs.py", stubs) if s.kind == "stand-in"]


def test_no_stubs_file_keeps_triton_a_blocker_on_mps(tmp_path: Path) -> None:
    # Twin: without the stubs the project's MPS path imports a Triton that macOS does not have: a blocker,
    # named first among the places to check on MPS.
    result = audit_files(tmp_path, _sglang(stubs=None), "mps")
    assert "higher" in {f.risk for f in result.findings if f.code == "import triton"}
    checks = [line for line in result.verdict.reasons if line.startswith("to check on Apple MPS")]
    assert any("import" in line for line in checks)


def test_stand_in_reader_on_hostile_text() -> None:
    # Many half-open probes, a registration in a comment, unbalanced brackets, non-ASCII names: no crash,
    # linear time, and a commented-out registration installs nothing.
    hostile = (
        "# sys.modules['triton'] = object()\n"
        + 'x = 1  # find_spec("triton") is None\n'
        + ('find_spec("' * 20000 + "\n")
        + ("sys.modules[" * 20000 + "\n")
        + 'if importlib.util.find_spec("tritón") is None:\n    pass\n'
    )
    start = time.perf_counter()
    try:
        signals = list(scan_python("stubs.py", hostile))
    except (SyntaxError, ValueError, RecursionError):
        signals = []  # not parseable Python: the caller skips the file
    # The reader itself, on the raw lines (no syntax tree needed): only the code line with a probe counts,
    # and the only registration is commented out, so nothing is stood in.
    direct = list(python_scanner._stand_ins("stubs.py", hostile))
    assert time.perf_counter() - start < 5
    assert not [s for s in signals if s.kind == "stand-in"]
    assert direct == []
    # With a real registration line, the unbalanced probes yield nothing and the non-ASCII name is not a
    # package name the pattern takes.
    hostile_registered = hostile + "sys.modules[name] = mod\n"
    assert [s.subject for s in python_scanner._stand_ins("stubs.py", hostile_registered)] == []
    registered = (
        "import sys\nsys.modules['triton'] = object()\n" + 'ok = importlib.util.find_spec("triton") is None\n'
    )
    found = [s for s in scan_python("stubs.py", registered) if s.kind == "stand-in"]
    assert [(s.subject, s.line) for s in found] == [("triton", 3)]


# transformers 5.24.0 integrations/integration_utils.py (lines 167-172 and 418-423, trimmed).
AZUREML_PROBE = """\
import importlib.util
import sys


def is_azureml_available():
    if importlib.util.find_spec("azureml") is None:
        return False
    if importlib.util.find_spec("azureml.core") is None:
        return False
    return importlib.util.find_spec("azureml.core.run") is not None


def _register(spec, datasets_modules):
    sys.modules[spec.name] = datasets_modules
"""


def test_availability_probe_beside_an_unrelated_registration_is_no_stand_in() -> None:
    # Twin: the name appears only in its probes; the sys.modules write is for another module.
    assert not [s for s in scan_python("integration_utils.py", AZUREML_PROBE) if s.kind == "stand-in"]
