# ruff: noqa : F401, E402
import sys
import os
import time
import warnings
import sysconfig
import contextlib
from pathlib import Path
from packaging.version import Version

import torch

from openequivariance.core.logging import getLogger

oeq_root = str(Path(__file__).parent.parent.parent)

BUILT_EXTENSION = False
BUILT_EXTENSION_ERROR = None

LINKED_LIBPYTHON = False
LINKED_LIBPYTHON_ERROR = None

extension_module = None

assert torch.version.cuda or torch.version.hip, (
    "Only CUDA and HIP backends are supported"
)

IS_HIP = bool(torch.version.hip)


@contextlib.contextmanager
def _maybe_set_max_jobs_env(limit=8):
    if "MAX_JOBS" in os.environ:
        yield
        return
    os.environ["MAX_JOBS"] = str(min(limit, os.cpu_count() or 1))
    try:
        yield
    finally:
        os.environ.pop("MAX_JOBS", None)


def _wait_for_torch_build_lock(name, timeout=300):
    from torch.utils.cpp_extension import _get_build_directory

    lock_path = os.path.join(_get_build_directory(name, False), "lock")
    start = time.time()
    while os.path.exists(lock_path):
        if time.time() - start > timeout:
            raise RuntimeError(
                f"Timed out after {timeout} seconds waiting for another process "
                f"to finish building the OpenEquivariance extension '{name}'. "
                f"If no other build is running, a previous build was likely "
                f"killed partway; delete {lock_path} and retry."
            )
        time.sleep(1)


def load_jit_extension():
    global \
        BUILT_EXTENSION, \
        BUILT_EXTENSION_ERROR, \
        LINKED_LIBPYTHON, \
        LINKED_LIBPYTHON_ERROR, \
        extension_module

    # Locate libpython (required for AOTI)
    try:
        python_lib_dir = sysconfig.get_config_var("LIBDIR")
        major, minor = sys.version_info.major, sys.version_info.minor
        python_lib_name = f"python{major}.{minor}"

        libpython_so = os.path.join(python_lib_dir, f"lib{python_lib_name}.so")
        libpython_a = os.path.join(python_lib_dir, f"lib{python_lib_name}.a")
        if not (os.path.exists(libpython_so) or os.path.exists(libpython_a)):
            raise FileNotFoundError(
                f"libpython not found, tried {libpython_so} and {libpython_a}"
            )

        LINKED_LIBPYTHON = True
    except Exception as e:
        LINKED_LIBPYTHON_ERROR = f"Error linking libpython:\n{e}\nSysconfig variables:\n{sysconfig.get_config_vars()}"

    try:
        from torch.utils.cpp_extension import library_paths, include_paths

        extra_cflags = ["-O3"]
        torch_sources = ["libtorch_tp_jit.cpp", "json11/json11.cpp"]

        include_dirs, extra_link_args = (["backend"], ["-Wl,--no-as-needed"])
        extra_include_dirs = []

        try:
            import pybind11

            extra_include_dirs.append(pybind11.get_include())
        except Exception as e:
            BUILT_EXTENSION_ERROR = (
                "Could not locate pybind11 include path required for JIT "
                f"OpenEquivariance extension compilation: {e}"
            )
            return

        if LINKED_LIBPYTHON:
            extra_link_args.pop()
            extra_link_args.extend(
                [
                    f"-Wl,--no-as-needed,-rpath,{python_lib_dir}",
                    f"-L{python_lib_dir}",
                    f"-l{python_lib_name}",
                ],
            )
        if torch.version.cuda:
            extra_link_args.extend(["-lcuda", "-lcudart", "-lnvrtc", "-lcublas"])

            try:
                torch_libs, cuda_libs = library_paths("cuda")
                extra_link_args.append("-Wl,-rpath," + torch_libs)
                extra_link_args.append("-L" + cuda_libs)
                if os.path.exists(cuda_libs + "/stubs"):
                    extra_link_args.append("-L" + cuda_libs + "/stubs")
            except Exception as e:
                getLogger().info(str(e))

            extra_cflags.append("-DCUDA_BACKEND")
        elif torch.version.hip:
            torch_libs = library_paths("cuda")[0]
            extra_link_args.append("-Wl,-rpath," + torch_libs)
            extra_cflags.append("-DHIP_BACKEND")

        torch_sources = [oeq_root + "/extension/" + src for src in torch_sources]
        include_dirs = (
            [oeq_root + "/extension/" + d for d in include_dirs]
            + extra_include_dirs
            + include_paths("cuda")
        )

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")

            try:
                _wait_for_torch_build_lock("libtorch_tp_jit")
                with _maybe_set_max_jobs_env():
                    extension_module = torch.utils.cpp_extension.load(
                        "libtorch_tp_jit",
                        torch_sources,
                        extra_cflags=extra_cflags,
                        extra_include_paths=include_dirs,
                        extra_ldflags=extra_link_args,
                    )
                torch.ops.load_library(extension_module.__file__)
                BUILT_EXTENSION = True
            except Exception as e:
                # If compiling torch fails (e.g. low gcc version), we should fall back to the
                # version that takes integer pointers as args (but is untraceable to PyTorch JIT / export).
                BUILT_EXTENSION_ERROR = e
    except Exception as e:
        BUILT_EXTENSION_ERROR = f"Error JIT-compiling OpenEquivariance Extension: {e}"


def load_precompiled_extension():
    global BUILT_EXTENSION, BUILT_EXTENSION_ERROR, LINKED_LIBPYTHON, extension_module
    LINKED_LIBPYTHON = (
        True  # Doesn't actually use libpython, just set this as true anyway
    )
    try:
        if torch.version.cuda:
            import openequivariance._torch.extlib.oeq_stable_cuda as extension_module
        elif torch.version.hip:
            import openequivariance._torch.extlib.oeq_stable_hip as extension_module

        torch.ops.load_library(extension_module.__file__)
        BUILT_EXTENSION = True
    except Exception as e:
        BUILT_EXTENSION_ERROR = (
            f"Error loading precompiled OpenEquivariance Extension: {e}"
        )


USE_PRECOMPILED_EXTENSION = True
WARNING_MESSAGE = ""

if os.getenv("OEQ_JIT_EXTENSION", "0") == "1":
    WARNING_MESSAGE += "Environment variable OEQ_JIT_EXTENSION=1 is set.\n"
    USE_PRECOMPILED_EXTENSION = False

if Version(torch.__version__) <= Version("2.9.9"):
    WARNING_MESSAGE += f"PyTorch version {torch.__version__} is < 2.10, minimum required for precompiled extension. Please upgrade to 2.10.\n"
    USE_PRECOMPILED_EXTENSION = False

if torch.version.hip:
    WARNING_MESSAGE += "HIP does not support precompiled extension yet.\n"
    USE_PRECOMPILED_EXTENSION = False

if not os.path.exists(
    os.path.join(os.path.dirname(__file__), "liboeq_stable_cuda_aoti.so")
):
    WARNING_MESSAGE += "Precompiled extension shared object not found.\n"
    USE_PRECOMPILED_EXTENSION = False


if USE_PRECOMPILED_EXTENSION:
    load_precompiled_extension()
else:
    WARNING_MESSAGE += "For these reasons, falling back to JIT compilation of OpenEquivariance extension. If another process holds the build lock, this waits up to 5 minutes, then raises an error naming the lock file to delete.\n"
    warnings.warn(WARNING_MESSAGE, stacklevel=3)
    load_jit_extension()


def torch_ext_so_path():
    if not USE_PRECOMPILED_EXTENSION:
        return extension_module.__file__
    else:
        dirname = os.path.dirname(extension_module.__file__)
        if torch.version.cuda:
            return os.path.join(dirname, "liboeq_stable_cuda_aoti.so")
        elif torch.version.hip:
            return os.path.join(dirname, "liboeq_stable_hip_aoti.so")


sys.modules["oeq_utilities"] = extension_module

if BUILT_EXTENSION:
    from oeq_utilities import (
        DeviceProp,
        GPUTimer,
    )
else:

    def _raise_import_error_helper(import_target: str):
        if not BUILT_EXTENSION:
            raise ImportError(
                f"Could not import {import_target}: {BUILT_EXTENSION_ERROR}"
            )

    def DeviceProp(*args, **kwargs):
        _raise_import_error_helper("DeviceProp")

    def GPUTimer(*args, **kwargs):
        _raise_import_error_helper("GPUTimer")
