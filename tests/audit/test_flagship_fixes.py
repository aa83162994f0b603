"""Fixes from auditing a flagship multi-backend library (#22): Hugging Face transformers 5.24.0, documented
to run on AMD ROCm, Intel XPU and Apple MPS, which envsnap rated MODERATE on all three. Each excerpt is copied
(trimmed) from the transformers 5.24.0 wheel (Apache-2.0, https://github.com/huggingface/transformers); each
case keeps its twin, the nearest code where the finding is right, which must not change:

- ``is_deepspeed_zero3_enabled()``/``is_sagemaker_mp_enabled()`` test a feature the user turns on; so does a
  local bound to one (``needs_zero3_init = is_deepspeed_zero3_enabled() and ...``) or to
  ``getattr(self, "x", False)``;
- an import inside a function of the project's module named after the package (``integrations/deepspeed.py``,
  ``quantizer_bnb_4bit.py`` importing ``bitsandbytes as bnb``), or under a test naming the package
  (``"bitsandbytes" in str(optimizer_cls)``), is that integration's;
- ``x.device.type != "cuda" or torch.cuda...``: the CUDA call runs only on CUDA;
  ``get_current_accelerator() or torch.device("cuda")``: 'cuda' only where there is no accelerator;
  ``if provider in ("CUDAExecutionProvider", ...)`` branches on ONNX Runtime's device;
  ``A if is_torch_greater_or_equal_than_2_7 else torch.cuda.Stream()`` is an older torch's branch;
  ``if self.offloading:`` set from an off-by-default ``__init__`` parameter is an opt-in;
  ``len(torch.cuda.default_generators) > 0`` counts CUDA devices;
- ``.cuda(qtensor, meta=...)`` is another API's method; ``.cuda()`` inside ``def cuda``/``def to`` forwards
  the caller's choice; a ``["nccl", "gloo", "xccl"]`` menu chooses nothing;
- float64: ``device is None or device.type != "mps"`` is false on MPS; a dtype table keyed by torch dtypes
  makes no tensor; ``x.cpu().double()`` and a factory with no ``device=`` (or one defaulting to "cpu") stay on
  the host;
- a module running a kernel it loads from the Hub (``lazy_load_kernel("deep-gemm")``) is an implementation
  picked on request: its CUDA plumbing runs only where that kernel was chosen.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_trigger import with_companions
from tests.audit.conftest import audit_files, raised

TARGETS = ["rocm:gfx942", "xpu", "mps"]


def signals(text: str, kind: str, path: str = "pkg/m.py") -> list[tuple[int | None, bool]]:
    """(line, guarded) of each ``kind`` signal of ``text``."""
    return [(s.line, s.guarded) for s in scan_python(path, text) if s.kind == kind]


def details(text: str, kind: str, path: str = "pkg/m.py") -> list[tuple[str, ...]]:
    return [s.detail for s in scan_python(path, text) if s.kind == kind]


# transformers 5.24.0 models/wav2vec2/modeling_wav2vec2.py (Wav2Vec2PositionalConvEmbedding, trimmed).
WAV2VEC2 = """\
from torch import nn


class Wav2Vec2PositionalConvEmbedding(nn.Module):
    def __init__(self, config):
        weight_norm = nn.utils.weight_norm
        if is_deepspeed_zero3_enabled():
            import deepspeed

            with deepspeed.zero.GatheredParameters(self.conv.weight, modifier_rank=0):
                self.conv = weight_norm(self.conv, name="weight", dim=2)
"""


def test_an_import_behind_a_feature_the_user_turns_on_is_an_opt_in(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"pkg/modeling_wav2vec2.py": WAV2VEC2}, "mps")
    assert raised(result) == set()
    assert "switch that is off by default" in result.findings[0].meaning
    # Twin: a test that names no feature switch leaves the import on the path.
    twin = WAV2VEC2.replace("is_deepspeed_zero3_enabled()", "weight_norm")
    assert "cuda-only-import" in raised(
        audit_files(tmp_path / "t", {"pkg/modeling_wav2vec2.py": twin}, "mps")
    )


# transformers 5.24.0 modeling_utils.py (PreTrainedModel._from_config / num_parameters, trimmed).
ZERO3_LOCAL = """\
def get_init_context(cls, _is_quantized, _is_ds_init_called):
    init_contexts = []
    needs_zero3_init = is_deepspeed_zero3_enabled() and not _is_quantized and not _is_ds_init_called
    if needs_zero3_init:
        import deepspeed

        init_contexts.extend([deepspeed.zero.Init()])
    return init_contexts
"""
BNB_LOCAL = """\
def num_parameters(self, only_trainable=False, exclude_embeddings=False):
    is_loaded_in_4bit = getattr(self, "is_loaded_in_4bit", False)
    if is_loaded_in_4bit:
        import bitsandbytes as bnb

    total_params = 0
    return total_params
"""


@pytest.mark.parametrize("text", [ZERO3_LOCAL, BNB_LOCAL])
def test_a_local_bound_to_a_feature_switch_guards_its_branch(text: str) -> None:
    assert signals(text, "import") == [(5 if text is ZERO3_LOCAL else 4, True)]
    # Twin: the same local bound to a plain computation is no switch.
    value = (
        'getattr(self, "is_loaded_in_4bit", False)' if text is BNB_LOCAL else "is_deepspeed_zero3_enabled()"
    )
    twin = text.replace(value, "compute_flag()")
    assert [guarded for _, guarded in signals(twin, "import")] == [False]


# transformers 5.24.0 integrations/deepspeed.py (initialize_weights_zero3, trimmed).
DS_ADAPTER = """\
def initialize_weights_zero3(model):
    import deepspeed
    import torch

    for module in model.modules():
        with deepspeed.zero.GatheredParameters(list(module.parameters()), modifier_rank=0):
            model._initialize_weights(module)
"""
# transformers 5.24.0 quantizers/quantizer_bnb_4bit.py (Bnb4BitHfQuantizer.param_needs_quantization, trimmed).
BNB_ADAPTER = """\
class Bnb4BitHfQuantizer:
    def param_needs_quantization(self, model, param_name, **kwargs):
        import bitsandbytes as bnb

        module, name = get_module_from_name(model, param_name)
        return isinstance(module, bnb.nn.Linear4bit) and name != "bias"
"""


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("transformers/integrations/deepspeed.py", DS_ADAPTER),
        ("transformers/quantizers/quantizer_bnb_4bit.py", BNB_ADAPTER),
    ],
)
def test_an_import_in_the_projects_own_adapter_module_for_the_package(
    tmp_path: Path, path: str, text: str
) -> None:
    result = audit_files(tmp_path, {path: text}, "mps")
    assert raised(result) == set()
    assert "own module for that integration" in result.findings[0].meaning
    # Twin: the same function in a module named for something else is the main path.
    other = audit_files(tmp_path / "t", {"transformers/trainer_utils.py": text}, "mps")
    assert "cuda-only-import" in raised(other)


# transformers 5.24.0 trainer.py (Trainer.create_optimizer, trimmed).
TRAINER_BNB = """\
def create_optimizer(self, optimizer_cls, optimizer_kwargs):
    if "bitsandbytes" in str(optimizer_cls) and optimizer_kwargs.get("optim_bits", None) == 8:
        import bitsandbytes

        manager = bitsandbytes.optim.GlobalOptimManager.get_instance()
"""


def test_an_import_under_a_test_naming_the_package_is_the_users_choice() -> None:
    assert signals(TRAINER_BNB, "import") == [(3, True)]
    assert any("opt-in=1" in detail for detail in details(TRAINER_BNB, "import"))
    # Twin: a test naming something else does not choose the package.
    twin = TRAINER_BNB.replace('"bitsandbytes" in str(optimizer_cls) and ', "")
    assert signals(twin, "import") == [(3, False)]


# transformers 5.24.0 integrations/msa_attention.py (_validate_msa_inputs, trimmed).
MSA = """\
import torch


def validate(query):
    if query.device.type != "cuda" or torch.cuda.get_device_capability(query.device)[0] != 10:
        raise RuntimeError("MSA block-sparse attention requires an SM100 / Blackwell CUDA device.")
"""


def test_a_cuda_call_after_a_failed_not_cuda_test_in_an_or_runs_only_on_cuda() -> None:
    assert signals(MSA, "cuda-api") == [(5, True)]
    # Twin: after `== "cuda"` the call runs exactly off CUDA.
    assert signals(MSA.replace('!= "cuda"', '== "cuda"'), "cuda-api") == [(5, False)]


# transformers 5.24.0 models/bark/modeling_bark.py (BarkModel.enable_model_cpu_offload, trimmed).
BARK = """\
import torch


def enable_model_cpu_offload(self, accelerator_id=0):
    device_type = (get_current_accelerator() or torch.device("cuda")).type
    device = torch.device(f"{device_type}:{accelerator_id}")
    self.to(device)
"""


def test_cuda_as_the_fallback_of_an_accelerator_query_is_no_hard_coded_device() -> None:
    assert signals(BARK, "device-hardcode") == []
    # Twin: a fallback after a plain value still picks 'cuda' when that value is unset.
    twin = BARK.replace("get_current_accelerator()", "self.preferred")
    assert signals(twin, "device-hardcode") == [(5, False)]


# transformers 5.24.0 exporters/runners/runner_onnx.py (OnnxRunner.device, trimmed).
RUNNER = """\
import torch


class OnnxRunner:
    @property
    def device(self):
        provider, options = self.session.get_providers()[0], self.session.get_provider_options()
        if provider in ("CUDAExecutionProvider", "TensorrtExecutionProvider"):
            return torch.device("cuda", int(options[provider]["device_id"]))
        return torch.device("cpu")
"""


def test_a_branch_on_the_onnx_runtime_cuda_provider_guards_the_cuda_device() -> None:
    assert signals(RUNNER, "device-hardcode") == [(9, True)]
    twin = RUNNER.replace(
        '        if provider in ("CUDAExecutionProvider", "TensorrtExecutionProvider"):\n',
        "        if True:\n",
    )
    assert signals(twin, "device-hardcode") == [(9, False)]


# transformers 5.24.0 cache_utils.py (Cache.__init__ and Cache.update, trimmed).
CACHE = """\
import torch


class Cache:
    def __init__(self, layers=None, offloading: bool = False):
        self.offloading = offloading
        if self.offloading:
            self.prefetch_stream = (
                torch.Stream() if _is_torch_greater_or_equal_than_2_7 else torch.cuda.Stream()
            )

    def update(self, key_states, layer_idx):
        if self.offloading:
            torch.cuda.default_stream(key_states.device).wait_stream(self.prefetch_stream)
"""


def test_streams_of_an_off_by_default_feature_and_an_older_torchs_branch() -> None:
    assert signals(CACHE, "cuda-api") == [(9, True), (14, True)]
    # Twin: the same feature on by default is the path every cache takes.
    on = CACHE.replace("offloading: bool = False", "offloading: bool = True")
    assert signals(on, "cuda-api") == [(9, True), (14, False)]
    # Twin: the stream with no version test is made on every torch.
    plain = CACHE.replace(
        "torch.Stream() if _is_torch_greater_or_equal_than_2_7 else torch.cuda.Stream()",
        "torch.cuda.Stream()",
    )
    assert signals(plain, "cuda-api") == [(9, True), (14, True)]
    assert signals(plain.replace("= False", "= True"), "cuda-api") == [(9, False), (14, False)]


# transformers 5.24.0 models/reformer/modeling_reformer.py (ReverseSort._init_attention_seed, trimmed).
REFORMER = """\
import torch


def _init_attention_seed(self):
    if len(torch.cuda.default_generators) > 0:
        device_idx = torch.cuda.current_device()
        self.attention_seed = torch.cuda.default_generators[device_idx].seed()
    else:
        self.attention_seed = int(torch.seed() % sys.maxsize)
"""


def test_the_cuda_default_generators_count_cuda_devices() -> None:
    assert all(guarded for _, guarded in signals(REFORMER, "cuda-api"))
    twin = REFORMER.replace("    if len(torch.cuda.default_generators) > 0:\n", "    if True:\n")
    assert (6, False) in signals(twin, "cuda-api")


# transformers 5.24.0 cache_utils.py (QuantizedLayer._quantize with HQQ, trimmed).
HQQ = """\
def _quantize(self, tensor, axis):
    qtensor, meta = self.quantizer.quantize(tensor, axis=axis, device=self.keys.device)
    self.quantizer.cuda(qtensor, meta=meta, device=self.keys.device)
    return qtensor, meta
"""


def test_a_cuda_method_with_arguments_torch_does_not_take_is_another_api() -> None:
    assert signals(HQQ, "device-hardcode") == []
    twin = HQQ.replace(
        "self.quantizer.cuda(qtensor, meta=meta, device=self.keys.device)", "qtensor.cuda(device=0)"
    )
    assert signals(twin, "device-hardcode") == [(3, False)]


# transformers 5.24.0 models/esm/openfold_utils/rigid_utils.py (Rotation.cuda) and modeling_utils.py
# (PreTrainedModel.to with HQQLinear layers), trimmed.
CONTAINERS = """\
class Rotation:
    def cuda(self):
        if self._rot_mats is not None:
            return Rotation(rot_mats=self._rot_mats.cuda(), quats=None)
        return Rotation(rot_mats=None, quats=self._quats.cuda(), normalize_quats=False)


class Model:
    def to(self, *args, **kwargs):
        super().to(*args, **kwargs)
        for module in self.modules():
            device = args[0] if len(args) > 0 else kwargs.get("device")
            module.cuda(device)
        return self
"""


def test_cuda_inside_cuda_and_to_overrides_forwards_the_callers_choice() -> None:
    assert signals(CONTAINERS, "device-hardcode") == []
    twin = CONTAINERS.replace("def cuda(self):", "def forward(self):").replace(
        "def to(self,", "def move(self,"
    )
    assert signals(twin, "device-hardcode") == [(4, False), (5, False), (13, False)]


# transformers 5.24.0 training_args.py (TrainingArguments.ddp_backend, trimmed).
DDP_BACKEND = """\
from dataclasses import field

ddp_backend: str | None = field(
    default=None,
    metadata={
        "help": "The backend to use for distributed training.",
        "choices": ["nccl", "gloo", "mpi", "xccl", "hccl", "cncl", "mccl"],
    },
)
"""


def test_a_menu_of_backends_chooses_none(tmp_path: Path) -> None:
    for target in ("xpu", "mps"):
        result = audit_files(tmp_path, {"pkg/training_args.py": DDP_BACKEND}, target)
        assert "nccl-backend" not in raised(result), target
    # Twin: a process group started with NCCL is the choice made.
    twin = DDP_BACKEND + 'torch.distributed.init_process_group(backend="nccl")\n'
    result = audit_files(tmp_path / "t", {"pkg/training_args.py": twin}, "xpu")
    assert "nccl-backend" in raised(result)


# transformers 5.24.0 models/vit_mae/modeling_vit_mae.py (get_1d_sincos_pos_embed_from_grid, trimmed).
VIT_MAE = """\
import torch


def get_1d_sincos_pos_embed_from_grid(embed_dim, pos, device=None):
    compute_dtype = torch.float64 if device is None or device.type != "mps" else torch.float32
    omega = torch.arange(embed_dim // 2, dtype=compute_dtype, device=device)
    return omega
"""


def test_float64_where_no_device_or_not_mps_never_lands_on_mps(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"pkg/m.py": VIT_MAE}, "mps")
    assert raised(result) == set()
    twin = VIT_MAE.replace('device.type != "mps"', 'device.type != "cuda"')
    assert "float64-on-mps" in raised(audit_files(tmp_path / "t", {"pkg/m.py": twin}, "mps"))


# transformers 5.24.0 exporters/exporter_onnx.py (_TORCH_DTYPE_TO_ONNX, trimmed).
DTYPE_TABLE = """\
import torch

_TORCH_DTYPE_TO_ONNX = {
    torch.float32: onnx_ir.DataType.FLOAT,
    torch.float64: onnx_ir.DataType.DOUBLE,
    torch.float16: onnx_ir.DataType.FLOAT16,
    torch.bfloat16: onnx_ir.DataType.BFLOAT16,
}
"""


def test_a_table_keyed_by_torch_dtypes_makes_no_tensor() -> None:
    assert signals(DTYPE_TABLE, "float64") == []
    # Twin: a float64 value is what the table hands out (an upcast).
    twin = "import torch\n\nUPCAST = {torch.float16: torch.float64}\n"
    assert signals(twin, "float64") == [(3, False)]


# transformers 5.24.0 models/whisper/generation_whisper.py, models/inkling/processing_inkling.py and
# models/lasr/feature_extraction_lasr.py (trimmed).
HOST_FLOAT64 = """\
import torch


def align(matrix):
    return _dynamic_time_warping(-matrix.cpu().double().numpy())


def bins(dmel_min_value, dmel_max_value, num_dmel_bins):
    bins = torch.linspace(dmel_min_value, dmel_max_value, num_dmel_bins, dtype=torch.float64)
    return bins.to(torch.float32)


def fbank(self, waveform, device="cpu"):
    return torch.hann_window(self.win_length, periodic=False, device=device, dtype=torch.float64)
"""


def test_float64_made_on_the_host(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"pkg/m.py": HOST_FLOAT64}, "mps")
    assert raised(result) == set()
    twin = (
        HOST_FLOAT64.replace("matrix.cpu().double()", "matrix.double()")
        .replace("num_dmel_bins, dtype=torch.float64)", "num_dmel_bins, dtype=torch.float64, device=d)")
        .replace('device="cpu"', "device")
    )
    moved = audit_files(tmp_path / "t", {"pkg/m.py": twin}, "mps")
    found = {f.location for f in moved.findings if f.rule == "float64-on-mps"}
    assert found == {"pkg/m.py:5", "pkg/m.py:9", "pkg/m.py:14"}


# transformers 5.24.0 integrations/deepgemm.py (load_deepgemm_kernel and is_sm100, trimmed).
DEEPGEMM = """\
import torch

from .hub_kernels import lazy_load_kernel


def _load_deepgemm_kernel():
    kernel = lazy_load_kernel("deep-gemm")
    return kernel


def is_sm100() -> bool:
    return torch.cuda.get_device_capability()[0] >= 10
"""


def test_cuda_plumbing_of_a_kernel_loaded_from_the_hub(tmp_path: Path) -> None:
    for target in ("xpu", "mps"):
        result = audit_files(tmp_path, {"pkg/integrations/deepgemm.py": DEEPGEMM}, target)
        assert raised(result) == set(), target
    assert any("hub-kernel=1" in d for d in details(DEEPGEMM, "cuda-api"))
    twin = DEEPGEMM.replace('    kernel = lazy_load_kernel("deep-gemm")\n', "    kernel = None\n")
    assert "torch-cuda-api" in raised(
        audit_files(tmp_path / "t", {"pkg/integrations/deepgemm.py": twin}, "xpu")
    )


def test_companion_lines_join_only_triggered_files() -> None:
    flag = b'x = getattr(self, "a", False)\nif x:\n    pass\n'
    assert with_companions(flag, []) == []
    assert with_companions(flag, [3]) == [1, 3]


@pytest.mark.parametrize(
    "line",
    [
        b"getattr(" + b"a" * 1_000_000 + b", False)",
        b"getattr(" + b"(" * 200_000,
        b"is_" + b"x" * 1_000_000 + b"_enabled",
        b'getattr(x, "<script>\\x1b[31m", False)  # AKIAIOSFODNN7EXAMPLE',
    ],
)
def test_companion_pattern_on_hostile_lines(line: bytes) -> None:
    start = time.perf_counter()
    with_companions(line * 3 + b"\nimport torch.cuda\n", [4])
    assert time.perf_counter() - start < 2.0


def test_hostile_source_is_redacted_and_scanned() -> None:
    text = 'flag = getattr(self, "token=ghp_' + "a" * 36 + '", False)\nif flag:\n    import deepspeed\n'
    shown = [s.code for s in scan_python("pkg/m.py", text)]
    assert shown
    assert all("ghp_" + "a" * 36 not in code for code in shown)


# Found on the two sibling libraries checked for generality (accelerate 1.15.0, diffusers 0.42.1, Apache-2.0,
# https://github.com/huggingface/accelerate, https://github.com/huggingface/diffusers; excerpts trimmed).

# accelerate 1.15.0 accelerate/accelerator.py (Accelerator._prepare_deepspeed and get_state_dict, trimmed).
ACCEL_DS = """\
class Accelerator:
    def _prepare_deepspeed(self, *args):
        import deepspeed

        return deepspeed.initialize(*args)

    def get_state_dict(self, model):
        if self.distributed_type == DistributedType.DEEPSPEED:
            from deepspeed.checkpoint.utils import clone_tensors_for_torch_save

            return clone_tensors_for_torch_save(model.state_dict())
"""


def test_an_import_in_a_function_named_for_the_package_or_under_its_enum_member() -> None:
    assert [guarded for _, guarded in signals(ACCEL_DS, "import")] == [True, True]
    # Twin: the same imports in a function named for something else, under another member, are the path.
    twin = ACCEL_DS.replace("_prepare_deepspeed", "_prepare_engine").replace(".DEEPSPEED", ".FSDP")
    assert [guarded for _, guarded in signals(twin, "import")] == [False, False]


# accelerate 1.15.0 accelerate/utils/megatron_lm.py (the guarded imports and one step, trimmed).
MEGATRON = """\
import torch

from .imports import is_megatron_lm_available
from .operations import send_to_device

if is_megatron_lm_available():
    from megatron.core import mpu, tensor_parallel


class MegatronLMTrainStep:
    def get_batch(self, data_iterator):
        data = send_to_device(data, torch.cuda.current_device())
        return data
"""


def test_cuda_calls_of_the_projects_module_for_an_optional_package(tmp_path: Path) -> None:
    for target in ("xpu", "mps"):
        result = audit_files(tmp_path, {"accelerate/utils/megatron_lm.py": MEGATRON}, target)
        assert raised(result) == set(), target
    # Twin: the same code in a module named for something else is the main path.
    other = audit_files(tmp_path / "t", {"accelerate/utils/operations.py": MEGATRON}, "xpu")
    assert "torch-cuda-api" in raised(other)


# diffusers 0.42.1 guiders/adaptive_projected_guidance.py, models/controlnets/controlnet.py,
# utils/torch_utils.py, models/embeddings.py and models/controlnets/controlnet_z_image.py (trimmed).
DIFFUSERS = """\
import torch

_DTYPE_DOWNCAST = {torch.float64: torch.float32, torch.int64: torch.int32}


def normalized_guidance(diff, pred_cond):
    if diff.device.type in {"mps", "npu"}:
        v0, v1 = diff.cpu().double(), pred_cond.cpu().double()
    else:
        v0, v1 = diff.double(), pred_cond.double()
    return v0, v1


def time_embed(timestep, sample):
    dtype = maybe_adjust_dtype_for_device(
        torch.float64 if isinstance(timestep, float) else torch.int64, sample.device
    )
    grid = torch.from_numpy(make_grid()).to(torch.float64)
    freqs = 1.0 / (10000 ** (torch.arange(0, 8, 2, dtype=torch.float64, device="cpu") / 8))
    return dtype, grid, freqs
"""


def test_diffusers_float64_that_never_reaches_mps(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"pkg/m.py": DIFFUSERS}, "mps")
    assert raised(result) == set()
    twin = (
        DIFFUSERS.replace('{"mps", "npu"}', '{"cuda", "npu"}')
        .replace("maybe_adjust_dtype_for_device(", "pick_dtype(")
        .replace('device="cpu"', "device=sample.device")
    )
    moved = audit_files(tmp_path / "t", {"pkg/m.py": twin}, "mps")
    found = {f.location for f in moved.findings if f.rule == "float64-on-mps"}
    assert found == {"pkg/m.py:10", "pkg/m.py:16", "pkg/m.py:19"}
