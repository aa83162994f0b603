"""The environment probe: the variables that change how ML stacks load, pick devices and behave.

Kept: every variable whose name starts with one of ``PREFIXES`` or is one of ``NAMES`` (below).
Left out: everything else, and on purpose the volatile ones (``SLURM_JOB_ID``, ``PWD``, ``SHLVL``,
``TERM``, ranks of a distributed job, pip's per-build temp folders), so two captures of one
unchanged setup are identical; and Terraform's ``TF_*`` variables, which only share TensorFlow's
prefix.

Values are recorded as they are. Secrets are not this module's concern: redact.py scrubs the
whole snapshot afterwards, by name inside ``environment.variables`` (``HF_TOKEN``, ``*_API_KEY``)
and by shape everywhere else (tokens inside ``PIP_INDEX_URL``, ...).
"""

from __future__ import annotations

from envsnap.probes.base import ProbeContext
from envsnap.snapshot.model import Environment

PREFIXES = (
    # NVIDIA, CUDA libraries and the container toolkit (CUDA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES)
    "CUDA_", "NVIDIA_", "CUBLAS_", "CUDNN_", "NCCL_", "NVTE_",
    # AMD ROCm / HIP runtime (HIP_VISIBLE_DEVICES, HSA_OVERRIDE_GFX_VERSION)
    "HIP_", "ROCR_", "HSA_", "ROCM_",
    # Intel oneAPI / Level Zero / SYCL (ONEAPI_DEVICE_SELECTOR, ZE_AFFINITY_MASK)
    "ONEAPI_", "ZE_", "SYCL_",
    # frameworks and compilers (PYTORCH_CUDA_ALLOC_CONF, XLA_FLAGS, TF_FORCE_GPU_ALLOW_GROWTH)
    "TORCH_", "PYTORCH_", "XLA_", "JAX_", "TF_", "TRITON_",
    # CPU threading and BLAS
    "OMP_", "MKL_", "KMP_", "OPENBLAS_",
    # model hubs (HF_HOME, HF_HUB_OFFLINE, TRANSFORMERS_CACHE)
    "HF_", "TRANSFORMERS_",
    # package managers and environments
    "CONDA_", "PIP_", "UV_",
)  # fmt: skip
"""Name prefixes of the variables kept."""

NAMES = frozenset(
    {
        # where shared libraries and Python code are found
        "LD_LIBRARY_PATH", "LD_PRELOAD", "LIBRARY_PATH", "DYLD_LIBRARY_PATH",
        "DYLD_FALLBACK_LIBRARY_PATH", "PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE",
        "PYTHONUSERBASE", "VIRTUAL_ENV",
        # device selection outside the prefixes above (AMD's OpenCL/HIP ordinal)
        "GPU_DEVICE_ORDINAL",
        # building compiled extensions (torch.utils.cpp_extension, pip source builds)
        "CC", "CXX", "CPATH", "MAX_JOBS",
    }
)  # fmt: skip
"""Exact names of the variables kept."""

VOLATILE = frozenset({"PIP_REQ_TRACKER", "PIP_BUILD_TRACKER", "CONDA_SHLVL"})
"""Variables a prefix would keep that change from run to run: pip's temp-folder trackers, shell depth."""

FOREIGN_PREFIXES = ("TF_VAR_", "TF_CLI_", "TF_LOG", "TF_REGISTRY_")
FOREIGN_NAMES = frozenset(
    {"TF_INPUT", "TF_DATA_DIR", "TF_WORKSPACE", "TF_IN_AUTOMATION", "TF_PLUGIN_CACHE_DIR", "TF_IGNORE"}
)
"""Terraform's variables share TensorFlow's ``TF_`` prefix; these are Terraform's documented ones
(https://developer.hashicorp.com/terraform/cli/config/environment-variables) and are left out."""


def is_relevant(name: str) -> bool:
    """Whether a variable of this name is part of the environment section."""
    if name in VOLATILE or name in FOREIGN_NAMES or name.startswith(FOREIGN_PREFIXES):
        return False
    return name in NAMES or name.startswith(PREFIXES)


def probe(ctx: ProbeContext) -> Environment:
    """The relevant variables of ``ctx.environ``, unredacted, sorted by name.

    Command line equivalent: ``env | grep -E '^(CUDA_|NCCL_|...)'``.
    """
    variables = {name: value for name, value in sorted(ctx.environ.items()) if is_relevant(name)}
    return Environment(status="ok", variables=variables)
