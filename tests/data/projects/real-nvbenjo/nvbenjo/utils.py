from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
import time
import typing as ty
from contextlib import AbstractContextManager, contextmanager, nullcontext
from enum import Enum

import pandas as pd
import pynvml
import torch
from omegaconf.dictconfig import DictConfig
from omegaconf.listconfig import ListConfig
from rich.progress import Progress

from . import console

_warned_device_fallback = False

BATCH_SIZE_IDENTIFIERS = ("B", "batch_size")
TRANSFER_WARNING = (
    "[yellow]Warning: Could not transfer model output to CPU. Time to CPU measures will be incorrect.[/yellow]"
)
DEVICE_FALLBACK_WARNING = (
    "[yellow]Warning: NVML could not attribute GPU memory to this process, reporting device-wide usage which "
    "includes any other GPU user. In a container, run with --pid=host for per-process numbers.[/yellow]"
)

SingleShape = tuple[int | str, ...] | dict[str, ty.Any]
MultiShape = tuple[SingleShape, ...]
Shape = SingleShape | MultiShape
TensorLike = torch.Tensor | tuple[torch.Tensor, ...] | dict[str, torch.Tensor]
ProviderType = str | tuple[str, dict[ty.Any, ty.Any]]

EXAMPLE_VALID_SHAPES: list[Shape] = [
    ("B", 3, 224, 224),
    (("B", 3, 224, 224), ("B", 10)),
    ({"name": "input1", "type": "float", "shape": ("B", 3, 224, 224), "min_max": (0, 1)},),
    (
        {"name": "input1", "type": "float", "shape": ("B", 3, 224, 224), "min_max": (0, 1)},
        {"name": "input2", "type": "int", "shape": (1, 3)},
        {"name": "input3", "type": "int", "shape": (), "value": 42},
    ),
]

AMP_PREFIX = "amp"


class NoBatchShapeError(ValueError):
    pass


class PrecisionType(Enum):
    AMP = f"{AMP_PREFIX}"
    AMP_FP16 = f"{AMP_PREFIX}_fp16"
    AMP_BFLOAT16 = f"{AMP_PREFIX}_bfloat16"
    FP32 = "fp32"
    FP16 = "fp16"
    BFLOAT16 = "bfloat16"
    FP8_E4M3FN = "fp8_e4m3fn"
    FP8_E5M2 = "fp8_e5m2"
    LONG = "long"


class CompileMode(Enum):
    TORCH_COMPILE = "torch_compile"
    AOT_COMPILE = "aot_compile"
    NONE = "none"


def format_num(num: float, bytes: bool = False) -> str | None:
    """Scale bytes to its proper format, e.g. 1253656 => '1.20MB'"""
    if num is None:
        return num
    factor = 1024 if bytes else 1000
    suffix = "B" if bytes else ""
    for unit in ["", " K", " M", " G", " T", " P"]:
        if num < factor:
            return f"{num:.2f}{unit}{suffix}"
        num /= factor


def format_seconds(time_seconds: float) -> str:
    if time_seconds > 1:
        return f"{time_seconds:.3f} s"
    else:
        time_ms = time_seconds * 1000
        if time_ms > 1:
            return f"{time_ms:.3f} ms"
        else:
            time_us = time_ms * 1000
            return f"{time_us:.3f} us"


def _get_rnd(
    shape_tuple: tuple[int], dtype: str | None, min_val: int, max_val: int, value: ty.Any | None = None
) -> torch.Tensor:
    if dtype is None or any(s in dtype for s in ["float", "double"]):
        dtype = dtype if dtype is not None else "float32"
        if value is not None:
            if isinstance(value, (ListConfig, list)):
                rnd = torch.tensor(value, dtype=getattr(torch, dtype)).expand(shape_tuple)
            else:
                rnd = torch.full(size=shape_tuple, fill_value=value, dtype=getattr(torch, dtype))
        else:
            rnd = torch.distributions.Uniform(min_val, max_val).sample(shape_tuple).to(dtype=getattr(torch, dtype))
    elif any(s in dtype for s in ["int", "long"]):
        if value is not None:
            if isinstance(value, (ListConfig, list)):
                rnd = torch.tensor(value, dtype=getattr(torch, dtype)).expand(shape_tuple)
            else:
                rnd = torch.full(size=shape_tuple, fill_value=value, dtype=getattr(torch, dtype))
        else:
            rnd = torch.randint(low=int(min_val), high=int(max_val), size=shape_tuple, dtype=getattr(torch, dtype))
    else:
        raise ValueError(f"Invalid dtype {dtype}. Must be one of int, long, float, double")
    return rnd


def _check_shape_dict(si: dict | DictConfig) -> None:
    if "name" not in si:
        raise ValueError(f"The shape definition {si} must contain a 'name' key.")
    if "dtype" in si:
        raise ValueError("The 'dtype' is not valid. Did you mean 'type'?")
    if "shape" not in si:
        raise ValueError(f"The shape definition {si} must contain a 'shape' key.")
    for k in si:
        if k not in ["name", "type", "shape", "min_max", "value"]:
            raise ValueError(f"Invalid key {k} in shape definition {si}.")
    if "min_max" in si and "value" in si:
        raise ValueError(f"Invalid shape definition {si} can only specify min_max or value.")


def get_rnd_from_shape_s(
    shape: Shape, batch_size: int, dtype=None, min_val=0, max_val=1
) -> tuple[TensorLike, dict[str, bool]]:
    try:
        depends_on_batch = False
        set_individual_types = {}

        def _get_rnd_batch(shape_tuple):
            if any(s in shape_tuple for s in BATCH_SIZE_IDENTIFIERS):
                nonlocal depends_on_batch
                depends_on_batch = True
            return tuple(batch_size if s in BATCH_SIZE_IDENTIFIERS else s for s in shape_tuple)

        if not isinstance(shape, dict) and all(isinstance(si, (str, int)) for si in shape):
            # simple shape e.g. (B, 3, 224, 224)
            rnd_input = _get_rnd(shape_tuple=_get_rnd_batch(shape), dtype=dtype, min_val=min_val, max_val=max_val)
        elif all(isinstance(si, (tuple, list, ListConfig)) for si in shape):
            # tuple of shapes e.g. ((B, 3, 224, 224), (B, 10))
            rnd_input = tuple(
                _get_rnd(_get_rnd_batch(si), dtype=dtype, min_val=min_val, max_val=max_val) for si in shape
            )
        elif all(isinstance(si, (dict, DictConfig)) for si in shape):
            rnd_input = {}
            for si in shape:
                # check is redundant but helps type checker
                if not isinstance(si, (dict, DictConfig)):
                    raise TypeError(f"Shape item {si} must be of type dict.")

                # name='input', type='float', shape=['B', 320000, 1], min_max=(0, 1)
                _check_shape_dict(si)
                name = si["name"]
                set_individual_types[name] = "type" in si

                rnd_input[name] = _get_rnd(
                    shape_tuple=_get_rnd_batch(si["shape"]),
                    dtype=si.get("type", dtype),
                    min_val=si.get("min_max", (min_val, max_val))[0],
                    max_val=si.get("min_max", (min_val, max_val))[1],
                    value=si.get("value", None),
                )
        else:
            raise ValueError(
                f"Invalid shape {shape}.\n "
                "Example valid inputs:\n " + "\n - ".join([str(s) for s in EXAMPLE_VALID_SHAPES])
            )

        if not depends_on_batch:
            raise NoBatchShapeError(
                f"Shape {shape} does not depend on batch size. "
                f"Please ensure that the shape contains an identifier for the batch size: {BATCH_SIZE_IDENTIFIERS}."
            )
    except NoBatchShapeError:
        raise
    except Exception as e:
        raise ValueError(
            f"Failed to generate random input from shape {shape} with batch size {batch_size}. "
            f"Please ensure that the shape is valid.\n"
            + "Example valid inputs:\n "
            + "\n - ".join([str(s) for s in EXAMPLE_VALID_SHAPES])
        ) from e

    return rnd_input, set_individual_types


def calculate_batchmetrics(
    results: pd.DataFrame, custom_batchmetrics: dict[str, float], timing_basis: str = "total"
) -> pd.DataFrame:
    """Calculate custom batch metrics and add them to the results DataFrame.

    Parameters
    ----------
    results : pd.DataFrame
        The benchmark results DataFrame.
    custom_batchmetrics : dict[str, float]
        Dictionary of custom batch metrics to calculate. The key is the metric name and the value is the multiplier.
    timing_basis : str, optional
        Which batch-normalized time the metrics are divided by: 'total' (including data transfer
        to and from the device) or 'inference' (device time only), by default 'total'

    Returns
    -------
    pd.DataFrame
        The updated results DataFrame with custom batch metrics added.
    """
    for metric_name, value in custom_batchmetrics.items():
        results[metric_name] = value / results[f"time_{timing_basis}_batch_normalized"]
    return results


def device_ctxt(device: torch.device) -> AbstractContextManager:
    """Make ``device`` the current CUDA device for the duration of the block.

    Torch CUDA calls that take an optional ``device`` — recording an event, ``synchronize``,
    ``current_stream``, CUDA graph capture — fall back to ``torch.cuda.current_device()``
    A no-op for non-CUDA devices.
    """
    if device.type != "cuda":
        return nullcontext()
    return torch.cuda.device(device)


@contextmanager
def progress_task(progress: Progress | None, task_name: str, **kwargs):
    if progress is None:
        yield None
    else:
        task = progress.add_task(task_name, **kwargs)
        try:
            yield task
        finally:
            progress.remove_task(task)


def load_extra_imports(entries: ty.Iterable[str]) -> None:
    """Load modules, Python files or compiled op libraries, e.g. to register custom ops before models load.

    Parameters
    ----------
    entries : Iterable[str]
        Module names (``mypkg.ops``), Python files (``./my_ops.py``) or shared libraries
        (``./libmyops.so``, loaded via ``torch.ops.load_library``).
    """
    for entry in entries:
        path = os.path.expanduser(entry)
        try:
            if path.endswith(".so"):
                torch.ops.load_library(path)
            elif path.endswith(".py"):
                name = f"nvbenjo_extra_{os.path.splitext(os.path.basename(path))[0]}"
                spec = importlib.util.spec_from_file_location(name, path)
                if spec is None or spec.loader is None:
                    raise ImportError(f"Can't create a module spec for {path}")
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
            else:
                importlib.import_module(entry)
        except Exception as e:
            raise ImportError(f"Failed to load extra_imports entry '{entry}': {e}") from e


def warn_if_gpus_busy(devices: ty.Iterable[str], max_utilization: int = 5) -> None:
    """Warn if a CUDA device is already busy before benchmarking starts.

    Other workloads on the same GPU inflate the measured timings.
    """
    if not torch.cuda.is_available():
        return
    # pass explicit indices, resolving a bare "cuda" via torch would create a CUDA context
    indices = sorted({torch.device(d).index or 0 for d in devices if torch.device(d).type == "cuda"})
    for index in indices:
        try:
            utilization = torch.cuda.utilization(index)
        except Exception:  # noqa: BLE001 - NVML may be missing or unsupported; skip the check
            return
        if utilization > max_utilization:
            console.print(
                f"[yellow]Warning: cuda:{index} is already at {utilization}% utilization. "
                "Timings may be inflated by other workloads.[/yellow]"
            )


def sample_gpu_memory(
    device: torch.device, stop_event: threading.Event, max_mem: list[int], sample_time_s: float = 0.010
):
    """Sample process-level GPU memory in a loop until stop_event is set.

    Uses pynvml to read per-process GPU memory, capturing all allocations
    including CUDA context, graph memory, compiled kernels, etc.

    NVML reports host PIDs, which never match ours inside a container. Only then
    do we fall back to device-wide usage, which also counts other GPU users.
    """
    global _warned_device_fallback

    if device.type != "cuda":
        max_mem[0] = -1
        return

    pynvml.nvmlInit()
    # a bare "cuda" carries no index -> resolve current one if needed
    device_index = device.index if device.index is not None else torch.cuda.current_device()
    try:
        # torch renumbers the GPUs in CUDA_VISIBLE_DEVICES, NVML always uses physical indices
        nvml_index = torch.cuda._get_nvml_device_index(device_index)
    except Exception:  # noqa: BLE001 - private torch helper (torch >= 2.1), fall back to the unmapped index
        nvml_index = device_index
    handle = pynvml.nvmlDeviceGetHandleByIndex(nvml_index)
    pid = os.getpid()

    device_mem = -1
    while not stop_event.is_set():
        for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
            if proc.pid == pid:
                mem = proc.usedGpuMemory
                if isinstance(mem, int) and mem > max_mem[0]:
                    max_mem[0] = mem
                break
        if max_mem[0] < 0:
            device_mem = max(device_mem, pynvml.nvmlDeviceGetMemoryInfo(handle).used)
        time.sleep(sample_time_s)

    if max_mem[0] < 0:
        max_mem[0] = device_mem
        if not _warned_device_fallback:
            _warned_device_fallback = True
            console.print(DEVICE_FALLBACK_WARNING)
