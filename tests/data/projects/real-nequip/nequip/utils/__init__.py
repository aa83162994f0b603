# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.
from .modules import find_first_of_type
from .dtype import (
    dtype_to_name,
    dtype_from_name,
    torch_default_dtype,
    floating_point_tolerance,
)
from .file_utils import download_url, extract_zip, extract_tar, get_project_root
from .logger import RankedLogger
from .compile import conditional_torchscript_mode, conditional_torchscript_jit
from .versions import get_current_code_versions

__all__ = [
    "find_first_of_type",
    "dtype_to_name",
    "dtype_from_name",
    "torch_default_dtype",
    "floating_point_tolerance",
    "download_url",
    "extract_zip",
    "extract_tar",
    "get_project_root",
    "RankedLogger",
    "conditional_torchscript_mode",
    "conditional_torchscript_jit",
    "get_current_code_versions",
]
