import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from humming import dtypes
from humming.config import GemmType, LayerConfig, MmaType, SmemReuseMode
from humming.config.mma import (
    get_default_mma_type,
    get_register_budget_error,
)
from humming.tune.base import DeviceHeuristics
from humming.utils.smem import estimate_smem_size_layer


@dataclasses.dataclass(frozen=True, slots=True)
class DeviceProfile:
    name: str
    sm_version: int
    num_sms: int | None
    max_smem_size: int
    max_smem_per_sm: int | None = None
    max_threads_per_sm: int = 2048
    max_registers_per_sm: int = 64 * 1024

    def __post_init__(self) -> None:
        if self.num_sms is not None and self.num_sms <= 0:
            raise ValueError("num_sms must be positive")
        for name in ("max_smem_size", "max_threads_per_sm", "max_registers_per_sm"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if self.max_smem_per_sm is not None and self.max_smem_per_sm <= 0:
            raise ValueError("max_smem_per_sm must be positive")

    @property
    def resident_smem_size(self) -> int:
        if self.max_smem_per_sm is None:
            return self.max_smem_size
        return self.max_smem_per_sm


@dataclasses.dataclass(frozen=True, slots=True)
class TuningProblem:
    layer_config: LayerConfig
    shape_m: int
    gemm_type: GemmType
    device: DeviceProfile
    use_f16_accum: bool = False
    use_batch_invariant: bool = False
    use_m_major_input_scale: bool = False
    expert_probability_cv: float = DeviceHeuristics.expert_probability_cv

    def __post_init__(self) -> None:
        if self.shape_m <= 0:
            raise ValueError("shape_m must be positive")
        if self.layer_config.shape_n <= 0 or self.layer_config.shape_k <= 0:
            raise ValueError("layer N and K dimensions must be positive")

    def estimate_num_blocks_m(self, block_shape_m: int) -> int:
        if self.gemm_type == GemmType.DENSE or not self.layer_config.num_experts:
            return math.ceil(self.shape_m / block_shape_m)
        rows = DeviceHeuristics.get_expert_rows(
            self.layer_config, self.shape_m, self.gemm_type, self.expert_probability_cv
        )
        tiles = ((rows + block_shape_m - 1) // block_shape_m).sum(axis=1)
        return math.ceil(float(tiles.mean()))


@dataclasses.dataclass(frozen=True, slots=True)
class ScheduleCandidate:
    candidate_id: str
    block_shape: tuple[int, int, int]
    warp_shape: tuple[int, int, int]
    mma_type: MmaType | None = None
    wgmma_use_late_as: bool = False
    wgmma_split_issue_wait: bool = False
    use_stream_k: bool = True
    use_f16_accum: bool = False
    num_stages: int = 2
    producer_stage_unroll: int | None = None
    consumer_stage_unroll: int | None = None
    producer_registers: int | None = None
    num_ctas_per_sm: int = 1
    raster_group_m: int = 1
    multi_cast_size_a: int = 1
    use_warp_spec: bool = False
    use_tma: bool = False
    use_tma_c: bool | None = None
    smem_reuse_mode: SmemReuseMode = SmemReuseMode.ALL_STAGES
    _explicit_fields: frozenset[str] = dataclasses.field(default_factory=frozenset, repr=False)

    def __post_init__(self) -> None:
        if not self.candidate_id:
            raise ValueError("candidate_id must not be empty")
        for name in ("producer_stage_unroll", "consumer_stage_unroll"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 1):
                raise ValueError(f"{name} must be None or a positive integer")
        producer_registers = self.producer_registers
        if producer_registers is not None:
            is_valid = type(producer_registers) is int and 24 <= producer_registers <= 248
            if not is_valid or producer_registers % 8:
                raise ValueError("producer_registers must be None or a multiple of 8 between 24 and 248")
        if not self._explicit_fields:
            fields = (
                field.name
                for field in dataclasses.fields(self)
                if not field.name.startswith("_") and field.name != "candidate_id"
            )
            object.__setattr__(self, "_explicit_fields", frozenset(fields))

    @classmethod
    def from_config(
        cls,
        candidate_id: str,
        config: Mapping[str, Any],
    ) -> "ScheduleCandidate":
        if not candidate_id:
            raise ValueError("candidate_id must not be empty")
        if "block_shape" not in config or "warp_shape" not in config:
            raise ValueError("block_shape and warp_shape are required")

        known_fields = {
            field.name
            for field in dataclasses.fields(cls)
            if not field.name.startswith("_") and field.name != "candidate_id"
        }
        unknown_fields = set(config) - known_fields
        if unknown_fields:
            raise ValueError(f"unsupported candidate fields: {sorted(unknown_fields)}")
        use_tma = _config_bool(config, "use_tma", False)
        use_warp_spec = _config_bool(config, "use_warp_spec", False)
        return cls(
            candidate_id=candidate_id,
            mma_type=MmaType(config["mma_type"]) if config.get("mma_type") else None,
            block_shape=_positive_shape(config["block_shape"], "block_shape"),
            warp_shape=_positive_shape(config["warp_shape"], "warp_shape"),
            wgmma_use_late_as=_config_bool(config, "wgmma_use_late_as", False),
            wgmma_split_issue_wait=_config_bool(config, "wgmma_split_issue_wait", False),
            use_stream_k=_config_bool(config, "use_stream_k", True),
            use_f16_accum=_config_bool(config, "use_f16_accum", False),
            num_stages=_config_positive_int(config, "num_stages", 2),
            producer_stage_unroll=config.get("producer_stage_unroll"),
            consumer_stage_unroll=config.get("consumer_stage_unroll"),
            producer_registers=config.get("producer_registers"),
            num_ctas_per_sm=_config_positive_int(config, "num_ctas_per_sm", 1),
            raster_group_m=_config_positive_int(config, "raster_group_m", 1),
            multi_cast_size_a=_config_positive_int(config, "multi_cast_size_a", 1),
            use_warp_spec=use_warp_spec,
            use_tma=use_tma,
            use_tma_c=config.get("use_tma_c"),
            smem_reuse_mode=SmemReuseMode(config.get("smem_reuse_mode", SmemReuseMode.ALL_STAGES)),
            _explicit_fields=frozenset(config),
        )

    def to_config(self) -> dict[str, Any]:
        return {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(self)
            if field.name in self._explicit_fields
        }

    def get(self, name: str, default: Any = None) -> Any:
        if name in self._explicit_fields:
            return getattr(self, name)
        return default

    def with_updates(
        self,
        candidate_id: str | None = None,
        **updates: Any,
    ) -> "ScheduleCandidate":
        config = self.to_config()
        config.update(updates)
        return type(self).from_config(candidate_id or self.candidate_id, config)


@dataclasses.dataclass(frozen=True, slots=True)
class CandidateAnalysis:
    candidate: ScheduleCandidate
    hard_violations: tuple[str, ...]
    resource_violations: tuple[str, ...]
    num_math_threads: int
    num_load_threads: int
    num_threads: int
    smem_size: int
    num_output_tiles: int
    thread_smem_cta_limit: int
    waves: int | None

    @property
    def rejection_reasons(self) -> tuple[str, ...]:
        return self.hard_violations + self.resource_violations

    @property
    def launchable(self) -> bool:
        return not self.hard_violations

    @property
    def meets_resource_target(self) -> bool:
        return not self.resource_violations

    @property
    def legal(self) -> bool:
        """Compatibility alias for a launchable candidate at requested residency."""
        return self.launchable and self.meets_resource_target


@dataclasses.dataclass(frozen=True, slots=True)
class TuningDecision:
    problem: TuningProblem
    family: str
    selected: ScheduleCandidate
    considered: tuple[CandidateAnalysis, ...]
    reason: str

    def __post_init__(self) -> None:
        selected_analysis = next(
            (analysis for analysis in self.considered if analysis.candidate == self.selected),
            None,
        )
        if selected_analysis is None:
            raise ValueError("selected candidate must be present in considered analyses")
        if not selected_analysis.legal:
            raise ValueError("selected candidate must be legal")

    @property
    def selected_analysis(self) -> CandidateAnalysis:
        return next(analysis for analysis in self.considered if analysis.candidate == self.selected)

    def to_config(self) -> dict[str, Any]:
        return self.selected.to_config()


def _require_int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer")
    return value


def _require_shape(value: Any, name: str) -> tuple[int, int, int]:
    if not isinstance(value, tuple) or len(value) != 3:
        raise ValueError(f"{name} must be a three-dimensional tuple")
    if any(not isinstance(item, int) or isinstance(item, bool) for item in value):
        raise ValueError(f"{name} must contain integers")
    return value


def _positive_shape(value: Any, name: str) -> tuple[int, int, int]:
    shape = _require_shape(value, name)
    if any(size <= 0 for size in shape):
        raise ValueError(f"{name} dimensions must be positive")
    return shape


def _config_positive_int(config: Mapping[str, Any], name: str, default: int) -> int:
    value = _require_int(config.get(name, default), name)
    if value <= 0:
        raise ValueError(f"{name} must be positive")
    return value


def _config_bool(
    config: Mapping[str, Any],
    name: str,
    default: bool,
    *,
    allow_none: bool = False,
) -> bool:
    value = config.get(name, default)
    if value is None and allow_none:
        return default
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be a boolean")
    return value


def _is_power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


@dataclasses.dataclass(frozen=True, slots=True)
class _GeometryAnalysis:
    rejection_reasons: tuple[str, ...]
    ratios: tuple[int, int, int] | None


@dataclasses.dataclass(frozen=True, slots=True)
class _ExecutionAnalysis:
    rejection_reasons: tuple[str, ...]
    num_math_threads: int
    num_load_threads: int
    num_threads: int


@dataclasses.dataclass(frozen=True, slots=True)
class _ResourceAnalysis:
    hard_violations: tuple[str, ...]
    residency_violations: tuple[str, ...]
    smem_size: int
    num_output_tiles: int
    thread_smem_cta_limit: int
    waves: int | None


# Validate only invariants exercised by the migrated SM90 WGMMA policies.
def get_problem_rejection_reasons(
    layer_config: LayerConfig,
    mma_type: MmaType | None = None,
) -> tuple[str, ...]:
    reasons: list[str] = []
    input_group_size = layer_config.input_scale_group_size
    # A partial last input-scale group is allowed once K is padded to whole groups.
    is_padded_k_misaligned = bool(input_group_size) and layer_config.shape_k % input_group_size != 0
    if is_padded_k_misaligned and layer_config.shape_k != input_group_size:
        msg = f"shape_k={layer_config.shape_k} is not divisible by input scale group={input_group_size}"
        reasons.append(msg)
    mma_type = mma_type or get_default_mma_type(layer_config)
    if mma_type != MmaType.WGMMA:
        return tuple(reasons)
    if layer_config.a_dtype.num_bits != 16 and layer_config.as_dtype != dtypes.float32:
        reasons.append(f"WGMMA input scales must use float32 storage, got {layer_config.as_dtype}")
    if layer_config.is_block_weight_scale and layer_config.bs_dtype != dtypes.float32:
        reasons.append(f"WGMMA block weight scales must use float32 storage, got {layer_config.bs_dtype}")
    mma_k = 256 // layer_config.a_dtype.num_bits
    scale_groups = (
        ("input scale group", layer_config.input_scale_group_size),
        ("weight scale group", layer_config.weight_scale_group_size),
    )
    for name, group_size in scale_groups:
        if group_size and group_size < mma_k:
            reasons.append(f"{name}={group_size} is smaller than MMA K={mma_k}")
    if 1 < layer_config.weight_scale_group_size_n < 64:
        reasons.append(f"weight scale N group={layer_config.weight_scale_group_size_n} is smaller than 64")
    if (
        layer_config.is_block_weight_scale
        and layer_config.input_scale_group_size
        and layer_config.input_scale_group_size != layer_config.weight_scale_group_size
    ):
        reasons.append("block input and weight scale groups must match")
    return tuple(reasons)


def _analyze_geometry(
    layer_config: LayerConfig,
    block_shape: tuple[int, int, int],
    warp_shape: tuple[int, int, int],
    mma_type: MmaType | None = None,
) -> _GeometryAnalysis:
    reasons: list[str] = []
    for name, shape in (("block_shape", block_shape), ("warp_shape", warp_shape)):
        if any(size <= 0 for size in shape):
            reasons.append(f"{name} dimensions must be positive: {shape}")
    if reasons:
        return _GeometryAnalysis(tuple(reasons), None)

    if layer_config.shape_n % block_shape[1]:
        reasons.append(f"shape_n={layer_config.shape_n} is not divisible by block_n={block_shape[1]}")
    if layer_config.shape_k % block_shape[2]:
        reasons.append(f"shape_k={layer_config.shape_k} is not divisible by block_k={block_shape[2]}")
    if block_shape[0] > 256:
        reasons.append(f"block_m={block_shape[0]} exceeds 256")
    for name, size in (
        ("block_n", block_shape[1]),
        ("block_k", block_shape[2]),
        ("warp_n", warp_shape[1]),
        ("warp_k", warp_shape[2]),
    ):
        if not _is_power_of_two(size):
            reasons.append(f"{name}={size} must be a power of two")
    if warp_shape[0] % 8:
        reasons.append(f"warp_m={warp_shape[0]} must be divisible by 8")
    if warp_shape[1] > 64:
        reasons.append(f"warp_n={warp_shape[1]} exceeds 64")
    if any(block % warp for block, warp in zip(block_shape, warp_shape, strict=True)):
        reasons.append(f"block_shape={block_shape} does not nest warp_shape={warp_shape}")
        ratios = None
    else:
        ratios = tuple(block // warp for block, warp in zip(block_shape, warp_shape, strict=True))
        if not all(_is_power_of_two(ratio) for ratio in ratios):
            reasons.append(f"block-to-warp ratios must be powers of two: {ratios}")

    min_warp_n = 32 if layer_config.a_dtype.num_bits == 16 else 16
    if warp_shape[1] < min_warp_n:
        reasons.append(f"warp_n={warp_shape[1]} is smaller than minimum {min_warp_n}")
    min_warp_k = {16: 32, 8: 64, 4: 128}[layer_config.a_dtype.num_bits]
    if layer_config.use_packed_k_layout and warp_shape[2] != 128:
        reasons.append("use_packed_k_layout requires warp_k=128")
    if warp_shape[2] < min_warp_k:
        reasons.append(f"warp_k={warp_shape[2]} is smaller than minimum {min_warp_k}")

    mma_type = mma_type or get_default_mma_type(layer_config)
    is_low_bit_mma = mma_type == MmaType.MMA and layer_config.a_dtype.num_bits < 16
    has_regular_group_scales = layer_config.is_group_weight_scale and not layer_config.use_fused_e8m0_scale
    uses_layout1 = has_regular_group_scales and not layer_config.should_apply_bs_on_c
    if is_low_bit_mma and uses_layout1 and block_shape[1] < 64:
        reasons.append("MMA group scales require block_n >= 64")
    if mma_type == MmaType.WGMMA and ratios is not None:
        if ratios[1] % 4:
            reasons.append(
                f"WGMMA requires the block-N tile to contain a multiple of four warp-N tiles: {ratios[1]}"
            )
        swizzle_bytes = 128 if layer_config.a_dtype.num_bits * block_shape[2] >= 1024 else 64
        max_warp_k = swizzle_bytes * 8 // layer_config.a_dtype.num_bits
        if warp_shape[2] > max_warp_k:
            reasons.append(f"warp_k={warp_shape[2]} exceeds WGMMA swizzle limit {max_warp_k}")
    return _GeometryAnalysis(tuple(reasons), ratios)


def get_geometry_rejection_reasons(
    layer_config: LayerConfig,
    block_shape: tuple[int, int, int],
    warp_shape: tuple[int, int, int],
) -> tuple[str, ...]:
    return _analyze_geometry(
        layer_config,
        block_shape,
        warp_shape,
    ).rejection_reasons


def _get_tile_rejection_reasons(
    problem: TuningProblem,
    schedule: ScheduleCandidate,
) -> tuple[str, ...]:
    reasons: list[str] = []
    for scale_name, group_size in (
        ("input scale group", problem.layer_config.input_scale_group_size),
        ("weight scale group", problem.layer_config.weight_scale_group_size),
    ):
        if group_size and group_size % schedule.block_shape[2] and schedule.block_shape[2] % group_size:
            reasons.append(f"block_k={schedule.block_shape[2]} and {scale_name}={group_size} do not nest")
    if schedule.multi_cast_size_a > 0 and problem.layer_config.shape_n % (
        schedule.block_shape[1] * schedule.multi_cast_size_a
    ):
        reasons.append(
            f"shape_n={problem.layer_config.shape_n} is not divisible by "
            f"block_n * multi_cast_size_a="
            f"{schedule.block_shape[1] * schedule.multi_cast_size_a}"
        )
    if problem.use_batch_invariant and (
        schedule.use_stream_k or schedule.block_shape[2] != schedule.warp_shape[2]
    ):
        reasons.append("batch-invariant schedules require direct output and one warp-K tile")
    return tuple(reasons)


def _analyze_execution(
    problem: TuningProblem,
    schedule: ScheduleCandidate,
    geometry: _GeometryAnalysis,
) -> _ExecutionAnalysis:
    reasons: list[str] = []
    num_math_threads = math.prod(geometry.ratios) * 32 if geometry.ratios is not None else 0
    num_load_threads = 128 if schedule.use_warp_spec else num_math_threads
    num_threads = num_math_threads + num_load_threads if schedule.use_warp_spec else num_math_threads
    if num_threads > 1024:
        reasons.append(f"num_threads={num_threads} exceeds the CTA limit 1024")
    if schedule.use_warp_spec and num_math_threads % 128:
        reasons.append(f"warp specialization requires a multiple of 128 math threads, got {num_math_threads}")
    mma_type = schedule.mma_type or get_default_mma_type(problem.layer_config)
    if num_math_threads:
        register_error = get_register_budget_error(
            problem.layer_config,
            schedule,
            problem.use_f16_accum or schedule.use_f16_accum,
            problem.device.max_registers_per_sm,
        )
        if register_error is not None:
            reasons.append(register_error)
    if mma_type == MmaType.WGMMA and schedule.num_stages < 3:
        reasons.append(f"WGMMA requires at least three stages, got {schedule.num_stages}")

    if schedule.multi_cast_size_a > 1:
        if problem.gemm_type != GemmType.DENSE:
            reasons.append("multicast requires a dense GEMM")
        if not schedule.use_warp_spec:
            reasons.append("multicast requires warp specialization")
        if not schedule.use_tma:
            reasons.append("multicast requires TMA")
    return _ExecutionAnalysis(
        rejection_reasons=tuple(reasons),
        num_math_threads=num_math_threads,
        num_load_threads=num_load_threads,
        num_threads=num_threads,
    )


def _analyze_resources(
    problem: TuningProblem,
    schedule: ScheduleCandidate,
    execution: _ExecutionAnalysis,
) -> _ResourceAnalysis:
    hard_violations: list[str] = []
    residency_violations: list[str] = []
    use_tma_c = schedule.use_tma if schedule.use_tma_c is None else schedule.use_tma_c
    use_tma_c = use_tma_c and problem.gemm_type != GemmType.INDEXED
    smem_size = estimate_smem_size_layer(
        problem.layer_config,
        schedule.block_shape,
        problem.gemm_type,
        schedule.num_stages,
        mma_type=schedule.mma_type or get_default_mma_type(problem.layer_config),
        warp_shape=schedule.warp_shape,
        smem_reuse_mode=schedule.smem_reuse_mode,
        use_tma=schedule.use_tma,
        use_warp_spec=schedule.use_warp_spec,
        use_tma_c=use_tma_c,
        raster_group_m=schedule.raster_group_m,
        use_m_major_input_scale=problem.use_m_major_input_scale,
        output_chunk_rows=0,
        mma_accum_bits=16 if problem.use_f16_accum else 32,
    )
    if smem_size > problem.device.max_smem_size:
        hard_violations.append(f"smem_size={smem_size} exceeds device limit {problem.device.max_smem_size}")

    num_output_tiles = 0
    if (
        problem.shape_m > 0
        and problem.layer_config.shape_n > 0
        and schedule.block_shape[0] > 0
        and schedule.block_shape[1] > 0
        and problem.layer_config.shape_n % schedule.block_shape[1] == 0
    ):
        num_output_tiles = (
            problem.layer_config.shape_n
            // schedule.block_shape[1]
            * problem.estimate_num_blocks_m(schedule.block_shape[0])
        )

    residency_limits: list[int] = []
    if execution.num_threads > 0:
        residency_limits.append(problem.device.max_threads_per_sm // execution.num_threads)
    if smem_size > 0:
        residency_limits.append(problem.device.resident_smem_size // smem_size)
    thread_smem_cta_limit = min(residency_limits, default=0)
    if thread_smem_cta_limit < schedule.num_ctas_per_sm:
        residency_violations.append(
            f"num_ctas_per_sm={schedule.num_ctas_per_sm} exceeds "
            "thread/SMEM residency "
            f"limit {thread_smem_cta_limit}"
        )

    waves = None
    if num_output_tiles > 0 and problem.device.num_sms is not None:
        waves = math.ceil(num_output_tiles / (problem.device.num_sms * schedule.num_ctas_per_sm))

    return _ResourceAnalysis(
        hard_violations=tuple(hard_violations),
        residency_violations=tuple(residency_violations),
        smem_size=smem_size,
        num_output_tiles=num_output_tiles,
        thread_smem_cta_limit=thread_smem_cta_limit,
        waves=waves,
    )


def analyze_candidate(
    problem: TuningProblem,
    candidate: ScheduleCandidate,
) -> CandidateAnalysis:
    geometry = _analyze_geometry(
        problem.layer_config,
        candidate.block_shape,
        candidate.warp_shape,
        candidate.mma_type,
    )
    execution = _analyze_execution(problem, candidate, geometry)
    resources = _analyze_resources(problem, candidate, execution)
    hard_violations = (
        get_problem_rejection_reasons(problem.layer_config, candidate.mma_type)
        + geometry.rejection_reasons
        + _get_tile_rejection_reasons(problem, candidate)
        + execution.rejection_reasons
        + resources.hard_violations
    )

    return CandidateAnalysis(
        candidate=candidate,
        hard_violations=hard_violations,
        resource_violations=resources.residency_violations,
        num_math_threads=execution.num_math_threads,
        num_load_threads=execution.num_load_threads,
        num_threads=execution.num_threads,
        smem_size=resources.smem_size,
        num_output_tiles=resources.num_output_tiles,
        thread_smem_cta_limit=resources.thread_smem_cta_limit,
        waves=resources.waves,
    )


def fit_pipeline_stages(
    problem: TuningProblem,
    candidate: ScheduleCandidate,
) -> ScheduleCandidate:
    while candidate.num_stages > 3:
        analysis = analyze_candidate(problem, candidate)
        fits_block = analysis.smem_size <= problem.device.max_smem_size
        fits_residency = analysis.smem_size * candidate.num_ctas_per_sm <= problem.device.resident_smem_size
        if fits_block and fits_residency:
            break
        candidate = candidate.with_updates(num_stages=candidate.num_stages - 1)
    return candidate
