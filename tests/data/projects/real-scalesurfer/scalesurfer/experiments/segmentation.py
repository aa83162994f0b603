"""Reproducible comparison of fast ``aparc+aseg`` prediction methods.

This module is intentionally a thin interoperability layer.  Each method is
run from the same conformed T1 source. ScaleSurfer consumes the immutable
tensor directly; external methods consume its canonical-grid NIfTI export.
Every final result occupies the reference grid and is written to
``outputs/<method>/<case>.nii.gz``.

The benchmark treats the held-out split manifest as immutable input.  Model
installation is kept separate in ``segmentation.sh`` so downloads are never
included in the reported runtime.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass
from hashlib import sha1
from importlib.metadata import PackageNotFoundError, version as package_version
import json
import os
from pathlib import Path
import platform
import shutil
import subprocess
import sys
from time import perf_counter
from typing import Iterable, Mapping, Sequence

import nibabel as nib
from nibabel.processing import resample_from_to
import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader, Dataset
from tqdm.auto import tqdm

from scalesurfer.convert import CONFORM_SHAPE
from scalesurfer.data import default_aparc_aseg_label_values
from scalesurfer.inference._models import (
    load_volume_model_config,
    load_volume_state_dict,
    normalize_fs_version,
    normalize_volume_dtype,
    resolve_volume_checkpoint_path,
)
from scalesurfer.models.volume import TransUNet3D
from scalesurfer.training.volume.splits import load_split_manifest, split_from_manifest


REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MANIFEST = REPO_ROOT / "docs/notebooks/01_volume/04_train_split_manifest.json"
DEFAULT_OUTPUT_ROOT = REPO_ROOT / "data/method_comparison"
DEFAULT_TOOL_ROOT = Path(__file__).resolve().parent / ".segmentation_tools"
DEFAULT_FS_LUT = REPO_ROOT / "FreeSurferColorLUT.txt"


def _write_csv_atomic(frame: pd.DataFrame, path: str | Path) -> None:
    """Replace a CSV only after its complete temporary file is on disk."""

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        frame.to_csv(temporary, index=False)
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise

# Canonical-RAS form of the conventional FreeSurfer 256^3, 1 mm conformed
# geometry.  Cached tensors are already stored in canonical RAS array order.
CONFORM_AFFINE = np.asarray(
    [
        [1.0, 0.0, 0.0, -127.0],
        [0.0, 1.0, 0.0, -128.0],
        [0.0, 0.0, 1.0, -127.0],
        [0.0, 0.0, 0.0, 1.0],
    ],
    dtype=np.float64,
)

APARC_ASEG_LABELS = tuple(int(v) for v in default_aparc_aseg_label_values())
FOREGROUND_LABELS = tuple(v for v in APARC_ASEG_LABELS if v != 0)

# SynthSeg's official segmentation and cortical-parcellation label arrays.
_SYNTHSEG_SUBCORTICAL = (
    2, 4, 5, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 24, 26, 28,
    41, 43, 44, 46, 47, 49, 50, 51, 52, 53, 54, 58, 60,
)
_SYNTHSEG_CORTICAL = tuple(
    value
    for hemisphere in (1000, 2000)
    for value in range(hemisphere + 1, hemisphere + 36)
    if value != hemisphere + 4
)
SYNTHSEG_LABELS = tuple(sorted({0, *_SYNTHSEG_SUBCORTICAL, *_SYNTHSEG_CORTICAL}))

# FastSurferCNN predicts a DKT parcellation.  DKT omits bankssts, frontal pole,
# temporal pole, and the non-anatomical aparc corpus-callosum cortical entry.
_FASTSURFER_CORTICAL = tuple(
    value
    for hemisphere in (1000, 2000)
    for value in range(hemisphere + 1, hemisphere + 36)
    if value not in {hemisphere + 1, hemisphere + 4, hemisphere + 32, hemisphere + 33}
)
_FASTSURFER_SUBCORTICAL = tuple(sorted({*_SYNTHSEG_SUBCORTICAL, 31, 63, 77}))
FASTSURFER_LABELS = tuple(sorted({0, *_FASTSURFER_SUBCORTICAL, *_FASTSURFER_CORTICAL}))

# BrainChop's DKatlas model returns the classifier channel number (uint8), not
# the FreeSurfer label ID.  The order below is the 104-entry order published in
# brainchop/v3/models/model21_104class/labels.json.  BrainChop documents the
# current 24-channel DKatlas as a drop-in replacement with the same label set.
# Keeping the conversion explicit makes an upstream class-order change fail
# loudly instead of producing a plausible-looking but invalid segmentation.
_BRAINCHOP_DKATLAS_CORTICAL = tuple(
    value
    for hemisphere in (1000, 2000)
    for value in range(hemisphere + 1, hemisphere + 36)
    if value != hemisphere + 4
)
_BRAINCHOP_DKATLAS_SUBCORTICAL = (
    10, 49, 11, 50, 12, 51, 13, 52, 17, 53, 18, 54, 26, 58, 28, 60,
    2, 41, 4, 5, 43, 44, 14, 15, 24, 16, 7, 46, 8, 47,
    251, 252, 253, 254, 255,
)
BRAINCHOP_DKATLAS_FS_IDS = (
    0,
    *_BRAINCHOP_DKATLAS_CORTICAL,
    *_BRAINCHOP_DKATLAS_SUBCORTICAL,
)
if len(BRAINCHOP_DKATLAS_FS_IDS) != 104:  # pragma: no cover - import-time invariant
    raise AssertionError("BrainChop DKatlas mapping must contain exactly 104 channels")
BRAINCHOP_DKATLAS_LABELS = tuple(sorted(set(BRAINCHOP_DKATLAS_FS_IDS)))

# These labels are absent, redefined, or strongly prevalence-shifted across
# the FreeSurfer 5/6/7/8 references used by the project.  They are retained in
# full-ontology diagnostics but excluded from manuscript common-ontology scores.
VERSION_INCONSISTENT_LABELS = (
    3, 24, 30, 31, 42, 62, 63, 72, 77, 80, 85, 1000, 2000,
)


@dataclass(frozen=True)
class ComparisonCase:
    """One immutable held-out image/reference pair."""

    case_id: str
    study: str
    image_tensor: Path
    reference_tensor: Path


@dataclass(frozen=True)
class MethodSpec:
    """Metadata needed to run and interpret one comparator."""

    name: str
    display_name: str
    description: str
    source_url: str
    supported_labels: tuple[int, ...] | None


METHOD_SPECS: dict[str, MethodSpec] = {
    "scalesurfer": MethodSpec(
        "scalesurfer",
        "ScaleSurfer",
        "ScaleSurfer.predict_volumes (FreeSurfer v7 label space)",
        "https://github.com/voytekresearch/scalesurfer",
        APARC_ASEG_LABELS,
    ),
    "fastsurfer": MethodSpec(
        "fastsurfer",
        "FastSurferCNN",
        "FastSurfer's segmentation-only VINN model (DKT aparc+aseg)",
        "https://github.com/Deep-MI/FastSurfer",
        FASTSURFER_LABELS,
    ),
    "brainchop": MethodSpec(
        "brainchop",
        "BrainChop DKatlas",
        "BrainChop's 104-channel DKatlas decoded to canonical FreeSurfer IDs",
        "https://github.com/neuroneural/brainchop-cli",
        BRAINCHOP_DKATLAS_LABELS,
    ),
    "synthseg": MethodSpec(
        "synthseg",
        "SynthSeg + parc",
        "SynthSeg with its cortical parcellation head",
        "https://github.com/BBillot/SynthSeg",
        SYNTHSEG_LABELS,
    ),
    "synthseg_robust": MethodSpec(
        "synthseg_robust",
        "SynthSeg+ (--robust, --parc)",
        "SynthSeg+'s robust hierarchical mode with cortical parcellation",
        "https://github.com/BBillot/SynthSeg",
        SYNTHSEG_LABELS,
    ),
}

DEFAULT_METHODS = tuple(METHOD_SPECS)


def common_ontology_labels(
    methods: Sequence[str] = DEFAULT_METHODS,
    *,
    exclude_version_inconsistent: bool = True,
) -> tuple[int, ...]:
    """Return one shared foreground ontology for every selected method."""

    unknown = sorted(set(methods) - set(METHOD_SPECS))
    if unknown:
        raise KeyError(f"Unknown methods: {unknown}")
    supported = []
    for method in methods:
        labels = METHOD_SPECS[method].supported_labels
        if labels is None:
            labels = APARC_ASEG_LABELS
        supported.append(set(int(value) for value in labels if int(value) != 0))
    common = set.intersection(*supported)
    if exclude_version_inconsistent:
        common.difference_update(VERSION_INCONSISTENT_LABELS)
    return tuple(sorted(common))


def _case_id(path: str | Path) -> tuple[str, str]:
    path = Path(path)
    study = next((part for part in path.parts if part.startswith("ds")), "unknown")
    subject = next((part for part in reversed(path.parts) if part.startswith("sub-")), path.parent.name)
    digest = sha1(str(path.resolve()).encode("utf-8")).hexdigest()[:8]
    return f"{study}__{subject}__{digest}", study


def load_test_cases(
    manifest_path: str | Path = DEFAULT_MANIFEST,
    *,
    limit: int | None = None,
) -> list[ComparisonCase]:
    """Load only the held-out test split; never discover or resplit data."""

    split = split_from_manifest(load_split_manifest(manifest_path))
    xs, ys = split["x_test"], split["y_test"]
    if len(xs) != len(ys):
        raise ValueError("The manifest has different numbers of test images and labels")
    if limit is not None:
        if int(limit) < 1:
            raise ValueError("limit must be positive or None")
        xs, ys = xs[: int(limit)], ys[: int(limit)]

    cases = []
    for x_path, y_path in zip(xs, ys):
        case_id, study = _case_id(x_path)
        cases.append(ComparisonCase(case_id, study, Path(x_path), Path(y_path)))
    return cases


def _load_tensor(path: Path) -> torch.Tensor:
    tensor = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"Expected a tensor in {path}")
    tensor = tensor.detach().squeeze().cpu()
    if tensor.ndim != 3:
        raise ValueError(f"Expected a 3D tensor in {path}; got {tuple(tensor.shape)}")
    return tensor


class _ScaleSurferBenchmarkDataset(Dataset):
    """Load the native 256^3 cache using the exact training-time transform."""

    def __init__(self, cases: Sequence[ComparisonCase]):
        self.cases = tuple(cases)

    def __len__(self) -> int:
        return len(self.cases)

    def __getitem__(self, item: int) -> tuple[int, torch.Tensor]:
        case = self.cases[int(item)]
        image = _load_tensor(case.image_tensor).to(torch.float32)
        if tuple(image.shape) != tuple(CONFORM_SHAPE):
            raise ValueError(
                f"{case.image_tensor}: expected conformed shape {tuple(CONFORM_SHAPE)}, "
                f"got {tuple(image.shape)}"
            )
        image = (image - image.mean()) / image.std().clamp_min(1e-6)
        # Training caches z-scored inputs as float16. Quantize here before the
        # batch is converted to the requested inference dtype on the device.
        return int(item), image.to(torch.float16).contiguous()


def case_paths(case: ComparisonCase, output_root: str | Path) -> dict[str, Path]:
    root = Path(output_root)
    case_root = root / "cases" / case.case_id
    return {
        "root": case_root,
        "image": case_root / "orig.nii.gz",
        "reference": case_root / "aparc+aseg.reference.nii.gz",
    }


def prediction_path(case: ComparisonCase, method: str, output_root: str | Path) -> Path:
    return Path(output_root) / "outputs" / method / f"{case.case_id}.nii.gz"


def materialize_case(
    case: ComparisonCase,
    output_root: str | Path = DEFAULT_OUTPUT_ROOT,
    *,
    overwrite: bool = False,
) -> dict[str, Path]:
    """Write a tensor-cache case as image/reference NIfTIs on one exact grid."""

    paths = case_paths(case, output_root)
    paths["root"].mkdir(parents=True, exist_ok=True)
    if overwrite or not paths["image"].exists():
        image = _load_tensor(case.image_tensor).numpy().astype(np.float32, copy=False)
        nib.save(nib.Nifti1Image(image, CONFORM_AFFINE), paths["image"])
    if overwrite or not paths["reference"].exists():
        reference = _load_tensor(case.reference_tensor).numpy().astype(np.int16, copy=False)
        ref_img = nib.Nifti1Image(reference, CONFORM_AFFINE)
        ref_img.set_data_dtype(np.int16)
        nib.save(ref_img, paths["reference"])
    return paths


def materialize_cases(
    cases: Sequence[ComparisonCase],
    output_root: str | Path = DEFAULT_OUTPUT_ROOT,
    *,
    overwrite: bool = False,
) -> pd.DataFrame:
    rows = []
    for case in cases:
        paths = materialize_case(case, output_root, overwrite=overwrite)
        rows.append({**asdict(case), **{key: str(value) for key, value in paths.items()}})
    return pd.DataFrame(rows)


def _tool_root() -> Path:
    return Path(os.environ.get("SCALESURFER_SEGMENTATION_TOOLS", DEFAULT_TOOL_ROOT)).expanduser()


def _first_executable(*candidates: str | Path | None) -> Path | None:
    for candidate in candidates:
        if candidate is None:
            continue
        text = str(candidate)
        resolved = shutil.which(text) if Path(text).parent == Path(".") else text
        if resolved and Path(resolved).is_file() and os.access(resolved, os.X_OK):
            return Path(resolved)
    return None


def _synthseg_bin() -> Path | None:
    fs_home = os.environ.get("FREESURFER_HOME")
    return _first_executable(
        os.environ.get("SYNTHSEG_BIN"),
        Path(fs_home) / "bin/mri_synthseg" if fs_home else None,
        "mri_synthseg",
    )


def _fastsurfer_python() -> Path | None:
    home = Path(os.environ.get("FASTSURFER_HOME", _tool_root() / "FastSurfer"))
    return _first_executable(home / ".venv/bin/python", sys.executable if (home / "FastSurferCNN").is_dir() else None)


def _brainchop_bin() -> Path | None:
    local_home = REPO_ROOT / "brainchop-cli"
    configured_home = Path(os.environ.get("BRAINCHOP_CLI_HOME", local_home)).expanduser()
    installed_home = _tool_root() / "brainchop-cli"
    return _first_executable(
        os.environ.get("BRAINCHOP_BIN"),
        configured_home / ".venv/bin/brainchop",
        installed_home / ".venv/bin/brainchop",
        "brainchop",
    )


def _brainchop_model_dir() -> Path:
    return Path(
        os.environ.get(
            "BRAINCHOP_DKATLAS_MODEL_DIR",
            _tool_root() / "brainchop-models/model24chan104cls_synth",
        )
    ).expanduser()


def resolve_benchmark_device(
    device: str | None = None,
    *,
    require_cuda: bool = False,
) -> str:
    """Return one explicit device shared by every benchmark backend.

    CUDA devices are canonicalized to ``cuda:<physical index>`` and validated
    with the project's PyTorch runtime. This prevents a requested GPU benchmark
    from silently becoming a mixture of GPU and CPU measurements.
    """

    requested = str(device or ("cuda:0" if torch.cuda.is_available() else "cpu")).lower()
    if requested == "cuda":
        requested = "cuda:0"
    if requested.startswith("cuda:"):
        try:
            index = int(requested.split(":", 1)[1])
        except ValueError as exc:
            raise ValueError(f"Invalid CUDA device: {device!r}") from exc
        if index < 0:
            raise ValueError(f"CUDA index must be non-negative: {device!r}")
        if not torch.cuda.is_available():
            raise RuntimeError("CUDA was requested, but torch.cuda.is_available() is false")
        if index >= torch.cuda.device_count():
            raise RuntimeError(
                f"CUDA device {index} was requested, but only {torch.cuda.device_count()} device(s) are visible"
            )
        return f"cuda:{index}"
    if requested != "cpu":
        raise ValueError("The shared comparison device must be 'cpu', 'cuda', or 'cuda:<index>'")
    if require_cuda:
        raise RuntimeError("This benchmark requires CUDA; a CPU fallback would make runtimes incomparable")
    return "cpu"


def _subprocess_device_env(device: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """Pin subprocess backends to the same physical CUDA device."""

    child_env = os.environ.copy() if env is None else env.copy()
    if device.startswith("cuda:"):
        # Once visibility is restricted, TensorFlow/tinygrad/FastSurfer all see
        # the selected physical device as their local device zero.
        child_env["CUDA_VISIBLE_DEVICES"] = device.split(":", 1)[1]
        # WSL exposes the real CUDA driver through /usr/lib/wsl/lib. A native
        # Linux libcuda installation can otherwise take precedence and report
        # zero devices to driver-API clients such as tinygrad and TensorFlow.
        wsl_driver = Path("/usr/lib/wsl/lib")
        if (wsl_driver / "libcuda.so.1").exists():
            existing = child_env.get("LD_LIBRARY_PATH", "")
            child_env["LD_LIBRARY_PATH"] = os.pathsep.join(
                part for part in (str(wsl_driver), existing) if part
            )
    elif device == "cpu":
        child_env["CUDA_VISIBLE_DEVICES"] = "-1"
    return child_env


def _synthseg_device_env(device: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """Add the CUDA 11 libraries required by FreeSurfer 8.2 TensorFlow 2.13."""

    child_env = _subprocess_device_env(device, env)
    if not device.startswith("cuda:"):
        return child_env
    root = Path(
        os.environ.get(
            "SYNTHSEG_CUDA_LIB_ROOT",
            _tool_root() / "synthseg-cuda-libs/nvidia",
        )
    ).expanduser()
    library_dirs = sorted(path for path in root.glob("*/lib") if path.is_dir())
    if library_dirs:
        existing = child_env.get("LD_LIBRARY_PATH", "")
        child_env["LD_LIBRARY_PATH"] = os.pathsep.join(
            [*(str(path) for path in library_dirs), existing]
            if existing
            else [str(path) for path in library_dirs]
        )
    return child_env


def _device_name(device: str) -> str:
    if device.startswith("cuda:"):
        return str(torch.cuda.get_device_name(int(device.split(":", 1)[1])))
    return "CPU"


def _synchronized_time(device: str) -> float:
    if device.startswith("cuda:"):
        torch.cuda.synchronize(int(device.split(":", 1)[1]))
    return perf_counter()


def method_availability(methods: Iterable[str] = DEFAULT_METHODS) -> pd.DataFrame:
    """Report local executability without downloading or changing anything."""

    rows = []
    for method in methods:
        if method not in METHOD_SPECS:
            raise KeyError(f"Unknown method: {method}")
        if method == "scalesurfer":
            path, note = Path(sys.executable), "installed package"
        elif method.startswith("synthseg"):
            path, note = _synthseg_bin(), "requires FreeSurfer's mri_synthseg"
        elif method == "fastsurfer":
            home = Path(os.environ.get("FASTSURFER_HOME", _tool_root() / "FastSurfer"))
            python = _fastsurfer_python()
            script = home / "FastSurferCNN/run_prediction.py"
            path = script if python is not None and script.exists() else None
            note = f"python={python}" if path else "run segmentation.sh --fastsurfer"
        elif method == "brainchop":
            path = _brainchop_bin()
            model_dir = _brainchop_model_dir()
            model_ready = all((model_dir / name).exists() for name in ("model.json", "model.pth"))
            if path is not None and not model_ready:
                path = None
            note = (
                f"custom model={model_dir}; class indices decoded to FreeSurfer IDs"
                if path else "run segmentation.sh --brainchop"
            )
        rows.append(
            {
                "method": method,
                "display_name": METHOD_SPECS[method].display_name,
                "available": path is not None,
                "path": None if path is None else str(path),
                "note": note,
            }
        )
    return pd.DataFrame(rows)


def accelerator_preflight(
    methods: Iterable[str] = DEFAULT_METHODS,
    *,
    device: str = "cuda:0",
) -> pd.DataFrame:
    """Verify that every selected method can see the requested accelerator."""

    methods = tuple(methods)
    resolved = resolve_benchmark_device(
        device,
        require_cuda=str(device).lower() != "cpu",
    )
    availability = method_availability(methods).set_index("method")
    rows: list[dict[str, object]] = []
    for method in methods:
        if not bool(availability.loc[method, "available"]):
            rows.append(
                {
                    "method": method,
                    "device": resolved,
                    "backend": "unavailable",
                    "accelerator_ready": False,
                    "detail": str(availability.loc[method, "note"]),
                }
            )
            continue
        if resolved == "cpu":
            rows.append(
                {
                    "method": method,
                    "device": resolved,
                    "backend": "CPU",
                    "accelerator_ready": True,
                    "detail": "explicit CPU benchmark",
                }
            )
            continue

        env = _subprocess_device_env(resolved)
        if method == "scalesurfer":
            rows.append(
                {
                    "method": method,
                    "device": resolved,
                    "backend": "PyTorch CUDA",
                    "accelerator_ready": True,
                    "detail": torch.cuda.get_device_name(int(resolved.split(":", 1)[1])),
                }
            )
            continue
        if method == "fastsurfer":
            executable = _fastsurfer_python()
            command = [
                executable,
                "-c",
                "import torch; assert torch.cuda.is_available(); "
                "print(torch.cuda.get_device_name(0))",
            ]
            backend = "FastSurfer PyTorch CUDA"
        elif method.startswith("synthseg"):
            synthseg = _synthseg_bin()
            executable = synthseg.parent / "fspython" if synthseg is not None else None
            env = _synthseg_device_env(resolved, env)
            command = [
                executable,
                "-c",
                "import tensorflow as tf; g=tf.config.list_physical_devices('GPU'); "
                "assert g, 'TensorFlow sees no GPU'; print(g[0].name)",
            ]
            backend = "SynthSeg TensorFlow CUDA"
        elif method == "brainchop":
            brainchop = _brainchop_bin()
            executable = brainchop.parent / "python" if brainchop is not None else None
            cache_db = Path(
                os.environ.get(
                    "BRAINCHOP_CACHEDB",
                    _tool_root() / "brainchop-cache/tinygrad/cache.db",
                )
            ).expanduser()
            cache_db.parent.mkdir(parents=True, exist_ok=True)
            env.update({"DEBUG": "0", "DEV": "CUDA", "CACHEDB": str(cache_db)})
            command = [
                executable,
                "-c",
                "from tinygrad import Device, Tensor; "
                "Tensor([1.0]).realize(); print(Device.DEFAULT)",
            ]
            backend = "BrainChop tinygrad CUDA"
        else:  # pragma: no cover - guarded by METHOD_SPECS
            raise AssertionError(f"No accelerator probe registered for {method}")

        if executable is None or not Path(executable).exists():
            return_code, detail = 127, f"probe executable not found: {executable}"
        else:
            result = subprocess.run(
                [str(part) for part in command],
                check=False,
                capture_output=True,
                text=True,
                env=env,
            )
            return_code = result.returncode
            detail = (result.stdout or result.stderr).strip().splitlines()[-1:]
            detail = detail[0] if detail else f"exit code {return_code}"
        rows.append(
            {
                "method": method,
                "device": resolved,
                "backend": backend,
                "accelerator_ready": return_code == 0,
                "detail": detail,
            }
        )
    return pd.DataFrame(rows)


def _run_command(
    command: Sequence[str | Path],
    log_path: Path,
    *,
    env: dict | None = None,
    cwd: str | Path | None = None,
) -> float:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    started = perf_counter()
    with log_path.open("w", encoding="utf-8") as log:
        result = subprocess.run(
            [str(part) for part in command],
            check=False,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=None if cwd is None else str(cwd),
        )
    elapsed = perf_counter() - started
    if result.returncode:
        raise RuntimeError(
            f"Command failed with exit code {result.returncode}; see {log_path}"
        )
    return elapsed


def _load_native_batch_timings(path: Path) -> list[dict]:
    """Load a runner sidecar containing native batch/subject durations."""

    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"Could not read native timing sidecar {path}") from exc
    batches = payload.get("batches") if isinstance(payload, dict) else None
    if not isinstance(batches, list) or not batches:
        raise RuntimeError(f"Native timing sidecar has no batches: {path}")
    return batches


def _subject_timing_rows(
    method: str,
    cases: Sequence[ComparisonCase],
    native_batches: Sequence[Mapping],
    *,
    elapsed_sec: float,
    device: str,
    device_name: str,
    batch_size: int,
    batch_dimension: str,
    timing_mode: str,
    native_is_inference: bool = True,
    extra: Mapping | None = None,
) -> list[dict]:
    """Expand independent native timings into one provenance row per subject.

    ``runtime_sec`` is the native batch duration per image. Runner-level
    overhead (model setup, final asynchronous writes, and standardization) is
    apportioned equally per image so the subject-weighted batch durations sum
    exactly to the measured end-to-end runtime. Only the first subject in each
    batch has ``timing_observation=True``; statistical summaries must use those
    independent observations rather than treating repeated subject rows as
    independent measurements.
    """

    expected = [case.case_id for case in cases]
    observed = [str(case_id) for batch in native_batches for case_id in batch["case_ids"]]
    if observed != expected:
        raise RuntimeError(
            f"{method} native timing cases do not match benchmark order: "
            f"expected {len(expected)}, observed {len(observed)}"
        )
    core_elapsed = [float(batch["elapsed_sec"]) for batch in native_batches]
    if any(value < 0 or not np.isfinite(value) for value in core_elapsed):
        raise RuntimeError(f"{method} returned an invalid native batch duration")
    elapsed_sec = float(elapsed_sec)
    if elapsed_sec < 0 or not np.isfinite(elapsed_sec):
        raise RuntimeError(f"{method} returned an invalid end-to-end duration")
    # Native work can be timed more finely than the outer wall clock. Clamp the
    # residual at zero, then normalize to retain the authoritative wall time.
    core_total = sum(core_elapsed)
    scale = min(1.0, elapsed_sec / core_total) if core_total > 0 else 1.0
    scaled_core = [value * scale for value in core_elapsed]
    inference_elapsed = [
        (
            float(batch.get("inference_elapsed_sec", batch["elapsed_sec"])) * scale
            if native_is_inference
            else np.nan
        )
        for batch in native_batches
    ]
    residual_per_subject = max(0.0, elapsed_sec - sum(scaled_core)) / len(cases)
    run_digest = sha1(
        f"{method}|{perf_counter()}|{'|'.join(expected)}".encode("utf-8")
    ).hexdigest()[:12]
    case_by_id = {case.case_id: case for case in cases}
    rows: list[dict] = []
    for batch_index, (batch, native_elapsed, batch_inference) in enumerate(
        zip(native_batches, scaled_core, inference_elapsed)
    ):
        case_ids = [str(value) for value in batch["case_ids"]]
        n_subjects = len(case_ids)
        if n_subjects < 1:
            raise RuntimeError(f"{method} returned an empty native timing batch")
        allocated_elapsed = native_elapsed + residual_per_subject * n_subjects
        per_image = allocated_elapsed / n_subjects
        inference_per_image = batch_inference / n_subjects if native_is_inference else np.nan
        batch_id = f"{method}-{run_digest}-{batch_index:04d}"
        for offset, case_id in enumerate(case_ids):
            if case_id not in case_by_id:
                raise RuntimeError(f"{method} timed unknown case {case_id!r}")
            is_observation = offset == 0
            row = {
                "method": method,
                "case_id": case_id,
                "prepare_sec": np.nan,
                "inference_sec": inference_per_image,
                "standardize_sec": residual_per_subject,
                "runtime_sec": per_image,
                "device": device,
                "device_name": device_name,
                "batch_size": batch_size,
                "batch_dimension": batch_dimension,
                "timing_mode": timing_mode,
                "timing_run_id": run_digest,
                "batch_index": batch_index,
                "batch_id": batch_id,
                "batch_n_subjects": n_subjects,
                "batch_native_elapsed_sec": native_elapsed if is_observation else np.nan,
                "batch_elapsed_sec": allocated_elapsed if is_observation else np.nan,
                "batch_inference_elapsed_sec": (
                    batch_inference if is_observation and native_is_inference else np.nan
                ),
                "timing_observation": is_observation,
                "status": "ok",
                "error": "",
            }
            if extra:
                row.update(extra)
            rows.append(row)
    return rows


def _standardize_prediction(raw_path: Path, reference_path: Path, output_path: Path) -> Path:
    predicted = nib.as_closest_canonical(nib.load(str(raw_path)))
    reference = nib.as_closest_canonical(nib.load(str(reference_path)))
    if predicted.shape[:3] != reference.shape[:3] or not np.allclose(predicted.affine, reference.affine):
        predicted = resample_from_to(predicted, reference, order=0)
    data = np.rint(np.asarray(predicted.dataobj)).astype(np.int16, copy=False)
    output_path.parent.mkdir(parents=True, exist_ok=True)
    out_img = nib.Nifti1Image(data, reference.affine, header=reference.header.copy())
    out_img.set_data_dtype(np.int16)
    nib.save(out_img, output_path)
    return output_path


def decode_brainchop_dkatlas(raw_path: str | Path, output_path: str | Path) -> Path:
    """Decode BrainChop DKatlas channel indices into FreeSurfer label IDs.

    BrainChop saves an argmax channel map in uint8.  This function validates
    every value before applying the published 104-class ordering and preserves
    the input image geometry.
    """

    raw_path = Path(raw_path)
    output_path = Path(output_path)
    image = nib.load(str(raw_path))
    values = np.asarray(image.dataobj)
    rounded = np.rint(values)
    if not np.allclose(values, rounded, rtol=0.0, atol=1e-5):
        raise ValueError(f"BrainChop output contains non-integer class values: {raw_path}")
    indices = rounded.astype(np.int64, copy=False)
    low = int(indices.min(initial=0))
    high = int(indices.max(initial=0))
    if low < 0 or high >= len(BRAINCHOP_DKATLAS_FS_IDS):
        raise ValueError(
            f"BrainChop DKatlas class index outside [0, 103]: min={low}, max={high}"
        )
    mapping = np.asarray(BRAINCHOP_DKATLAS_FS_IDS, dtype=np.int16)
    decoded = mapping[indices]
    output_path.parent.mkdir(parents=True, exist_ok=True)
    output = nib.Nifti1Image(decoded, image.affine, header=image.header.copy())
    output.set_data_dtype(np.int16)
    nib.save(output, output_path)
    return output_path


def _run_synthseg(
    cases: Sequence[ComparisonCase],
    output_root: Path,
    *,
    robust: bool,
    threads: int,
    device: str,
) -> dict:
    executable = _synthseg_bin()
    if executable is None:
        raise FileNotFoundError("mri_synthseg was not found; set SYNTHSEG_BIN or FREESURFER_HOME")
    method = "synthseg_robust" if robust else "synthseg"
    raw_dir = output_root / "raw" / method
    raw_dir.mkdir(parents=True, exist_ok=True)
    records = []
    for case in cases:
        paths = materialize_case(case, output_root)
        records.append((case, paths, raw_dir / f"{case.case_id}.nii.gz"))
    input_list = raw_dir / "inputs.txt"
    output_list = raw_dir / "outputs.txt"
    input_list.write_text(
        "".join(f"{paths['image']}\n" for _, paths, _ in records), encoding="utf-8"
    )
    output_list.write_text(
        "".join(f"{raw_path}\n" for _, _, raw_path in records), encoding="utf-8"
    )
    env = _synthseg_device_env(device)
    fs_home = Path(env.get("FREESURFER_HOME", executable.parent.parent))
    fspython = executable.parent / "fspython"
    synthseg_script = fs_home / "python/scripts/mri_synthseg"
    if not fspython.is_file() or not synthseg_script.is_file():
        raise FileNotFoundError(
            f"Could not locate fspython/SynthSeg script beside {executable}"
        )
    timing_sidecar = raw_dir / "native_timings.json"
    timing_sidecar.unlink(missing_ok=True)
    command = [
        fspython, Path(__file__).with_name("synthseg_batch.py"),
        "--timing-json", timing_sidecar, "--synthseg-script", synthseg_script,
        "--i", input_list, "--o", output_list, "--parc", "--keepgeom",
        "--threads", str(max(1, int(threads))),
    ]
    if robust:
        command.append("--robust")
    if device == "cpu":
        command.append("--cpu")
    started = perf_counter()
    _run_command(
        command,
        output_root / "logs" / method / "batch.log",
        env=env,
    )
    for case, paths, raw_path in records:
        if not raw_path.exists():
            raise RuntimeError(f"SynthSeg did not produce {raw_path}")
        _standardize_prediction(
            raw_path, paths["reference"], prediction_path(case, method, output_root)
        )
    elapsed = perf_counter() - started
    native = _load_native_batch_timings(timing_sidecar)
    if len(native) != len(cases):
        raise RuntimeError(
            f"SynthSeg recorded {len(native)} subject timings for {len(cases)} cases"
        )
    for case, batch in zip(cases, native):
        batch["case_ids"] = [case.case_id]
    return {"elapsed_sec": elapsed, "batches": native}


def _run_fastsurfer(
    cases: Sequence[ComparisonCase],
    output_root: Path,
    *,
    device: str,
    batch_size: int,
    threads: int,
) -> dict:
    home = Path(os.environ.get("FASTSURFER_HOME", _tool_root() / "FastSurfer"))
    python = _fastsurfer_python()
    script = home / "FastSurferCNN/run_prediction.py"
    if python is None or not script.exists():
        raise FileNotFoundError("FastSurferCNN was not found; run segmentation.sh --fastsurfer")
    records = [(case, materialize_case(case, output_root)) for case in cases]
    subjects_dir = output_root / "raw/fastsurfer"
    subjects_dir.mkdir(parents=True, exist_ok=True)
    input_list = subjects_dir / "inputs.csv"
    input_list.write_text(
        "".join(f"{paths['root']}\n" for _, paths in records), encoding="utf-8"
    )
    command_device = "cuda" if device.startswith("cuda:") else device
    timing_sidecar = subjects_dir / "native_timings.json"
    timing_sidecar.unlink(missing_ok=True)
    command = [
        python, Path(__file__).with_name("fastsurfer_batch.py"),
        "--timing-json", timing_sidecar, "--csv_file", input_list, "--t1", "orig.nii.gz",
        "--sd", subjects_dir, "--device", command_device,
        "--batch_size", str(max(1, int(batch_size))),
        "--threads", str(max(1, int(threads))),
    ]
    env = _subprocess_device_env(device)
    env["PYTHONPATH"] = os.pathsep.join(
        part for part in (str(home), env.get("PYTHONPATH", "")) if part
    )
    started = perf_counter()
    _run_command(
        command,
        output_root / "logs/fastsurfer" / "batch.log",
        env=env,
        cwd=home,
    )
    for case, paths in records:
        raw_path = subjects_dir / case.case_id / "mri/aparc.DKTatlas+aseg.deep.mgz"
        if not raw_path.exists():
            raise RuntimeError(f"FastSurfer did not produce {raw_path}")
        _standardize_prediction(
            raw_path,
            paths["reference"],
            prediction_path(case, "fastsurfer", output_root),
        )
    elapsed = perf_counter() - started
    native = _load_native_batch_timings(timing_sidecar)
    # The wrapper records one loaded-model prediction per subject. FastSurfer's
    # configured batch_size remains a 2D-slice batch, not a subject batch.
    case_ids = [case.case_id for case in cases]
    if len(native) != len(case_ids):
        raise RuntimeError(
            f"FastSurfer recorded {len(native)} subject timings for {len(case_ids)} cases"
        )
    for case_id, batch in zip(case_ids, native):
        batch["case_ids"] = [case_id]
    return {"elapsed_sec": elapsed, "batches": native}


def _run_brainchop(
    cases: Sequence[ComparisonCase],
    output_root: Path,
    *,
    device: str,
    batch_size: int,
) -> dict:
    executable = _brainchop_bin()
    if executable is None:
        raise FileNotFoundError("BrainChop CLI was not found; run segmentation.sh --brainchop")
    model_dir = _brainchop_model_dir()
    missing_model_files = [
        name for name in ("model.json", "model.pth") if not (model_dir / name).exists()
    ]
    if missing_model_files:
        raise FileNotFoundError(
            f"BrainChop DKatlas model is incomplete in {model_dir}: {missing_model_files}; "
            "run segmentation.sh --brainchop"
        )
    raw_dir = output_root / "raw/brainchop/classes"
    decoded_dir = output_root / "raw/brainchop/freesurfer_ids"
    raw_dir.mkdir(parents=True, exist_ok=True)
    records = []
    for case in cases:
        paths = materialize_case(case, output_root)
        records.append(
            {
                "case": case,
                "paths": paths,
                "input": str(paths["image"]),
                "output": str(raw_dir / f"{case.case_id}.nii.gz"),
            }
        )
    manifest = output_root / "raw/brainchop/batch_manifest.json"
    manifest.write_text(
        json.dumps([{"input": row["input"], "output": row["output"]} for row in records]),
        encoding="utf-8",
    )
    timing_sidecar = output_root / "raw/brainchop/native_timings.json"
    timing_sidecar.unlink(missing_ok=True)
    command = [
        executable.parent / "python",
        Path(__file__).with_name("brainchop_batch.py"),
        "--manifest", manifest,
        "--model-dir", model_dir,
        "--batch-size", str(max(1, int(batch_size))),
        "--timing-json", timing_sidecar,
    ]
    env = _subprocess_device_env(device)
    # Codex/dev containers may set DEBUG to strings such as "release". Tinygrad
    # requires an integer DEBUG value, so isolate BrainChop from that unrelated
    # process-level convention while preserving an explicit override.
    env["DEBUG"] = os.environ.get("BRAINCHOP_DEBUG", "0")
    # tinygrad otherwise compiles into ~/.cache/tinygrad. Keep every BrainChop
    # artifact inside the configurable experiment-tool root so read-only home
    # directories and shared installations both work predictably.
    cache_db = Path(
        os.environ.get(
            "BRAINCHOP_CACHEDB",
            _tool_root() / "brainchop-cache/tinygrad/cache.db",
        )
    ).expanduser()
    cache_db.parent.mkdir(parents=True, exist_ok=True)
    env["CACHEDB"] = str(cache_db)
    # The default tinygrad CPU renderer specifically requires clang extensions;
    # gcc/cc is not a compatible substitute. Its bundled LLVM renderer needs no
    # external compiler, so use that for an explicit CPU run without clang.
    # The benchmark-level device is authoritative. Do not allow a process-wide
    # tinygrad setting to put BrainChop on different hardware than its peers.
    if device.startswith("cuda:"):
        env["DEV"] = "CUDA"
    elif _first_executable("clang") is None:
        env["DEV"] = "CPU:LLVM"
    else:
        env["DEV"] = "CPU"
    env["PATH"] = os.pathsep.join(
        part for part in (str(executable.parent), env.get("PATH", "")) if part
    )
    started = perf_counter()
    _run_command(
        command,
        output_root / "logs/brainchop" / "batch.log",
        env=env,
    )
    for record in records:
        case = record["case"]
        paths = record["paths"]
        raw_path = Path(record["output"])
        if not raw_path.exists():
            raise RuntimeError(f"BrainChop did not produce {raw_path}")
        decoded_path = decoded_dir / f"{case.case_id}.nii.gz"
        decode_brainchop_dkatlas(raw_path, decoded_path)
        _standardize_prediction(
            decoded_path,
            paths["reference"],
            prediction_path(case, "brainchop", output_root),
        )
    elapsed = perf_counter() - started
    native = _load_native_batch_timings(timing_sidecar)
    expected_batches = [
        [case.case_id for case in cases[start : start + max(1, int(batch_size))]]
        for start in range(0, len(cases), max(1, int(batch_size)))
    ]
    if len(native) != len(expected_batches):
        raise RuntimeError(
            f"BrainChop recorded {len(native)} batches; expected {len(expected_batches)}"
        )
    for case_ids, batch in zip(expected_batches, native):
        batch["case_ids"] = case_ids
    return {"elapsed_sec": elapsed, "batches": native}


def _write_scalesurfer_benchmark_prediction(
    dense_prediction: torch.Tensor,
    case: ComparisonCase,
    output_path: Path,
) -> tuple[str, np.ndarray, int, float]:
    """Decode one dense prediction, write its final NIfTI, and score it.

    The returned confusion matrix lets ``evaluate_benchmark`` avoid reopening
    and expanding two gzip-compressed 256^3 NIfTIs.  This writer is deliberately
    a thread job so CPU decoding, compression, and scoring overlap later GPU
    batches.
    """

    write_started = perf_counter()
    dense = dense_prediction.detach().to(device="cpu", dtype=torch.int16).numpy()
    if dense.size and (dense.min() < 0 or dense.max() >= len(APARC_ASEG_LABELS)):
        raise ValueError(
            f"{case.case_id}: dense prediction is outside [0, {len(APARC_ASEG_LABELS) - 1}]"
        )
    label_values = np.asarray(APARC_ASEG_LABELS, dtype=np.int16)
    prediction = label_values[dense]
    reference = _load_tensor(case.reference_tensor).numpy()
    if prediction.shape != reference.shape:
        raise ValueError(
            f"{case.case_id}: prediction/reference shape mismatch: "
            f"{prediction.shape} versus {reference.shape}"
        )
    confusion, _ = _confusion_dense_prediction(reference, dense)

    output_path.parent.mkdir(parents=True, exist_ok=True)
    temporary = output_path.with_name(f".{output_path.name}.tmp.nii.gz")
    try:
        image = nib.Nifti1Image(prediction, CONFORM_AFFINE)
        image.set_data_dtype(np.int16)
        nib.save(image, temporary)
        temporary.replace(output_path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return case.case_id, confusion, output_path.stat().st_mtime_ns, perf_counter() - write_started


def _scalesurfer_confusion_cache_path(output_root: Path) -> Path:
    return output_root / "cache/scalesurfer_confusions.npz"


def _write_scalesurfer_confusion_cache(
    output_root: Path,
    cases: Sequence[ComparisonCase],
    results: Mapping[str, tuple[np.ndarray, int]],
    *,
    checkpoint_path: Path,
    fs_version: int,
) -> None:
    """Atomically persist compact sufficient statistics for later scoring."""

    case_ids = [case.case_id for case in cases]
    missing = [case_id for case_id in case_ids if case_id not in results]
    if missing:
        raise RuntimeError(f"Missing ScaleSurfer confusion matrices: {missing[:10]}")
    path = _scalesurfer_confusion_cache_path(output_root)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        with temporary.open("wb") as stream:
            np.savez_compressed(
                stream,
                case_ids=np.asarray(case_ids, dtype=str),
                confusions=np.stack([results[case_id][0] for case_id in case_ids]),
                output_mtime_ns=np.asarray([results[case_id][1] for case_id in case_ids], dtype=np.int64),
                checkpoint=np.asarray(str(checkpoint_path.resolve())),
                fs_version=np.asarray(int(fs_version), dtype=np.int16),
            )
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _load_scalesurfer_confusion_cache(
    output_root: Path,
    cases: Sequence[ComparisonCase],
    *,
    expected_checkpoint: str | Path | None = None,
) -> dict[str, np.ndarray] | None:
    """Load the tensor-native score cache only when it matches every output."""

    path = _scalesurfer_confusion_cache_path(output_root)
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as payload:
            case_ids = payload["case_ids"].astype(str).tolist()
            confusions = payload["confusions"]
            mtimes = payload["output_mtime_ns"].astype(np.int64).tolist()
            checkpoint = str(payload["checkpoint"].item())
    except (KeyError, OSError, ValueError):
        return None
    if expected_checkpoint is not None:
        expected = str(Path(expected_checkpoint).expanduser().resolve())
        if checkpoint != expected:
            return None
    expected_ids = [case.case_id for case in cases]
    if case_ids != expected_ids or len(confusions) != len(cases):
        return None
    for case, cached_mtime in zip(cases, mtimes):
        output = prediction_path(case, "scalesurfer", output_root)
        if not output.exists() or output.stat().st_mtime_ns != int(cached_mtime):
            return None
    return {case_id: confusion for case_id, confusion in zip(case_ids, confusions)}


def _run_scalesurfer(
    cases: Sequence[ComparisonCase],
    output_root: Path,
    *,
    device: str,
    batch_size: int,
    volume_dtype: str,
    threads: int,
    overwrite: bool,
    fs_version: int | str = 7,
    checkpoint_path: str | Path | None = None,
    model_version: str | None = None,
    patch_chunk_size: int | None = 192,
) -> list[dict]:
    if batch_size < 1:
        raise ValueError("batch_size must be positive")
    if threads < 1:
        raise ValueError("threads must be positive")
    fs_version = normalize_fs_version(fs_version)
    resolved_checkpoint = (
        resolve_volume_checkpoint_path(fs_version)
        if checkpoint_path is None
        else Path(checkpoint_path).expanduser().resolve()
    )
    if not resolved_checkpoint.is_file():
        raise FileNotFoundError(resolved_checkpoint)
    effective_batch_size = min(int(batch_size), len(cases))
    inference_dtype = normalize_volume_dtype(volume_dtype)

    # Model setup is timed, but source preparation is not duplicated: these
    # tensors are already the benchmark's immutable, conformed 256^3 inputs.
    started = _synchronized_time(device)
    model = TransUNet3D(**load_volume_model_config(resolved_checkpoint))
    model.load_state_dict(load_volume_state_dict(resolved_checkpoint), strict=True)
    # Match the staged training notebook's evaluation semantics: retain the
    # checkpoint's FP32 master weights and use the requested lower precision as
    # CUDA autocast compute. Permanently casting weights to BF16 produced a
    # second, avoidable source of prediction drift.
    model.to(device=device, dtype=torch.float32).eval()
    if int(model.n_classes) != len(APARC_ASEG_LABELS):
        raise RuntimeError(
            f"Checkpoint predicts {model.n_classes} classes, but the benchmark ontology has "
            f"{len(APARC_ASEG_LABELS)}"
        )
    constructed = _synchronized_time(device)

    loader_workers = min(2, max(0, int(threads) - 1)) if device.startswith("cuda") else 0
    loader_kwargs: dict[str, object] = {
        "batch_size": effective_batch_size,
        "shuffle": False,
        "num_workers": loader_workers,
        "pin_memory": device.startswith("cuda"),
    }
    if loader_workers:
        loader_kwargs.update(prefetch_factor=2, persistent_workers=True)
    loader = DataLoader(_ScaleSurferBenchmarkDataset(cases), **loader_kwargs)

    writer_workers = min(max(1, int(threads)), len(cases))
    max_pending = max(writer_workers, 2 * writer_workers)
    pending = set()
    confusion_results: dict[str, tuple[np.ndarray, int]] = {}
    writer_work_sec = 0.0

    def collect(done) -> None:
        nonlocal writer_work_sec
        for future in done:
            case_id, confusion, mtime_ns, elapsed = future.result()
            confusion_results[case_id] = (confusion, mtime_ns)
            writer_work_sec += float(elapsed)

    inference_total = 0.0
    native_batches: list[dict] = []
    with ThreadPoolExecutor(max_workers=writer_workers, thread_name_prefix="scalesurfer-write") as executor:
        for indices, images_cpu in tqdm(
            loader,
            total=(len(cases) + effective_batch_size - 1) // effective_batch_size,
            desc="ScaleSurfer",
            unit="batch",
        ):
            batch_started = _synchronized_time(device)
            images = images_cpu.to(device=device, dtype=torch.float32, non_blocking=True).unsqueeze(1)
            infer_started = _synchronized_time(device)
            with torch.inference_mode():
                with torch.autocast(
                    device_type="cuda",
                    dtype=inference_dtype,
                    enabled=device.startswith("cuda") and inference_dtype != torch.float32,
                ):
                    dense_batch = model.predict_volume_fast(
                        images, patch_chunk_size=patch_chunk_size
                    )
            infer_finished = _synchronized_time(device)
            batch_inference = infer_finished - infer_started
            inference_total += batch_inference
            dense_batch = dense_batch.to(device="cpu", dtype=torch.int16)
            for offset, case_index in enumerate(indices.tolist()):
                case = cases[int(case_index)]
                pending.add(
                    executor.submit(
                        _write_scalesurfer_benchmark_prediction,
                        dense_batch[offset],
                        case,
                        prediction_path(case, "scalesurfer", output_root),
                    )
                )
            if len(pending) >= max_pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                collect(done)
            native_batches.append(
                {
                    "case_ids": [cases[int(index)].case_id for index in indices.tolist()],
                    "elapsed_sec": perf_counter() - batch_started,
                    "inference_elapsed_sec": batch_inference,
                }
            )
        if pending:
            done, _ = wait(pending)
            collect(done)

    finished = _synchronized_time(device)
    _write_scalesurfer_confusion_cache(
        output_root,
        cases,
        confusion_results,
        checkpoint_path=resolved_checkpoint,
        fs_version=fs_version,
    )
    cache_finished = perf_counter()
    n_cases = len(cases)
    resolved_model_version = str(model_version or f"fs{fs_version}")
    end_to_end_total = cache_finished - started
    residual_total = max(0.0, end_to_end_total - (constructed - started) - inference_total)
    timing_mode = (
        f"native subject batches ({len(native_batches)} observations, "
        f"subject_batch_size={effective_batch_size}, writes={writer_workers} threads)"
    )
    rows = _subject_timing_rows(
        "scalesurfer",
        cases,
        native_batches,
        elapsed_sec=end_to_end_total,
        device=device,
        device_name=_device_name(device),
        batch_size=effective_batch_size,
        batch_dimension="subjects",
        timing_mode=timing_mode,
        extra={
            "weight_dtype": "float32",
            "compute_dtype": str(inference_dtype).removeprefix("torch."),
            "model_version": resolved_model_version,
            "model_checkpoint": str(resolved_checkpoint),
        },
    )
    setup_per_subject = (constructed - started) / n_cases
    standardize_per_subject = residual_total / n_cases
    for row in rows:
        row["model_setup_sec"] = setup_per_subject
        row["prepare_sec"] = 0.0
        row["standardize_sec"] = standardize_per_subject
        row["write_worker_sec"] = writer_work_sec / n_cases
    return rows


def run_benchmark(
    cases: Sequence[ComparisonCase],
    methods: Sequence[str] = DEFAULT_METHODS,
    output_root: str | Path = DEFAULT_OUTPUT_ROOT,
    *,
    device: str | None = None,
    batch_size: int = 1,
    batch_sizes: Mapping[str, int] | None = None,
    volume_dtype: str | None = None,
    threads: int = 4,
    overwrite: bool = False,
    continue_on_error: bool = True,
    scalesurfer_fs_version: int | str = 7,
    scalesurfer_checkpoint_path: str | Path | None = None,
    scalesurfer_model_version: str | None = None,
    scalesurfer_patch_chunk_size: int | None = 192,
    preserve_unselected: bool = True,
) -> pd.DataFrame:
    """Run selected methods and persist native-batch throughput timings.

    ``batch_sizes`` can set a VRAM-calibrated limit per method; ``batch_size``
    is the fallback. ScaleSurfer and BrainChop batch subjects. FastSurfer uses
    its native 2D-slice batch while processing all subjects in one loaded-model
    command. SynthSeg does not expose batching, but all subjects share one
    loaded-model process. A single row in every native batch is marked as an
    independent timing observation; the other subject rows retain provenance
    without being counted again when estimating runtime variance.
    When running a method subset, ``preserve_unselected=True`` retains existing
    timing rows for every unselected method. This makes a ScaleSurfer-only model
    refresh safe for a completed comparison.

    ``overwrite`` applies only to method predictions. Immutable source tensors
    and already-materialized comparator inputs are never regenerated by a
    ScaleSurfer-only refresh.
    """

    if not cases:
        raise ValueError("No comparison cases were supplied")
    unknown = sorted(set(methods) - set(METHOD_SPECS))
    if unknown:
        raise KeyError(f"Unknown methods: {unknown}")
    output_root = Path(output_root).expanduser().resolve()
    output_root.mkdir(parents=True, exist_ok=True)
    device = resolve_benchmark_device(device)
    device_name = _device_name(device)
    volume_dtype = volume_dtype or ("bfloat16" if str(device).startswith("cuda") else "float32")
    configured_batch_sizes = {method: int(batch_size) for method in methods}
    if batch_sizes is not None:
        unknown_batch_methods = sorted(set(batch_sizes) - set(methods))
        if unknown_batch_methods:
            raise KeyError(f"Batch sizes supplied for unselected methods: {unknown_batch_methods}")
        configured_batch_sizes.update(
            {method: int(value) for method, value in batch_sizes.items()}
        )
    invalid_batch_sizes = {
        method: value for method, value in configured_batch_sizes.items() if value < 1
    }
    if invalid_batch_sizes:
        raise ValueError(f"Batch sizes must be positive: {invalid_batch_sizes}")
    rows: list[dict] = []
    timing_path = output_root / "timings.csv"
    previous: dict[tuple[str, str], dict] = {}
    previous_df = pd.DataFrame()
    if timing_path.exists():
        previous_df = pd.read_csv(timing_path)
        previous = {
            (str(row["method"]), str(row["case_id"])): row.to_dict()
            for _, row in previous_df.iterrows()
        }

    def batch_metadata(method: str, n_cases: int) -> tuple[int, str]:
        if method in {"scalesurfer", "brainchop"}:
            return min(configured_batch_sizes[method], n_cases), "subjects"
        if method == "fastsurfer":
            return configured_batch_sizes[method], "2D slices"
        return 1, "subjects (sequential)"

    def reused_row(method: str, case: ComparisonCase, n_cases: int) -> dict:
        expected_batch_size, expected_dimension = batch_metadata(method, n_cases)
        old = previous.get((method, case.case_id))
        if (
            old is not None
            and pd.notna(old.get("runtime_sec"))
            and str(old.get("device", "")) == device
            and str(old.get("device_name", "")) == device_name
            and int(old.get("batch_size", -1)) == expected_batch_size
            and str(old.get("batch_dimension", "")) == expected_dimension
        ):
            old["status"] = "reused"
            old["error"] = ""
            return old
        return {
            "method": method,
            "case_id": case.case_id,
            "prepare_sec": np.nan,
            "inference_sec": np.nan,
            "standardize_sec": np.nan,
            "runtime_sec": np.nan,
            "device": device,
            "device_name": device_name,
            "batch_size": expected_batch_size,
            "batch_dimension": expected_dimension,
            "timing_mode": "reused output (not timed)",
            "timing_run_id": np.nan,
            "batch_index": np.nan,
            "batch_id": np.nan,
            "batch_n_subjects": np.nan,
            "batch_native_elapsed_sec": np.nan,
            "batch_elapsed_sec": np.nan,
            "batch_inference_elapsed_sec": np.nan,
            "timing_observation": False,
            "status": "reused",
            "error": "",
        }

    for method in methods:
        pending_cases = [
            case
            for case in cases
            if overwrite or not prediction_path(case, method, output_root).exists()
        ]
        rows.extend(
            reused_row(method, case, len(cases))
            for case in cases
            if case not in pending_cases
        )
        if not pending_cases:
            continue
        effective_batch_size, batch_dimension = batch_metadata(method, len(pending_cases))
        if method == "scalesurfer":
            try:
                rows.extend(
                    _run_scalesurfer(
                        pending_cases,
                        output_root,
                        device=device,
                        batch_size=effective_batch_size,
                        volume_dtype=volume_dtype,
                        threads=threads,
                        overwrite=overwrite,
                        fs_version=scalesurfer_fs_version,
                        checkpoint_path=scalesurfer_checkpoint_path,
                        model_version=scalesurfer_model_version,
                        patch_chunk_size=scalesurfer_patch_chunk_size,
                    )
                )
            except Exception as exc:
                if not continue_on_error:
                    raise
                rows.extend(
                    {
                        "method": method,
                        "case_id": case.case_id,
                        "prepare_sec": np.nan,
                        "inference_sec": np.nan,
                        "standardize_sec": np.nan,
                        "runtime_sec": np.nan,
                        "device": device,
                        "device_name": device_name,
                        "batch_size": effective_batch_size,
                        "batch_dimension": batch_dimension,
                        "timing_mode": "batch failed before timing completed",
                        "status": "error",
                        "error": repr(exc),
                    }
                    for case in pending_cases
                )
            continue

        try:
            if method == "synthseg":
                result = _run_synthseg(
                    pending_cases, output_root, robust=False, threads=threads, device=device
                )
            elif method == "synthseg_robust":
                result = _run_synthseg(
                    pending_cases, output_root, robust=True, threads=threads, device=device
                )
            elif method == "fastsurfer":
                result = _run_fastsurfer(
                    pending_cases,
                    output_root,
                    device=device,
                    batch_size=effective_batch_size,
                    threads=threads,
                )
            elif method == "brainchop":
                result = _run_brainchop(
                    pending_cases,
                    output_root,
                    device=device,
                    batch_size=effective_batch_size,
                )
            else:
                raise AssertionError(f"No runner registered for {method}")
            n_observations = len(result["batches"])
            if method == "fastsurfer":
                observation_unit = "one subject (internal 2D-slice batches)"
            elif method.startswith("synthseg"):
                observation_unit = "one sequential subject (single loaded-model CLI)"
            else:
                observation_unit = f"native subject batches of up to {effective_batch_size}"
            timing_mode = f"{observation_unit}; {n_observations} independent observation(s)"
            rows.extend(
                _subject_timing_rows(
                    method,
                    pending_cases,
                    result["batches"],
                    elapsed_sec=result["elapsed_sec"],
                    device=device,
                    device_name=device_name,
                    batch_size=effective_batch_size,
                    batch_dimension=batch_dimension,
                    timing_mode=timing_mode,
                    native_is_inference=not method.startswith("synthseg"),
                )
            )
        except Exception as exc:
            if not continue_on_error:
                raise
            for case in pending_cases:
                rows.append(
                    {
                        "method": method,
                        "case_id": case.case_id,
                        "prepare_sec": np.nan,
                        "inference_sec": np.nan,
                        "standardize_sec": np.nan,
                        "runtime_sec": np.nan,
                        "device": device,
                        "device_name": device_name,
                        "batch_size": effective_batch_size,
                        "batch_dimension": batch_dimension,
                        "timing_mode": "batch failed before timing completed",
                        "status": "error",
                        "error": repr(exc),
                    }
                )

    timing = pd.DataFrame(rows)
    if preserve_unselected and not previous_df.empty:
        static = previous_df.loc[~previous_df["method"].astype(str).isin(set(methods))].copy()
        timing = pd.concat([static, timing], ignore_index=True, sort=False)
    if timing.duplicated(["method", "case_id"]).any():
        duplicate = timing.loc[timing.duplicated(["method", "case_id"], keep=False), ["method", "case_id"]]
        raise RuntimeError(f"Duplicate timing rows after merge:\n{duplicate.head(20)}")
    _write_csv_atomic(timing, timing_path)
    return timing


def _confusion(true: np.ndarray, pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    labels = np.asarray(APARC_ASEG_LABELS, dtype=np.int64)
    n = len(labels)
    max_value = int(labels[-1])
    lookup = np.full(max_value + 1, n, dtype=np.int16)
    lookup[labels] = np.arange(n, dtype=np.int16)
    true_flat = np.asarray(true).ravel()
    pred_flat = np.asarray(pred).ravel()
    if true_flat.shape != pred_flat.shape:
        raise ValueError(f"Shape mismatch: true={np.shape(true)}, pred={np.shape(pred)}")
    cm = np.zeros((n + 1, n + 1), dtype=np.int64)
    # Chunking prevents each concurrent writer from allocating several full
    # int64 256^3 temporaries, which otherwise makes scoring memory-bandwidth
    # bound and delays the final writer drain.
    for start in range(0, true_flat.size, 1 << 20):
        true_chunk = true_flat[start : start + (1 << 20)]
        pred_chunk = pred_flat[start : start + (1 << 20)]
        true_idx = np.full(true_chunk.shape, n, dtype=np.int64)
        pred_idx = np.full(pred_chunk.shape, n, dtype=np.int64)
        true_valid = (true_chunk >= 0) & (true_chunk <= max_value)
        pred_valid = (pred_chunk >= 0) & (pred_chunk <= max_value)
        true_idx[true_valid] = lookup[true_chunk[true_valid].astype(np.int64)]
        pred_idx[pred_valid] = lookup[pred_chunk[pred_valid].astype(np.int64)]
        cm += np.bincount(
            true_idx * (n + 1) + pred_idx,
            minlength=(n + 1) ** 2,
        ).reshape(n + 1, n + 1)
    return cm, labels


def _confusion_dense_prediction(
    true: np.ndarray, dense_prediction: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Confusion matrix when prediction values are already class indices."""

    labels = np.asarray(APARC_ASEG_LABELS, dtype=np.int64)
    n = len(labels)
    max_value = int(labels[-1])
    lookup = np.full(max_value + 1, n, dtype=np.int16)
    lookup[labels] = np.arange(n, dtype=np.int16)
    true_flat = np.asarray(true).ravel()
    pred_flat = np.asarray(dense_prediction).ravel()
    if true_flat.shape != pred_flat.shape:
        raise ValueError(f"Shape mismatch: true={np.shape(true)}, pred={np.shape(dense_prediction)}")
    cm = np.zeros((n + 1, n + 1), dtype=np.int64)
    for start in range(0, true_flat.size, 1 << 20):
        true_chunk = true_flat[start : start + (1 << 20)]
        pred_idx = pred_flat[start : start + (1 << 20)].astype(np.int64, copy=False)
        true_idx = np.full(true_chunk.shape, n, dtype=np.int64)
        true_valid = (true_chunk >= 0) & (true_chunk <= max_value)
        true_idx[true_valid] = lookup[true_chunk[true_valid].astype(np.int64)]
        cm += np.bincount(
            true_idx * (n + 1) + pred_idx,
            minlength=(n + 1) ** 2,
        ).reshape(n + 1, n + 1)
    return cm, labels


def _fs_label_names() -> dict[int, str]:
    fs_home = os.environ.get("FREESURFER_HOME")
    candidates = [
        DEFAULT_FS_LUT,
        Path(fs_home) / "FreeSurferColorLUT.txt" if fs_home else None,
    ]
    path = next((candidate for candidate in candidates if candidate and candidate.exists()), None)
    if path is None:
        return {}
    names: dict[int, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        fields = line.split()
        if len(fields) < 2 or fields[0].startswith("#"):
            continue
        try:
            names[int(fields[0])] = fields[1]
        except ValueError:
            continue
    return names


def score_arrays(
    true: np.ndarray,
    pred: np.ndarray,
    *,
    supported_labels: Sequence[int] | None = None,
) -> tuple[dict, pd.DataFrame]:
    """Compute label-aware and full-ontology overlap metrics."""

    true = np.asarray(true, dtype=np.int64)
    pred = np.asarray(pred, dtype=np.int64)
    if true.shape != pred.shape:
        raise ValueError(f"Shape mismatch: true={true.shape}, pred={pred.shape}")
    cm, labels = _confusion(true, pred)
    return score_confusion(cm, supported_labels=supported_labels, labels=labels)


def score_confusion(
    cm: np.ndarray,
    *,
    supported_labels: Sequence[int] | None = None,
    labels: Sequence[int] = APARC_ASEG_LABELS,
) -> tuple[dict, pd.DataFrame]:
    """Compute the same metrics from a dense label confusion matrix.

    A final row/column is reserved for labels outside ``labels``. This compact
    representation is sufficient for every reported overlap/volume metric and
    avoids repeatedly loading full 256^3 arrays.
    """

    labels = np.asarray(labels, dtype=np.int64)
    n = len(labels)
    cm = np.asarray(cm, dtype=np.int64)
    if cm.shape != (n + 1, n + 1):
        raise ValueError(f"Expected confusion shape {(n + 1, n + 1)}, got {cm.shape}")
    diag = np.diag(cm)[:n].astype(np.float64)
    true_count = cm[:n, :].sum(axis=1).astype(np.float64)
    pred_count = cm[:, :n].sum(axis=0).astype(np.float64)
    denom = true_count + pred_count
    dice = np.divide(2 * diag, denom, out=np.full(n, np.nan), where=denom > 0)
    volume_similarity = np.divide(
        2 * np.minimum(true_count, pred_count),
        denom,
        out=np.full(n, np.nan),
        where=denom > 0,
    )

    all_fg = np.flatnonzero(labels != 0)
    supported = set(int(v) for v in (supported_labels or APARC_ASEG_LABELS))
    common = np.asarray([i for i in all_fg if int(labels[i]) in supported], dtype=np.int64)
    present_all = all_fg[denom[all_fg] > 0]
    present_common = common[denom[common] > 0]
    aparc_common = np.asarray(
        [i for i in common if 1000 <= int(labels[i]) <= 2035], dtype=np.int64
    )
    aseg_common = np.asarray(
        [i for i in common if not 1000 <= int(labels[i]) <= 2035], dtype=np.int64
    )
    present_aparc = aparc_common[denom[aparc_common] > 0]
    present_aseg = aseg_common[denom[aseg_common] > 0]

    tp = diag[common].sum()
    fp = pred_count[common].sum() - tp
    fn = true_count[common].sum() - tp
    micro_denom = 2 * tp + fp + fn
    true_common_voxels = true_count[common].sum()
    background = int(np.flatnonzero(labels == 0)[0])
    total_voxels = int(cm.sum())
    true_fg_voxels = total_voxels - int(cm[background, :].sum())
    pred_fg_voxels = total_voxels - int(cm[:, background].sum())
    foreground_intersection = (
        total_voxels
        - int(cm[background, :].sum())
        - int(cm[:, background].sum())
        + int(cm[background, background])
    )
    fg_denom = true_fg_voxels + pred_fg_voxels

    summary = {
        "macro_dice_common": float(np.nanmean(dice[present_common])) if len(present_common) else np.nan,
        "macro_dice_all": float(np.nanmean(dice[present_all])) if len(present_all) else np.nan,
        "micro_dice_common": float(2 * tp / micro_denom) if micro_denom else np.nan,
        "voxel_accuracy_common": float(diag[common].sum() / true_common_voxels) if true_common_voxels else np.nan,
        "foreground_dice": float(2 * foreground_intersection / fg_denom) if fg_denom else np.nan,
        "macro_volume_similarity_common": (
            float(np.nanmean(volume_similarity[present_common])) if len(present_common) else np.nan
        ),
        "macro_dice_aparc_common": (
            float(np.nanmean(dice[present_aparc])) if len(present_aparc) else np.nan
        ),
        "macro_dice_aseg_common": (
            float(np.nanmean(dice[present_aseg])) if len(present_aseg) else np.nan
        ),
        "macro_volume_similarity_aparc_common": (
            float(np.nanmean(volume_similarity[present_aparc])) if len(present_aparc) else np.nan
        ),
        "macro_volume_similarity_aseg_common": (
            float(np.nanmean(volume_similarity[present_aseg])) if len(present_aseg) else np.nan
        ),
        "label_coverage": float(len(common) / len(all_fg)),
        "n_common_labels": int(len(common)),
        "n_common_aparc_labels": int(len(aparc_common)),
        "n_common_aseg_labels": int(len(aseg_common)),
        "unknown_pred_voxels": int(cm[:, n].sum()),
    }
    name_by_id = _fs_label_names()
    regions = pd.DataFrame(
        {
            "fs_id": labels[all_fg],
            "region_name": [name_by_id.get(int(labels[i]), f"FS-{int(labels[i])}") for i in all_fg],
            "dice": dice[all_fg],
            "volume_similarity": volume_similarity[all_fg],
            "reference_voxels": true_count[all_fg].astype(np.int64),
            "predicted_voxels": pred_count[all_fg].astype(np.int64),
            "in_common_ontology": [int(labels[i]) in supported for i in all_fg],
            "ontology_family": [
                "aparc" if 1000 <= int(labels[i]) <= 2035 else "aseg" for i in all_fg
            ],
        }
    )
    return summary, regions


def evaluate_benchmark(
    cases: Sequence[ComparisonCase],
    methods: Sequence[str] = DEFAULT_METHODS,
    output_root: str | Path = DEFAULT_OUTPUT_ROOT,
    *,
    display_name_overrides: Mapping[str, str] | None = None,
    method_metadata: Mapping[str, Mapping[str, object]] | None = None,
    ontology_methods: Sequence[str] | None = None,
    preserve_unselected: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Score selected standardized predictions and safely update metric CSVs.

    Existing rows for methods outside ``methods`` are retained by default.
    """

    output_root = Path(output_root)
    sample_path = output_root / "sample_metrics.csv"
    region_path = output_root / "region_metrics.csv"
    previous_samples = pd.read_csv(sample_path) if sample_path.exists() else pd.DataFrame()
    previous_regions = pd.read_csv(region_path) if region_path.exists() else pd.DataFrame()
    shared_labels = common_ontology_labels(methods if ontology_methods is None else ontology_methods)
    sample_rows: list[dict] = []
    region_frames: list[pd.DataFrame] = []
    for method in methods:
        spec = METHOD_SPECS[method]
        display_name = str((display_name_overrides or {}).get(method, spec.display_name))
        metadata = dict((method_metadata or {}).get(method, {}))
        cached_confusions = None
        if method == "scalesurfer":
            cached_confusions = _load_scalesurfer_confusion_cache(
                output_root,
                cases,
                expected_checkpoint=metadata.get("model_checkpoint"),
            )
            if cached_confusions is not None:
                print(
                    f"Scoring {len(cached_confusions)} ScaleSurfer cases from "
                    "cached tensor confusion matrices."
                )
        for case in cases:
            pred_path = prediction_path(case, method, output_root)
            if not pred_path.exists():
                continue
            # All methods must be scored on the exact same label set.  Using
            # each method's own supported labels here makes cross-method macro
            # Dice incomparable (117 labels for ScaleSurfer versus 95-103 for
            # the external methods).
            if cached_confusions is not None:
                metrics, regions = score_confusion(
                    cached_confusions[case.case_id], supported_labels=shared_labels
                )
            else:
                paths = materialize_case(case, output_root)
                true_img = nib.as_closest_canonical(nib.load(str(paths["reference"])))
                pred_img = nib.as_closest_canonical(nib.load(str(pred_path)))
                if pred_img.shape[:3] != true_img.shape[:3] or not np.allclose(pred_img.affine, true_img.affine):
                    pred_img = resample_from_to(pred_img, true_img, order=0)
                true = np.rint(np.asarray(true_img.dataobj)).astype(np.int64, copy=False)
                pred = np.rint(np.asarray(pred_img.dataobj)).astype(np.int64, copy=False)
                metrics, regions = score_arrays(true, pred, supported_labels=shared_labels)
            declared = set(int(value) for value in (spec.supported_labels or APARC_ASEG_LABELS))
            regions["supported_by_method"] = regions["fs_id"].isin(declared)
            sample_rows.append(
                {
                    "method": method,
                    "display_name": display_name,
                    "case_id": case.case_id,
                    "study": case.study,
                    **metadata,
                    **metrics,
                }
            )
            regions.insert(0, "study", case.study)
            regions.insert(0, "case_id", case.case_id)
            for key, value in reversed(list(metadata.items())):
                regions.insert(0, str(key), value)
            regions.insert(0, "display_name", display_name)
            regions.insert(0, "method", method)
            region_frames.append(regions)

    samples = pd.DataFrame(sample_rows)
    regions = pd.concat(region_frames, ignore_index=True) if region_frames else pd.DataFrame()
    if preserve_unselected and not previous_samples.empty:
        static_samples = previous_samples.loc[
            ~previous_samples["method"].astype(str).isin(set(methods))
        ].copy()
        samples = pd.concat([static_samples, samples], ignore_index=True, sort=False)
    if preserve_unselected and not previous_regions.empty:
        static_regions = previous_regions.loc[
            ~previous_regions["method"].astype(str).isin(set(methods))
        ].copy()
        regions = pd.concat([static_regions, regions], ignore_index=True, sort=False)
    if samples.duplicated(["method", "case_id"]).any():
        raise RuntimeError("Duplicate sample metric rows after selected-method merge")
    if not regions.empty and regions.duplicated(["method", "case_id", "fs_id"]).any():
        raise RuntimeError("Duplicate region metric rows after selected-method merge")
    _write_csv_atomic(samples, sample_path)
    _write_csv_atomic(regions, region_path)
    return samples, regions


def summarize_benchmark(
    sample_metrics: pd.DataFrame,
    timings: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Return one manuscript-friendly row per successfully scored method."""

    metric_columns = [
        "macro_dice_common", "macro_dice_all", "micro_dice_common",
        "voxel_accuracy_common", "foreground_dice",
        "macro_volume_similarity_common", "label_coverage", "n_common_labels",
        "macro_dice_aparc_common", "macro_dice_aseg_common",
        "macro_volume_similarity_aparc_common", "macro_volume_similarity_aseg_common",
        "n_common_aparc_labels", "n_common_aseg_labels",
    ]
    if sample_metrics.empty:
        return pd.DataFrame(columns=["method", "display_name", "n_cases", *metric_columns])
    summary = (
        sample_metrics.groupby(["method", "display_name"], as_index=False)
        .agg(n_cases=("case_id", "nunique"), **{column: (column, "mean") for column in metric_columns})
    )
    if timings is not None and not timings.empty:
        runtime = runtime_statistics(timings).reset_index()
        timing_summary = runtime.rename(
            columns={
                "mean": "runtime_sec",
                "std": "runtime_sd_sec",
                "count": "n_timed",
                "inference_mean": "inference_sec",
                "inference_std": "inference_sd_sec",
            }
        )
        summary = summary.merge(timing_summary, on="method", how="left")
        summary["subjects_per_hour"] = 3600.0 / summary["runtime_sec"]
        if "inference_sec" in summary.columns:
            summary["subjects_per_hour_inference"] = 3600.0 / summary["inference_sec"]
    return summary.sort_values("macro_dice_common", ascending=False).reset_index(drop=True)


def timing_observations(timings: pd.DataFrame) -> pd.DataFrame:
    """Return exactly one independent row per native timing batch.

    Timing CSVs created before native-batch instrumentation duplicated one
    run-level average over all subjects and cannot support a variance estimate.
    They are rejected explicitly instead of silently producing a zero-width CI.
    """

    required = {
        "timing_observation", "batch_id", "batch_n_subjects",
        "batch_elapsed_sec", "runtime_sec",
    }
    missing = sorted(required - set(timings.columns))
    if missing:
        raise RuntimeError(
            "Cached timings predate native-batch variance tracking "
            f"(missing {missing}). Re-run the benchmark with overwrite enabled."
        )
    marker = timings["timing_observation"]
    if marker.dtype != bool:
        marker = marker.astype(str).str.strip().str.lower().isin({"true", "1", "yes"})
    observations = timings.loc[
        marker & timings["runtime_sec"].notna() & timings["batch_elapsed_sec"].notna()
    ].copy()
    if observations.empty:
        raise RuntimeError("No independent native-batch timing observations were recorded")
    if observations["batch_id"].duplicated().any():
        raise RuntimeError("A native batch is marked as an independent observation more than once")
    return observations


def runtime_statistics(timings: pd.DataFrame) -> pd.DataFrame:
    """Summarize seconds/image using native batches as independent samples.

    The mean is subject-weighted (total allocated wall time divided by total
    images). The standard deviation and 95% normal CI describe the distribution
    of per-image throughput across independent native batches, with the number
    of batches—not the number of subjects—as the sample size.
    """

    observations = timing_observations(timings)
    rows = []
    for method, frame in observations.groupby("method", sort=False):
        n_subjects = frame["batch_n_subjects"].astype(float)
        elapsed = frame["batch_elapsed_sec"].astype(float)
        rates = frame["runtime_sec"].astype(float)
        n_batches = len(frame)
        runtime_mean = elapsed.sum() / n_subjects.sum()
        runtime_std = rates.std(ddof=1) if n_batches > 1 else np.nan
        row = {
            "method": method,
            "mean": runtime_mean,
            "std": runtime_std,
            "count": n_batches,
            "ci95": 1.96 * runtime_std / np.sqrt(n_batches) if n_batches > 1 else np.nan,
            "n_subjects": int(n_subjects.sum()),
        }
        valid_inference = frame["batch_inference_elapsed_sec"].notna()
        if valid_inference.any():
            inference_frame = frame.loc[valid_inference]
            inference_n = inference_frame["batch_n_subjects"].astype(float)
            inference_rates = inference_frame["inference_sec"].astype(float)
            row["inference_mean"] = (
                inference_frame["batch_inference_elapsed_sec"].astype(float).sum()
                / inference_n.sum()
            )
            row["inference_std"] = (
                inference_rates.std(ddof=1) if len(inference_frame) > 1 else np.nan
            )
        else:
            row["inference_mean"] = np.nan
            row["inference_std"] = np.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("method")


def screened_methods() -> pd.DataFrame:
    """Document the inclusion decision made for the comparison notebook."""

    rows = [
        ("FastSurferCNN", True, "Direct DKT aparc+aseg output; fast, maintained, open source."),
        ("SynthSeg / SynthSeg+", True, "Fast FreeSurfer-ID segmentation with optional cortical parcellation; SynthSeg+ is --robust."),
        ("BrainChop DKatlas", True, "Its published 104-channel ordering is decoded and validated against canonical FreeSurfer IDs."),
        ("DARTS", False, "Exact FS-style target, but its released stack/checkpoint workflow is legacy and not maintained."),
        ("ReconAny / recon-all-clinical", False, "Surface pipelines; their volume initialization is already represented by SynthSeg."),
        ("deepmriprep (Fisch et al. 2026)", False, "Predicts VBM tissue maps, not an aparc+aseg regional label map."),
        ("Mello et al. 2026", False, "Benchmarks segmentation-assisted surface reconstruction; no standalone matched comparator release."),
        ("Rebsamen / HerstonNet", False, "Direct scalar morphometry regression; no voxelwise segmentation output."),
        ("DL+DiReCT / CortexMorph / FastCSR", False, "Thickness or surface reconstruction rather than aparc+aseg prediction."),
        ("OpenMAP-T1", False, "Open and fast, but its 280-region JHU ontology is not FreeSurfer aparc+aseg."),
    ]
    return pd.DataFrame(rows, columns=["method", "included", "rationale"])


def environment_report(device: str | None = None) -> dict:
    """Capture the minimum hardware/software context needed for runtime claims."""

    def installed_version(package: str) -> str | None:
        try:
            return package_version(package)
        except PackageNotFoundError:
            return None

    fastsurfer_home = Path(os.environ.get("FASTSURFER_HOME", _tool_root() / "FastSurfer"))
    fastsurfer_revision = None
    if (fastsurfer_home / ".git").exists():
        result = subprocess.run(
            ["git", "-C", str(fastsurfer_home), "rev-parse", "HEAD"],
            check=False,
            capture_output=True,
            text=True,
        )
        if result.returncode == 0:
            fastsurfer_revision = result.stdout.strip()

    fs_home = os.environ.get("FREESURFER_HOME")
    build_stamp = Path(fs_home) / "build-stamp.txt" if fs_home else None
    freesurfer_build = None
    if build_stamp is not None and build_stamp.exists():
        freesurfer_build = build_stamp.read_text(encoding="utf-8", errors="replace").strip()

    requested_device = resolve_benchmark_device(device) if device is not None else None
    cuda_index = (
        int(requested_device.split(":", 1)[1])
        if requested_device is not None and requested_device.startswith("cuda:")
        else None
    )
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor(),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "nibabel": nib.__version__,
        "scalesurfer": installed_version("scalesurfer"),
        "fastsurfer_revision": fastsurfer_revision,
        "freesurfer_build": freesurfer_build,
        "cuda_available": torch.cuda.is_available(),
        "requested_device": requested_device,
        "cuda_device_index": cuda_index,
        "cuda_device": (
            torch.cuda.get_device_name(cuda_index)
            if cuda_index is not None
            else (torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)
        ),
        "cuda_runtime": torch.version.cuda,
        "methods": method_availability().to_dict("records"),
    }


def write_environment_report(
    output_root: str | Path = DEFAULT_OUTPUT_ROOT,
    *,
    device: str | None = None,
) -> Path:
    path = Path(output_root) / "environment.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(environment_report(device), indent=2) + "\n", encoding="utf-8")
    return path


__all__ = [
    "APARC_ASEG_LABELS",
    "BRAINCHOP_DKATLAS_FS_IDS",
    "BRAINCHOP_DKATLAS_LABELS",
    "ComparisonCase",
    "DEFAULT_MANIFEST",
    "DEFAULT_METHODS",
    "DEFAULT_OUTPUT_ROOT",
    "FASTSURFER_LABELS",
    "METHOD_SPECS",
    "SYNTHSEG_LABELS",
    "VERSION_INCONSISTENT_LABELS",
    "accelerator_preflight",
    "common_ontology_labels",
    "environment_report",
    "decode_brainchop_dkatlas",
    "evaluate_benchmark",
    "load_test_cases",
    "materialize_case",
    "materialize_cases",
    "method_availability",
    "prediction_path",
    "resolve_benchmark_device",
    "runtime_statistics",
    "run_benchmark",
    "score_arrays",
    "score_confusion",
    "screened_methods",
    "summarize_benchmark",
    "timing_observations",
    "write_environment_report",
]
