"""The report of ``envsnap.verify``: verdict, first divergence, per-module checks, speed, placement,
environment diff. Plain data (msgspec), torch-free; ``to_yaml()`` through the live reports' safe
YAML helpers, read back with ``load_report`` (store's distrustful reader). Text renderings live in
render.py.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from envsnap.inprocess.bundle.model import Placement
from envsnap.snapshot.model import Change, Model

VERIFY_REPORT_SCHEMA = 1

Verdict = Literal["pass", "pass-with-limitations", "fail", "slow", "fallback"]
VERDICT_SEVERITY: dict[str, int] = {
    "pass": 0,
    "pass-with-limitations": 1,
    "slow": 2,
    "fallback": 3,
    "fail": 4,
}
"""Order for ``--fail-on``: a verdict fails the command when at least as severe as the level."""

ValueStatus = Literal["pass", "noisy", "golden-pass", "fail", "missing", "extra", "skipped"]
"""pass: within tolerance; noisy: outside it but within the reference's own run-to-run noise;
golden-pass: outside it but no worse than k× the reference's error against the fp64 golden;
fail; missing: recorded but not produced on the target; extra: produced but never recorded;
skipped: no values to compare (a meta tensor)."""


STATE_UNDER_CAST = "a training step's result under a cast"
"""Reason prefix of a state value (capture.Capture.state) that failed with the block under a cast."""
REPRESENTATION = "made in the parent's own code in another representation (not compared)"
"""The reason of a code value skipped for its representation (a bool mask where the reference had
an additive float one): verify/compare.py sets it, verify/judge.py counts it."""

CAST_MARK = "judged as a whole"
"""In the reason of a cast's value that passed on its error RMS although a few elements were past
the elementwise bound (verify/compare.py); verify/judge.py counts them."""
PADDED = "compared on the recorded length"
"""A value longer than recorded along one dimension, the extra positions all zeros (compare.py)."""
GOLDEN_HERE = "verify-side golden"
"""In the reason of a failed float32 value judged against a float64 run of the target's model made
by verify (verify/golden.py); verify/judge.py says what to do next from it."""
GOLDEN_CHANGED = "the reference is further from it than rounding explains: the function changed"
GOLDEN_LESS_PRECISE = "the target is further from it than float32 rounding"
GOLDEN_NOT_ALIKE = "neither side is as close to it as float32 rounding: it is not the run either side made"
"""Why a value failed against the verify-side golden: which side is far from it."""


class ValueMetrics(Model, frozen=True, kw_only=True):
    max_abs: float
    max_rel: float
    rmse: float
    cosine: float | None = None
    sqnr_db: float | None = None
    """20·log10(‖reference‖/‖target − reference‖); .inf when identical."""
    outside: int = 0
    """Elements beyond atol + rtol·|reference|."""
    compared: int = 0
    nonfinite_mismatch: int = 0


class ValueCheck(Model, frozen=True, kw_only=True):
    """One recorded tensor against the target's."""

    key: str
    status: ValueStatus
    reason: str | None = None
    basis: Literal["full", "sample", "none"] = "none"
    """full: against the kept tensor; sample: against the recorded sketch (tensor beyond the budget)."""
    shape: tuple[int, ...] = ()
    dtype: str = ""
    rtol: float = 0.0
    atol: float = 0.0
    tolerance_from: str = ""
    metrics: ValueMetrics | None = None
    noise_max_abs: float | None = None
    """The reference's own run-to-run difference for this value."""
    golden_ratio: float | None = None
    """Target RMSE vs golden / reference RMSE vs golden (the gate passes at ≤ k)."""
    cast: str | None = None
    """The target's dtype differs from the recorded one: "autocast to bfloat16 (recorded float32)"."""


class ModuleCheck(Model, frozen=True, kw_only=True):
    """One module call (``path#n``), in completion order."""

    key: str
    module: str
    call: int
    type: str = ""
    status: ValueStatus
    device: str | None = None
    """Device of the module's own tensors on the target."""
    reference_device: str | None = None
    inputs_from: tuple[str, ...] = ()
    untraced: int = 0
    """Tensor inputs no recorded value produced (made outside any module): never compared."""
    outputs: tuple[ValueCheck, ...] = ()


class Divergence(Model, frozen=True, kw_only=True):
    """Where the error is born: the first module call that fails while its inputs passed."""

    key: str
    module: str
    summary: str
    outputs: tuple[ValueCheck, ...] = ()
    inputs: tuple[ValueCheck, ...] = ()
    """The checks of the values it took as inputs (all passed, or it would not be the birth)."""


class Timings(Model, frozen=True, kw_only=True):
    median_s: float
    iqr_s: float
    repeats: int
    min_s: float | None = None
    """The fastest replay: the least disturbed by load on the machine (None: older reports)."""


class SpeedMemory(Model, frozen=True, kw_only=True):
    """Target against reference, side by side (ratios are target/reference)."""

    reference: Timings | None = None
    target: Timings | None = None
    latency_ratio: float | None = None
    """Fastest target replay / fastest reference replay (medians where minima are missing)."""
    reference_throughput_per_s: float | None = None
    target_throughput_per_s: float | None = None
    throughput_ratio: float | None = None
    reference_peak_memory_bytes: int | None = None
    target_peak_memory_bytes: int | None = None
    memory_ratio: float | None = None
    note: str | None = None


class RunSide(Model, frozen=True, kw_only=True):
    """One side of the comparison."""

    torch_version: str | None = None
    device: str | None = None
    envsnap_version: str | None = None
    fingerprint: str | None = None
    """The environment snapshot's fingerprint."""
    host: str | None = None
    numerics: dict[str, str] = msgspec.field(default_factory=dict)
    """Float32 math settings (TF32, matmul precision, determinism): numerics.py."""


class VerifyReport(Model, frozen=True, kw_only=True):
    """Everything one verify saw. Field order is file order."""

    report: Literal["envsnap-verify"]
    schema: int
    bundle: str
    created_at: str
    verdict: Verdict
    reasons: tuple[str, ...] = ()
    """The verdict in sentences, worst first."""
    limitations: tuple[str, ...] = ()
    first_divergence: Divergence | None = None
    counts: dict[str, int] = msgspec.field(default_factory=dict)
    """Value checks per status."""
    reference_noise_max_abs: float | None = None
    """Largest difference between two runs of the reference over all values (None: not measured)."""
    reference_noise_values: int = 0
    """How many recorded values the noise was measured on."""
    reference: RunSide
    target: RunSide
    speed: SpeedMemory | None = None
    placement: Placement | None = None
    reference_placement: Placement | None = None
    environment: tuple[Change, ...] = ()
    """Bundle snapshot → this machine (the existing layer-aware diff)."""
    environment_note: str | None = None
    module_match: str | None = None
    """How target modules were matched to recorded ones, when not by path (structure, rename=)."""
    inputs: tuple[ValueCheck, ...] = ()
    """The inputs fed, against the recorded ones."""
    modules: tuple[ModuleCheck, ...] = ()
    taps: tuple[ModuleCheck, ...] = ()

    def to_yaml(self) -> str:
        """The report as YAML text."""
        from envsnap.snapshot.yaml_text import dump_yaml

        return dump_yaml(self, f"envsnap verify report (schema {self.schema})")

    def table(self, max_modules: int = 25) -> str:
        """Readable plain text (no colors, no Rich)."""
        from envsnap.inprocess.verify.render import render_text

        return render_text(self, max_modules)

    def markdown(self) -> str:
        from envsnap.inprocess.verify.render import render_markdown

        return render_markdown(self)

    def __str__(self) -> str:
        return self.table()


def load_report(text: str, name: str) -> VerifyReport:
    """Parse a verify report's YAML (BadInput when it isn't one)."""
    import msgspec

    from envsnap.errors import BadInput
    from envsnap.snapshot.yaml_text import parse_yaml

    data = parse_yaml(text, name, infinite_floats=True)  # SQNR of identical outputs is infinite
    if not isinstance(data, dict) or data.get("report") != "envsnap-verify":
        raise BadInput(f"{name}: not an envsnap verify report (no `report: envsnap-verify`)")
    if isinstance(data.get("schema"), int) and data["schema"] > VERIFY_REPORT_SCHEMA:
        raise BadInput(f"{name}: verify report schema {data['schema']} is newer than this envsnap reads")
    from envsnap.snapshot.redact import redact_strings

    try:
        return msgspec.convert(redact_strings(data), VerifyReport)  # shown again: never a secret
    except msgspec.ValidationError as err:
        raise BadInput(f"{name}: not a valid verify report: {err}") from None
