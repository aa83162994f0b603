"""What a record bundle's ``manifest.json`` holds: msgspec models, torch-free.

A bundle is what ``envsnap.record`` writes on the known-good machine and ``envsnap.verify`` reads
on the new one: a directory (or one zip file with the same members at its root) of

- ``manifest.json``: this model (stats of every module output, taps, measurements, placement, the
  structure of the recorded inputs and outputs, and the size and sha256 of every other member);
- ``environment.yaml``: the envsnap snapshot of the recording machine (store's YAML), optional;
- ``inputs.safetensors``: the top-level calls' tensor inputs, always in full;
- ``activations.safetensors``: module outputs and taps kept within the size budget, and the final
  outputs in full;
- ``golden.safetensors``: the CPU float64 rerun's tensors within the same budget, optional.

No pickle anywhere: tensors are safetensors, everything else JSON or YAML.
Keys of a value: ``<module path>#<call index><output path>``, e.g. ``encoder.layers.3.attn#0`` for
a tensor output, ``encoder#1/0`` for the first item of a tuple output, ``tap:tokens#0`` for a tap.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from envsnap.snapshot.model import Model

BUNDLE_FORMAT: Literal["envsnap-record"] = "envsnap-record"
BUNDLE_SCHEMA = 1

MANIFEST = "manifest.json"
ENVIRONMENT = "environment.yaml"
INPUTS = "inputs.safetensors"
ACTIVATIONS = "activations.safetensors"
GOLDEN = "golden.safetensors"
MEMBERS = (MANIFEST, ENVIRONMENT, INPUTS, ACTIVATIONS, GOLDEN)
"""Every member a bundle may hold; anything else makes it hostile."""


class Stats(Model, frozen=True, kw_only=True):
    """Summary of one tensor, enough to compare it when the tensor itself was not kept."""

    shape: tuple[int, ...]
    dtype: str
    """torch dtype name without the prefix: "float32", "bfloat16"."""
    device: str
    """Device type it lived on ("cuda", "cpu", "meta")."""
    numel: int
    finite: int | None = None
    """Count of finite elements (None: no values, e.g. a meta tensor)."""
    nan: int | None = None
    posinf: int | None = None
    neginf: int | None = None
    min: float | None = None
    """Over finite elements."""
    max: float | None = None
    mean: float | None = None
    std: float | None = None
    l2: float | None = None
    sketch: tuple[float | None, ...] = ()
    """Values at evenly spaced flat positions (up to 64; None = not finite): compared elementwise
    when the tensor was not kept."""


class Leaf(Model, frozen=True, kw_only=True):
    """One tensor value recorded: a module output (or part of one), a tap, or a final output."""

    key: str
    """``path#call/output``; also its name in the safetensors files when kept."""
    stats: Stats
    kept: bool = False
    """Whether the tensor is in activations.safetensors."""
    golden: Stats | None = None
    """The CPU float64 rerun's value, summarized."""
    golden_kept: bool = False
    reference_vs_golden_rmse: float | None = None
    """RMSE of the recorded value against the float64 golden: the reference's own error."""
    noise_max_abs: float | None = None
    """Largest difference between two runs of the reference (None: not measured)."""
    noise_rmse: float | None = None


class Call(Model, frozen=True, kw_only=True):
    """One forward call of one module, in completion order."""

    key: str
    """``path#call``."""
    module: str
    """Module path (the outermost module by its class name)."""
    call: int
    type: str
    """Class name of the module."""
    device: str | None = None
    """Device of the module's first parameter or buffer, if any."""
    inputs_from: tuple[str, ...] = ()
    """Keys of the recorded values it took as inputs (values produced by earlier modules)."""
    outputs: tuple[Leaf, ...] = ()
    ops: tuple[str, ...] = ()
    """Signatures of the ATen ops its own code ran, in order (op_log.py; at most op_log.MAX_OPS)."""


class ModuleSig(Model, frozen=True, kw_only=True):
    """One module of the recorded model's tree: what structural matching lines up on verify."""

    path: str
    """Path in ``named_modules()`` of the model ("" for the model itself)."""
    type: str
    shapes: tuple[tuple[int, ...], ...] = ()
    """Shapes of the module's own parameters and buffers, in order."""


class Tap(Model, frozen=True, kw_only=True):
    """A value recorded with ``rec.tap(name, value)``."""

    name: str
    call: int
    leaves: tuple[Leaf, ...] = ()


Node = dict[str, Any]
"""A JSON description of a Python value: {"tensor": key} / {"list"|"tuple": [...]} /
{"dict": [[key, node], ...]} / {"value": scalar} / {"none": true} / {"opaque": type name}."""


class TopCall(Model, frozen=True, kw_only=True):
    """One call of the recorded model from outside any module: what was fed, what came out."""

    index: int
    args: tuple[Node, ...] = ()
    kwargs: tuple[tuple[str, Node], ...] = ()
    output: Node | None = None


class Timing(Model, frozen=True, kw_only=True):
    """Wall time of replaying every top-level call once, warm-up excluded, device synchronized."""

    repeats: int
    median_s: float
    iqr_s: float
    """Interquartile range, the spread torch.utils.benchmark reports."""
    min_s: float
    max_s: float
    samples_s: tuple[float, ...] = ()
    block_samples: int = 0
    """How many of the samples (the first ones) are the record block's own model calls, the hooks'
    time subtracted, counted because a replay agreed with them (block_clock.py)."""


class Measurements(Model, frozen=True, kw_only=True):
    """Speed, memory and placement of a run."""

    device: str
    """Device type the model ran on."""
    timing: Timing | None = None
    batch_size: int | None = None
    throughput_per_s: float | None = None
    """batch_size × calls / median time."""
    peak_memory_bytes: int | None = None
    """Peak allocated device memory during one replay (None where the device can't say: cpu)."""
    note: str | None = None
    """Why something was not measured."""


class Placement(Model, frozen=True, kw_only=True):
    """Where the ops ran, from the guard's accounting."""

    expected_device: str
    ops_total: int = 0
    ops_off_device: int = 0
    devices: dict[str, int] = msgspec.field(default_factory=dict)
    """Op count per device key."""
    off_device_modules: tuple[str, ...] = ()
    """Modules that ran ops off the expected device, worst first."""
    cpu_modules: tuple[str, ...] = ()
    """Modules whose own parameters or buffers live on the CPU while another device was expected."""
    findings: tuple[str, ...] = ()


class FileEntry(Model, frozen=True, kw_only=True):
    name: str
    size_bytes: int
    sha256: str


class Manifest(Model, frozen=True, kw_only=True):
    """The table of contents of a bundle. Field order is file order."""

    format: Literal["envsnap-record"]
    schema: int
    envsnap_version: str
    created_at: str
    torch_version: str
    model: str | None = None
    """Class name of the recorded model."""
    parameters: int | None = None
    keep_bytes: int
    """The size budget for kept activations."""
    kept_bytes: int = 0
    golden: str | None = None
    """"cpu-fp64" when a golden rerun was recorded."""
    calls: tuple[Call, ...] = ()
    taps: tuple[Tap, ...] = ()
    top_calls: tuple[TopCall, ...] = ()
    measurements: Measurements | None = None
    placement: Placement | None = None
    notes: tuple[str, ...] = ()
    modules: tuple[ModuleSig, ...] = ()
    """The model's module tree (empty in bundles written before it was recorded)."""
    numerics: dict[str, str] = msgspec.field(default_factory=dict)
    """The block's float32 math settings (numerics.py: TF32, matmul precision, determinism)."""
    files: tuple[FileEntry, ...] = ()
