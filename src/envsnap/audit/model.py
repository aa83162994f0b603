"""The audit's data: what scanners observe (signals), what they mean on a target (findings), the verdict.

Scanners emit *signals*: target-independent facts with their evidence ("line 12 calls ``.cuda()``",
"the snapshot has flash-attn 2.7.4 with sm_80/sm_90 kernels"). The judge turns each signal into a
*finding* for one target: what it means there, the effort to change it (none/low/medium/high,
SYCLomatic dpct's scale) and the replacement. Keeping the two apart means a project is scanned
once and judged for any number of targets (the TUI's target picker re-judges without rescanning).

Every structure is a frozen msgspec Struct; the JSON report is ``msgspec.to_builtins`` of
``AuditReport`` and its keys are API (docs/usage/audit.md).
"""

from __future__ import annotations

from typing import Literal

import msgspec

REPORT_SCHEMA = 1
"""Version of the ``envsnap audit --json`` document."""

Effort = Literal["none", "low", "medium", "high"]
Risk = Literal["lower", "moderate", "higher"]
Layer = Literal["framework", "packages", "extensions", "source", "artifacts"]
TargetKind = Literal["cuda", "rocm", "xpu", "mps", "cpu"]

EFFORTS: tuple[Effort, ...] = ("none", "low", "medium", "high")
RISKS: tuple[Risk, ...] = ("lower", "moderate", "higher")

LEGACY_FALLBACK = "legacy-fallback=1"
"""Signal detail: the line sits in the handler of an older torch's fallback (a ``try`` of torch's
device-generic API whose handlers catch only AttributeError/TypeError; python_shapes.legacy_fallback)."""
DEFAULT_ONLY = "default-only=1"
"""Signal detail: a device ladder that runs only where the caller gave no device (``if device is None:``, or
a function called only there; scanners.device_gates, across_files._default_pickers); on a ``device-call``,
that call of a possible ladder sits in such a place."""
OPTIONAL_DISTRIBUTION = "optional-distribution=1"
"""Signal detail: in a folder that is its own distribution, which the project installs only with an extra
(across_files._optional_distributions): the project runs without it."""
CUDA_SWITCH = "cuda-switch=1"
"""Signal detail: under ``if cuda:`` / ``if self.use_cuda:``, a boolean switch that is the project's way onto
a GPU (python_shapes.cuda_switch): off CUDA it can only be turned off."""
OPT_IN = "opt-in=1"
"""Signal detail: an import inside ``if <switch>:`` where the switch is a parameter that defaults to False,
or a module-level flag set to False (python_shapes.module_switches); on Triton inline asm, a ``tl.constexpr``
parameter off by default (scanners.python _Visitor._constexpr_switches)."""
ARRAY_SWITCH = "array-switch=1"
"""Signal detail: ``import cupy as cp`` in a module that binds ``cp`` to NumPy otherwise (``import numpy as
cp``, ``cp = np``): an array-module switch, whose GPU path is CuPy's alone (python _Visitor._import)."""
EXTRA_ONLY = "optional=1"
"""Signal detail: a requirement (or the import of a package) that only an optional extra installs (``pip
install project[flash]``): the project installs and runs without it (scanners.build, across_files)."""
ARRAY_LIBRARY = "array-library=1"
"""Signal detail: an unguarded module-level CuPy import in a project whose core code imports no PyTorch, JAX
or TensorFlow (scan._cupy_array_library): CuPy is the package's array library, not one backend of a model."""
OWN_COMPILER = "compiler=own"
"""Signal detail on a CUDA kernel string: the project's own NVRTC, nvcc or driver-API path compiles it
(python _Visitor._kernel_compiler), not CuPy (``CUPY_COMPILER``) or torch's cpp_extension
(``TORCH_COMPILER``), which have ROCm builds."""
CUPY_COMPILER = "compiler=cupy"
TORCH_COMPILER = "compiler=torch"
ADAPTER = "adapter=1"
"""Signal detail: an import inside a function of the project's own module for that package
(integrations/deepspeed.py), or in a function or class named after it (python _Visitor._adapter_for)."""
TRITON_ASM = "triton inline_asm_elementwise"
"""Subject of an ``inline-ptx`` signal from Triton's ``tl.inline_asm_elementwise`` (compiled per kernel by
Triton for the device it launches on; nothing hipifies it)."""
CLI_SWITCH = "cli-switch="
"""Signal detail prefix: an import inside ``if args.<name>:`` (or ``is not None``); scan._cli_switches makes
it OPT_IN where the project's argparse option of that name is off by default (no default, None,
store_true)."""
BUILT_MODULE = "module="
"""Signal detail prefix of a ``cuda-extension``: the module it builds (``CUDAExtension("name", ...)``)."""
CUDA_OR_CPU = "cuda-or-cpu=1"
"""Signal detail of a ``device-choices`` selection between CUDA and the CPU alone, bound to a name read
again (``device = "cuda" if torch.cuda.is_available() else "cpu"``): off CUDA the work runs on the CPU, the
GPU idle, unless the caller can pass a device (scan._caller_devices drops it where the project takes one)."""
UNREFERENCED = "unreferenced="
"""Signal detail prefix: Triton inline asm in a ``@triton.jit`` function (named after the ``=``) that no line
of its module names but the ``def``; scan._referenced_elsewhere drops it where another file names it."""
OFF_MPS = "off-mps=1"
"""Signal detail: a float64 dtype in the branch an MPS test leaves to the other devices (``torch.float32 if
is_mps else torch.float64``)."""

DTYPE_FALLBACK = "dtype-fallback=1"
"""Signal detail: a float64 dtype in a ``try`` whose handler catches the ``TypeError`` MPS raises for float64
and carries on (python_shapes.catches_dtype_refusal): the code falls back to another dtype there."""

DATASET = "dataset=1"
"""Signal detail: in a ``torch.utils.data.Dataset`` subclass, whose items a DataLoader builds on the CPU (in
its workers); the training loop moves the collated batch to the device."""

DATA_PARALLEL = "data-parallel=1"
"""Signal detail: the line sits in a class whose ``__init__`` wraps a module in ``nn.DataParallel`` (an opt-in
multi-GPU wrapper); a single-device run uses the plain module."""

MULTI_PROCESS = "multi-process=1"
"""Signal detail: the line sits in a function that calls a torch.distributed collective unconditionally, which
raises without a process group: only multi-process runs call it (python_shapes.calls_collective)."""

LAZY = "lazy=1"
"""Signal detail: an import inside a function body; the module loads without the package, only the function
that imports it needs it."""
USES = "uses="
"""Signal detail prefix: the line sits in a function that imports this package (its knowledge row's key)
inside its body: the package's code path (across_files marks it when the project does not install it)."""

SWALLOWED = "swallowed=1"
"""Signal detail: a just-in-time extension build inside a ``try`` whose handlers swallow its failure."""
TOLERATED = "tolerated=1"
"""Signal detail: a setup.py CUDA extension declared inside a ``try`` whose broad handler lets the install go
on without it (a path through the handler that does not raise)."""
OPTIONAL_BUILD = "optional-build=1"
"""Signal detail: every install-time CUDA extension of the project is TOLERATED (across_files):
its extensions and native sources are optional."""
IF_FLAG = "if-flag="
"""Signal detail prefix: the line sits in ``if NAME:`` where NAME is imported from another module;
across_files guards it when that name is a module-level device test there (``device-flag``)."""

TORCH_FIRST = "torch-first=1"
"""Signal detail on an ONNX Runtime CUDA provider: the project's core is PyTorch, ONNX Runtime a side
engine."""
FALLBACK_BUILD = "fallback-build=1"
"""Signal detail: a JIT build inside an ``except`` handler, the fallback of a build that failed."""
PASS_THROUGH = "pass-through="
"""Signal detail prefix (then the function's name): a JIT build whose sources are its function's parameter,
a project's wrapper of ``load``; the builds are the wrapper's calls, which name the sources (WRAPPED)."""
WRAPPED = "wrapped=1"
"""Signal detail: a call of a project's own function with CUDA ``sources=``: a JIT build through a wrapper."""
IS_CUDA_ASSERT = "Tensor.is_cuda"
"""The subject of an ``assert t.is_cuda`` signal (a ``cuda-api`` one, judged by judges.device)."""
NOT_ROCM_ASSERT = "assert not torch.version.hip"
NOT_ROCM_RAISE = "if torch.version.hip: raise"
"""cuda-api subject: the ``if`` form of NOT_ROCM_ASSERT, a branch taken on ROCm builds that only raises."""
WAVE64_REFUSED = "refuses 64-lane wavefronts"
"""cuda-api subject: ``if warp_size != 32: raise`` on the device's properties: the project turns away AMD GPUs
that run 64-lane wavefronts (CDNA, GCN)."""
CUDA_VERSION_PARSE = "torch.version.cuda parsed"
"""cuda-api subject: ``torch.version.cuda.split(".")`` or ``int(torch.version.cuda...)``, which raise on every
build without CUDA (torch.version.cuda is None there)."""
"""The subject of an ``assert torch.version.hip is None`` signal (``cuda-api``): the path stops on ROCm."""
AMP_PAIR = "amp-pair=1"
"""Signal detail on a CUDA ``GradScaler``: its file's autocast is CUDA's too, off (float32) without CUDA."""
SCALER_SWITCH = "scaler-switch=1"
"""Signal detail: a CUDA ``GradScaler``/``autocast`` whose ``enabled=`` is a value, not a constant: the
caller's mixed-precision switch decides whether it does anything."""
OPT_IN_PATH = "opt-in-path="
ALTERNATIVE = "alternative=1"
"""Signal detail: in a module the project loads only as one of two implementations (scan.py names them)."""
CONDITIONAL_CUDA = "cuda-language=conditional"
"""Detail of a ``cmake-cuda`` signal inside an ``if()`` that tests for CUDA or nvcc: the build goes on
without the CUDA language where the test fails."""
CPU_BUILD = "cpu-build=1"
"""Detail of a native CUDA source whose build goes on without CUDA where nvcc is missing
(across_files._cpu_builds)."""
DEVICE_CHOICE = "device-choice=1"
"""Beside ALTERNATIVE or TENSOR_DISPATCH: the choice tests the device or CUDA's presence (or a tensor's
``is_cuda``), which a ROCm torch answers as CUDA."""
TENSOR_DISPATCH = "tensor-dispatch=1"
"""Signal detail: a JIT build in a module that calls it only for CUDA tensors (``if x.is_cuda``) and runs its
torch path for the others (across_files._jit_only); a ROCm tensor is a CUDA one, so ROCm builds it."""
"""Signal detail prefix: the line sits in a function that imports this package, which the project never
installs (across_files._opt_in_paths): judges.judge lowers what it finds there."""

LAYERS: tuple[Layer, ...] = ("framework", "packages", "extensions", "source", "artifacts")


class _Struct(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of the audit structures: frozen and keyword-only."""


class Signal(_Struct, frozen=True, kw_only=True):
    """One target-independent observation, with the place it was made."""

    kind: str
    """What was seen, e.g. ``device-hardcode``, ``import``, ``inline-ptx`` (see judge.py)."""
    layer: Layer
    file: str | None = None
    """Path relative to the project (POSIX separators); None for environment signals."""
    line: int | None = None
    code: str = ""
    """The code or value seen, one line, shortened."""
    subject: str = ""
    """What the signal is about: a module (``flash_attn``), an API (``torch.cuda.synchronize``), a dtype."""
    guarded: bool = False
    """Inside an availability check or ``try/except ImportError``: the code has a way around it."""
    detail: tuple[str, ...] = ()
    """Extra facts (archs, dtypes, counts), each ``key=value``."""

    def facts(self) -> dict[str, str]:
        """``detail`` as a mapping."""
        return dict(item.split("=", 1) for item in self.detail if "=" in item)


class Skipped(_Struct, frozen=True, kw_only=True):
    """A file the scan did not read, and why (symlink, too large, unreadable, not parseable)."""

    file: str
    reason: str


class ScanResult(_Struct, frozen=True, kw_only=True):
    """Everything the file scanners saw under a project directory."""

    root: str
    signals: tuple[Signal, ...] = ()
    files_seen: int = 0
    files_parsed: int = 0
    """Files whose content was parsed (the rest had no trigger word, or were skipped)."""
    skipped: tuple[Skipped, ...] = ()


class Target(_Struct, frozen=True, kw_only=True):
    """The machine to migrate to, named precisely."""

    kind: TargetKind
    archs: tuple[str, ...] = ()
    """``gfx942``, ``sm_120`` or an XPU device (``pvc``); empty when not named."""
    version: str | None = None
    """ROCm or CUDA version (``6.4``, ``12.8``) when named."""
    label: str
    """As the user wrote it, or ``rocm:gfx90a@6.2 (from target.yaml)``."""
    driver: str | None = None
    """The NVIDIA driver version on the target (target snapshots): no build it cannot run is suggested."""
    snapshot: str | None = None
    """The target snapshot file it was read from, if any."""
    torch: str | None = None
    """The torch build installed on the target (target snapshots only), e.g. ``2.6.0+rocm6.2``."""
    devices: tuple[str, ...] = ()
    """Device names on the target (target snapshots only)."""


class Finding(_Struct, frozen=True, kw_only=True):
    """A signal judged for a target: where, what, what it means there, effort, replacement."""

    rule: str
    layer: Layer
    location: str
    """``file:line`` for files, a snapshot path (``packages[flash-attn]``) for the environment."""
    code: str
    meaning: str
    """What this means on the target, in one or two sentences."""
    effort: Effort
    risk: Risk
    replacement: str
    """What to use or do instead ("" when nothing needs to change)."""
    source: str | None = None
    """Where the knowledge comes from (a URL)."""
    role: str = "core"
    """Where the code sits: core, tests, examples, benchmarks, docs, scratch or vendored (audit/roles.py)."""
    count: int = 1
    """How many places in the same file this one finding stands for (repeated asm lines, imports)."""


class RollUpRow(_Struct, frozen=True, kw_only=True):
    """One line of the roll-up: a component or a kind of blocker, how many findings, one example."""

    name: str
    count: int
    risk: Risk
    rule: str
    example: str


class RollUp(_Struct, frozen=True, kw_only=True):
    """What blocks the migration, by component (folder) and by kind of blocker, most severe first."""

    components: tuple[RollUpRow, ...] = ()
    blockers: tuple[RollUpRow, ...] = ()
    more_components: int = 0
    more_blockers: int = 0


class ApiUse(_Struct, frozen=True, kw_only=True):
    """One CUDA API the project calls, and what HIPIFY's table says of it."""

    name: str
    library: str
    """The HIPIFY table it is in (``CUDA Runtime API``, ``cuBLAS / cuBLASLt``, ``cuDNN`` ...)."""
    status: Literal["supported", "deprecated", "unsupported"]
    """``deprecated``: HIP supports it, but marks its equivalent deprecated."""
    hip: str | None
    """The HIP/ROCm name hipify rewrites it to (None when unsupported)."""
    count: int
    """Calls, in all counted files."""
    where: tuple[str, ...] = ()
    """``file:line`` of the first calls (up to MAX_PLACES, over the first files)."""


class HipifyInventory(_Struct, frozen=True, kw_only=True):
    """What ``hipify-clang --examine`` would report for the project's C/C++/CUDA code (ROCm targets)."""

    used: int
    """Distinct CUDA APIs called that HIPIFY's tables list."""
    mapped: int
    """Of those, how many HIP supports (deprecated ones included): mechanical hipify work."""
    deprecated: int
    unsupported: int
    """How many have no HIP equivalent: blockers, each with its places."""
    apis: tuple[ApiUse, ...]
    """Unsupported first, then deprecated, then supported; most called first within each."""
    unknown: tuple[str, ...] = ()
    """CUDA-looking names the tables do not list (project helpers such as ``cudaCheck``, other libraries)."""
    sources: tuple[str, ...] = ()
    """The HIPIFY tables the answers come from (a URL per library used)."""


class Verdict(_Struct, frozen=True, kw_only=True):
    """The migration risk for one target, why, and what to do next."""

    risk: Risk
    reasons: tuple[str, ...]
    """The top reasons, most severe first."""
    checklist: tuple[str, ...]
    """Next steps, in order."""
    supported: tuple[str, ...] = ()
    """Evidence that the project already runs on the target (its own backend, build switch, branch)."""
    cuda_only: tuple[str, ...] = ()
    """Parts that stay CUDA-only even so (places with no path for the target)."""


class AuditReport(_Struct, frozen=True, kw_only=True):
    """The whole audit of one project and environment for one target."""

    schema: int = REPORT_SCHEMA
    target: Target
    project: str | None
    environment: str | None
    """Where the environment came from: a snapshot file, ``live``, or None (not audited)."""
    verdict: Verdict
    findings: tuple[Finding, ...]
    """Most severe first (risk, then effort), then by location."""
    files_seen: int = 0
    files_parsed: int = 0
    skipped: tuple[Skipped, ...] = ()
    rollup: RollUp = RollUp()
    """The findings that need a change, by component and by kind (the screenful before the details)."""
    not_counted: int = 0
    """Findings in tests, examples, benchmarks, docs, scratch or vendored code, left out of the verdict."""
    hipify: HipifyInventory | None = None
    """ROCm targets: the CUDA APIs the native code calls, mapped through HIPIFY's tables."""
