# SPDX-FileCopyrightText: Copyright (c) 2022 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0

import builtins
import ctypes
import errno
import hashlib
import json
import ntpath
import os
import shutil
import threading
import time
from pathlib import Path

import warp.config
from warp._src.logger import LOG_DEBUG, log_warning
from warp._src.thirdparty import appdirs
from warp._src.types import *

# From nvJitLink.h
nvJitLink_input_type = {"cubin": 1, "ptx": 2, "ltoir": 3, "fatbin": 4, "object": 5, "library": 6}

warp_home = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))

# LTO cache files use a truncated SHA-256 prefix. Sixteen hex characters give a
# 64-bit key space, moving the birthday-bound 50% collision point to about
# 5.1 billion unique symbols while keeping filenames compact.
LTO_CACHE_KEY_LENGTH = 16

# Remember the cache directory produced by the most recent initialization so
# Warp can feed it back into this function without treating arbitrary
# version-named base directories as already resolved.
_resolved_kernel_cache_dir: str | None = None


def _get_extra_include_dirs(extra_include_dirs) -> list[str]:
    include_dirs: list[str] = []
    invalid_dirs: list[str] = []

    for entry in extra_include_dirs:
        path = os.fspath(entry)
        if not os.path.isabs(path):
            invalid_dirs.append(f"{path!r} (not absolute)")
            continue

        normalized_path = os.path.realpath(path)
        if not os.path.isdir(normalized_path):
            invalid_dirs.append(f"{path!r} (not a directory)")
            continue

        include_dirs.append(normalized_path)

    if invalid_dirs:
        raise ValueError("extra_include_dirs entries must be absolute existing directories: " + ", ".join(invalid_dirs))
    return include_dirs


def _get_extra_include_dir_bytes(extra_include_dirs) -> list[bytes]:
    return [path.encode("utf-8") for path in _get_extra_include_dirs(extra_include_dirs)]


# builds cuda source to PTX or CUBIN using NVRTC (output type determined by output_path extension)
def build_cuda(
    cu_path,
    arch,
    output_path,
    *,
    pch_dir,
    config="release",
    optimization_level=3,
    verify_fp=False,
    fast_math=False,
    fuse_fp=True,
    lineinfo=False,
    compile_time_trace=False,
    ltoirs=None,
    fatbins=None,
    arch_suffix="",
    llvm_cuda=False,
    use_precompiled_headers=True,
    extra_include_dirs=(),
) -> None:
    with open(cu_path, "rb") as src_file:
        src = src_file.read()
    cu_path_bytes = cu_path.encode("utf-8")
    program_name_bytes = os.path.basename(cu_path).encode("utf-8")
    inc_path = os.path.join(warp_home, "native").encode("utf-8")
    extra_cuda_include_dirs = _get_extra_include_dir_bytes(extra_include_dirs)
    num_cuda_include_dirs = len(extra_cuda_include_dirs)
    cuda_include_dirs = (
        (ctypes.c_char_p * num_cuda_include_dirs)(*extra_cuda_include_dirs) if num_cuda_include_dirs else None
    )
    output_path = output_path.encode("utf-8")

    if llvm_cuda:
        err = warp._src.context.runtime.llvm.wp_compile_cuda(
            src, cu_path_bytes, inc_path, num_cuda_include_dirs, cuda_include_dirs, output_path, False
        )
    else:
        if ltoirs is None:
            ltoirs = []
        if fatbins is None:
            fatbins = []

        link_data = list(ltoirs) + list(fatbins)
        num_link = len(link_data)
        arr_link = (ctypes.c_char_p * num_link)(*link_data)
        arr_link_sizes = (ctypes.c_size_t * num_link)(*[len(l) for l in link_data])
        link_input_types = [nvJitLink_input_type["ltoir"]] * len(ltoirs) + [nvJitLink_input_type["fatbin"]] * len(
            fatbins
        )
        arr_link_input_types = (ctypes.c_int * num_link)(*link_input_types)
        # Per-thread directory shared across module compilations for PCH reuse,
        # isolated between threads and processes to avoid .pch races.
        pch_dir_bytes = pch_dir.encode("utf-8") if pch_dir else None
        arch_suffix_bytes = arch_suffix.encode("utf-8")
        err = warp._src.context.runtime.core.wp_cuda_compile_program(
            src,
            program_name_bytes,
            arch,
            arch_suffix_bytes,
            inc_path,
            num_cuda_include_dirs,
            cuda_include_dirs,
            config == "debug",
            optimization_level,
            warp.config.log_level <= LOG_DEBUG,
            verify_fp,
            fast_math,
            fuse_fp,
            lineinfo,
            compile_time_trace,
            use_precompiled_headers,
            output_path,
            pch_dir_bytes,
            num_link,
            arr_link,
            arr_link_sizes,
            arr_link_input_types,
        )
    if err != 0:
        raise Exception(f"CUDA kernel build failed with error code {err}")


# load PTX or CUBIN as a CUDA runtime module (input type determined by input_path extension)
def load_cuda(input_path, device):
    if not device.is_cuda:
        raise RuntimeError("Not a CUDA device")

    return warp._src.context.runtime.core.wp_cuda_load_module(device.context, input_path.encode("utf-8"))


def build_cpu(
    obj_path,
    cpp_path,
    mode="release",
    verify_fp=False,
    fast_math=False,
    fuse_fp=True,
    extra_flags="",
    optimization_level=2,
    verbose=False,
    use_precompiled_headers=False,
    pch_dir=None,
    block_dim=256,
    enable_tiles_in_stack_memory=True,
    extra_include_dirs=(),
):
    with open(cpp_path, "rb") as cpp:
        src = cpp.read()
    cpp_path = cpp_path.encode("utf-8")
    inc_path = os.path.join(warp_home, "native").encode("utf-8")
    obj_path = obj_path.encode("utf-8")

    flags_list = extra_flags.split()
    if flags_list and flags_list[-1] == "-mllvm":
        raise ValueError("-mllvm requires one LLVM option argument")
    for include_dir in _get_extra_include_dirs(extra_include_dirs):
        flags_list.extend(("-I", include_dir))
    flags_array = (ctypes.c_char_p * (len(flags_list) + 1))(*[f.encode("utf-8") for f in flags_list], None)

    pch_dir_bytes = pch_dir.encode("utf-8") if pch_dir else None

    err = warp._src.context.runtime.llvm.wp_compile_cpp(
        src,
        cpp_path,
        inc_path,
        obj_path,
        mode == "debug",
        verify_fp,
        fuse_fp,
        enable_tiles_in_stack_memory,
        flags_array,
        optimization_level,
        verbose,
        use_precompiled_headers,
        pch_dir_bytes,
        block_dim,
    )
    if err != 0:
        raise Exception(f"CPU kernel build failed with error code {err}")


def _add_long_path_prefix(path):
    """Add the Windows long-path prefix to an absolute path, accounting for UNC shares.

    Prefixed paths bypass the legacy 260-character MAX_PATH limit without requiring
    system-wide long-path support. Relative paths and paths that already carry the
    prefix are returned unchanged.
    """
    if not ntpath.isabs(path) or path.startswith("\\\\?\\"):
        return path
    if path.startswith("\\\\"):
        # UNC path  \\server\share\…  →  \\?\UNC\server\share\…
        return "\\\\?\\UNC\\" + path.removeprefix("\\\\")
    # Drive-letter path  C:\…  →  \\?\C:\…
    return "\\\\?\\" + path


def init_kernel_cache(path=None):
    """Initialize kernel cache directory.

    This function is used during Warp initialization, but it can also be called directly to change the cache location.
    If the path is not explicitly specified, a default location will be chosen based on OS-specific conventions.

    To change the default cache location, set warp.config.kernel_cache_dir before calling warp.init().
    """

    global _resolved_kernel_cache_dir

    if path is not None:
        base_dir = os.path.realpath(path)
    elif "WARP_CACHE_PATH" in os.environ:
        base_dir = os.path.realpath(os.environ.get("WARP_CACHE_PATH"))
    else:
        base_dir = None
        cache_root_dir = appdirs.user_cache_dir(appname="warp", appauthor="NVIDIA", version=warp.config.version)

    if base_dir is not None:
        # The remembered path carries the Windows long-path prefix, so compare against the
        # prefixed spelling. os.path.realpath() keeps a prefix that is already there but never
        # adds one, so an unprefixed path naming the same directory would otherwise miss.
        resolved_candidate = _add_long_path_prefix(base_dir) if os.name == "nt" else base_dir

        if resolved_candidate == _resolved_kernel_cache_dir:
            cache_root_dir = resolved_candidate
            base_dir = os.path.dirname(base_dir)
        else:
            cache_root_dir = os.path.join(base_dir, warp.config.version)

    if os.name == "nt":
        # Module paths under the cache can exceed MAX_PATH on systems without
        # long-path support enabled, so custom locations need the prefix too.
        cache_root_dir = _add_long_path_prefix(cache_root_dir)

    warp.config.kernel_cache_dir = cache_root_dir

    os.makedirs(warp.config.kernel_cache_dir, exist_ok=True)
    _resolved_kernel_cache_dir = cache_root_dir

    # Warn about stale kernel artifacts in the unversioned base directory.
    # Prior to Warp 1.13, custom cache paths were used without a version
    # subdirectory, so old artifacts may linger in the parent directory.
    if base_dir is not None and os.path.isdir(base_dir):
        try:
            with os.scandir(base_dir) as entries:
                has_stale = any(entry.is_dir() and entry.name.startswith("wp_") for entry in entries)
        except OSError:
            has_stale = False
        if has_stale:
            from warp._src.logger import log_warning  # noqa: PLC0415

            log_warning(
                f"Kernel cache artifacts from a previous Warp version were found in '{base_dir}'. "
                f"These will be ignored. You can safely delete them.",
            )


def clear_kernel_cache() -> None:
    """Clear the kernel cache directory of previously generated source code and compiler artifacts.

    Only directories beginning with ``wp_`` will be deleted.
    This function only clears the cache for the current Warp version.
    LTO artifacts are not affected.
    """

    warp._src.context.init()

    for m in warp._src.context.user_modules.values():
        m.unload()

    for item in os.listdir(warp.config.kernel_cache_dir):
        item_path = os.path.join(warp.config.kernel_cache_dir, item)
        if os.path.isdir(item_path) and item.startswith("wp_"):
            # Remove the directory and its contents
            shutil.rmtree(item_path, ignore_errors=True)


def clear_lto_cache() -> None:
    """Clear the LTO cache directory of previously generated LTO code.

    The LTO cache is stored within a subdirectory of the kernel cache directory.
    This function only clears the cache for the current Warp version.
    """

    warp._src.context.init()

    lto_path = os.path.join(warp.config.kernel_cache_dir, "lto")
    if os.path.isdir(lto_path):
        # Remove the lto directory and its contents
        shutil.rmtree(lto_path, ignore_errors=True)

    # aligned GEMM variants rejected by cuBLASDx may be retried once the cache is rebuilt
    _gemm_lto_alignment_unsupported.clear()


def safe_rename(src, dst, attempts=5, delay=0.1):
    for i in range(attempts):
        try:
            os.rename(src, dst)
            return
        except FileExistsError:
            return
        except OSError as e:
            if e.errno == errno.ENOTEMPTY:
                # if directory exists we assume another process
                # got there first, in which case we will copy
                # our output to the directory manually in second step
                return
            else:
                # otherwise assume directory creation failed e.g.: access denied
                # on Windows we see occasional failures to rename directories due to
                # some process holding a lock on a file to be moved to workaround
                # this we make multiple attempts to rename with some delay
                if i < attempts - 1:
                    time.sleep(delay)
                else:
                    from warp._src.logger import log_error  # noqa: PLC0415

                    log_error(
                        f"Could not update Warp cache with compiled binaries, trying to rename {src} to {dst}, error {e}"
                    )
                    raise e


def hash_symbol(symbol):
    ch = hashlib.sha256()
    ch.update(symbol.encode("utf-8"))
    return ch.hexdigest()


def get_lto_cache_dir():
    lto_dir = os.path.join(warp.config.kernel_cache_dir, "lto")
    return lto_dir


def get_cached_lto(path):
    if os.path.exists(path):
        with open(path, "rb") as f:
            lto_code_data = f.read()
        return lto_code_data
    else:
        return None


def get_cached_lto_meta(path, symbol):
    if not os.path.exists(path):
        return None

    try:
        with open(path) as f:
            keys = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError, OSError):
        return None

    if not isinstance(keys, dict):
        return None

    value = keys.get(symbol)
    if type(value) is not builtins.int or value < 0:
        return None

    return value


def _build_lto_base(lto_symbol, compile_func, builder, extra_files=None):
    """Generic LTO build function that handles caching, file operations and process management.

    Args:
        lto_symbol: Unique identifier for the LTO operation
        compile_func: Function to compile the specific LTO
            (receives a dictionary of build paths)
        builder: Builder object to store results
        extra_files: Dictionary of additional file types to handle (e.g.,
            {".meta": None, ".fatbin": None}). Values are the functions to get
            the cached file data.

    Returns:
        Tuple where the first element is a success flag (``bool``). The second
        element is the LTO code as bytes (or ``None`` on failure).
        If ``extra_files`` is provided, additional elements follow in the same
        order as the keys in ``extra_files``:
          - ``".meta"``: int (shared memory bytes).
          - ``"_fatbin.lto"``: bytes (universal fatbin).
    """
    if extra_files is None:
        extra_files = {}

    # Hash symbol and set up paths
    h = hash_symbol(lto_symbol)[:LTO_CACHE_KEY_LENGTH]
    lto_dir = get_lto_cache_dir()
    lto_name = f"{h}.lto"
    lto_path = os.path.join(lto_dir, lto_name)

    # Set up paths for extra files
    file_paths = {".lto": lto_path}
    temp_file_paths = {}

    for ext, _ in extra_files.items():
        name = f"{h}{ext}"
        file_paths[ext] = os.path.join(lto_dir, name)

    # Check the persistent LTO cache before compiling.
    lto_code_data = get_cached_lto(lto_path)
    cached_extra_files = {}
    invalid_extra_files = set()
    if lto_code_data is not None:
        # Get the cached data for the extra files and early return
        all_files_cached = True
        for ext, getter in extra_files.items():
            if getter and os.path.exists(file_paths[ext]):
                cached_data = getter(file_paths[ext])
                if cached_data is None:
                    invalid_extra_files.add(ext)
                    all_files_cached = False
                    break
                cached_extra_files[ext] = cached_data
            elif getter:  # If there's a getter but file doesn't exist
                all_files_cached = False
                break

        if all_files_cached:
            if not extra_files:
                return (True, lto_code_data)
            else:
                return (
                    True,
                    lto_code_data,
                    *[cached_extra_files.get(ext) for ext in extra_files.keys()],
                )

    # Create process-dependent temporary build directory
    build_dir = f"{lto_dir}_p{os.getpid()}_t{threading.get_ident()}"
    Path(build_dir).mkdir(parents=True, exist_ok=True)

    # Set up temporary paths for the build outputs
    for ext, path in file_paths.items():
        temp_file_paths[ext] = os.path.join(build_dir, os.path.basename(path))

    # Compile LTO with the specialized function
    result, outputs = compile_func(temp_file_paths)

    if not result:
        # Clean up and fail
        for path in temp_file_paths.values():
            if Path(path).exists():
                Path(path).unlink()

        outputs[".lto"] = None
        for ext in extra_files.keys():
            outputs[ext] = None
    else:
        # Move outputs to cache
        safe_rename(build_dir, lto_dir)

        # If build_dir couldn't be moved by a rename, move the outputs one-by-one to lto_dir
        if os.path.exists(lto_dir):
            replace_lto = len(invalid_extra_files) > 0
            for ext, path in file_paths.items():
                if (replace_lto and ext == ".lto") or ext in invalid_extra_files:
                    try:
                        # Replace inconsistent cache outputs so future processes hit a coherent entry.
                        os.replace(temp_file_paths[ext], path)
                    except OSError:
                        pass
                elif not os.path.exists(path):
                    try:
                        # copy output file to the destination lto dir
                        os.rename(temp_file_paths[ext], path)
                    except (OSError, FileExistsError):
                        # another process likely updated the lto dir first
                        pass

    # Clean up the temporary build directory
    if build_dir:
        shutil.rmtree(build_dir, ignore_errors=True)

    if not extra_files:
        return (result, outputs[".lto"])
    else:
        return (result, outputs[".lto"], *[outputs[ext] for ext in extra_files.keys()])


# cuBLASDx GEMM LTO symbols whose aligned variant failed to compile in this process; the
# unaligned variant is used for them and the aligned compile is not retried until the process
# restarts or the LTO cache is cleared.
_gemm_lto_alignment_unsupported: set[str] = set()

# Warp compiles one module variant per block_dim and launches with exactly that many threads,
# so cuBLASDx may specialize its GEMMs on the block size instead of reading it at runtime.
_GEMM_ENABLE_STATIC_BLOCK_DIM = True


def _get_mathdx_arch(arch: int) -> int:
    # libmathdx 0.4.1 does not support sm_107, so generate compatible sm_103 LTO.
    # Remove this fallback when the bundled libmathdx supports sm_107.
    if arch == 107:
        return 103
    return 120 if arch > 121 else arch


def _gemm_operand_alignments(
    dense_lds: tuple[int, int, int],
    native_lds: tuple[int, int, int],
    elem_bytes: tuple[int, int, int],
    aligned_bases: tuple[bool, bool, bool],
) -> tuple[int, int, int]:
    """Choose the cuBLASDx ``Alignment<A, B, C>`` operator values for a GEMM.

    An operand is declared 16-byte aligned when its base pointer is known to be 16-byte
    aligned and its dense leading dimension spans a multiple of 16 bytes, which lets cuBLASDx
    vectorize its shared-memory accesses for that operand.

    Args:
        dense_lds: Dense leading dimensions of A, B, and C in elements.
        native_lds: Leading dimensions passed to the LeadingDimension operator, or all zeros
            when the GEMM is dense and the operator is left unset.
        elem_bytes: Element size of A, B, and C in bytes.
        aligned_bases: Whether the base pointer of A, B, and C is known to be 16-byte aligned.

    Returns:
        Alignment in bytes for A, B, and C. Operands that do not qualify keep their element size,
        which is the cuBLASDx default, and a 16-bit C is capped at 8 bytes to sidestep a cuBLASDx
        layout bug. All zeros means the operator is left unset, which is the case when no operand
        qualifies or when ``native_lds`` is set.
    """
    if native_lds != (0, 0, 0):
        return (0, 0, 0)
    aligned = [
        16 if (base and (ld * eb) % 16 == 0) else eb
        for ld, eb, base in zip(dense_lds, elem_bytes, aligned_bases, strict=True)
    ]
    # cuBLASDx (through libmathdx 0.4.1) fails to compile some 16-bit GEMM layouts when C is
    # declared 16-byte aligned (it pairs an 8-byte LDSM load with a 16-byte STSM store on sm_90 and
    # newer); 8 bytes compiles everywhere tested. Remove once the cuBLASDx fix ships.
    if elem_bytes[2] == 2 and aligned[2] == 16:
        aligned[2] = 8
    if all(al == eb for al, eb in zip(aligned, elem_bytes, strict=True)):
        return (0, 0, 0)
    return (aligned[0], aligned[1], aligned[2])


def build_lto_dot(
    M,
    N,
    K,
    adtype,
    bdtype,
    cdtype,
    alayout,
    blayout,
    clayout,
    arch,
    num_threads,
    builder,
    lda=None,
    ldb=None,
    ldc=None,
    aligned_bases=(False, False, False),
    precision=None,
):
    """Compile (or fetch from the LTO cache) a cuBLASDx GEMM ``C = alpha * A @ B + beta * C``.

    The operand alignment declared to cuBLASDx is chosen by :func:`_gemm_operand_alignments`.
    If cuBLASDx rejects the aligned variant, the GEMM is rebuilt without the alignment operator
    and a warning is logged; the returned symbol reflects the variant that compiled.

    Args:
        M: Rows of A and C.
        N: Columns of B and C.
        K: Columns of A and rows of B.
        adtype: Element type of A.
        bdtype: Element type of B.
        cdtype: Element type of C.
        alayout: ``"rowmajor"`` or ``"colmajor"`` arrangement of A.
        blayout: Arrangement of B.
        clayout: Arrangement of C.
        arch: Target compute capability as an integer (for example ``120``).
        num_threads: Threads per block the kernel is compiled and launched with.
        builder: Module builder that records the LTO and its declaration.
        lda: Leading dimension of A in elements, or ``None`` when dense.
        ldb: Leading dimension of B in elements, or ``None`` when dense.
        ldc: Leading dimension of C in elements, or ``None`` when dense.
        aligned_bases: Whether the base pointer of A, B, and C is known to be 16-byte aligned.
        precision: ``"tf32"`` for TF32 input precision with ``float32`` accumulation, or
            ``None`` to compute in the operand precision. Storage remains ``float32`` and
            Tensor Core use depends on the GEMM configuration. The precision codes in the
            LTO symbol keep the variants apart.

    Returns:
        ``(lto_symbol, lto_code_data)`` for the variant that compiled.

    Raises:
        RuntimeError: If neither the aligned nor the unaligned variant compiles.
    """
    arch = _get_mathdx_arch(arch)

    # Maps Python/Warp types to C++ types and enums
    def cublasdx_type_map(dtype):
        if dtype == float16:
            return ("wp::float16", 3, 0)
        if dtype == bfloat16:
            return ("wp::bfloat16", 2, 0)  # COMMONDX_PRECISION_BF16
        if dtype == float32:
            return ("wp::float32", 5, 0)
        if dtype == float64:
            return ("wp::float64", 6, 0)
        if dtype == vec2h:
            return ("wp::vec2h", 3, 1)
        if dtype == vec2f:
            return ("wp::vec2f", 5, 1)
        if dtype == vec2d:
            return ("wp::vec2d", 6, 1)
        raise TypeError("Unsupported input type in tile_matmul")

    def cublasdx_arrangement_map(layout):
        if layout == "colmajor":
            return 0  # CUBLASDX_ARRANGEMENT_COL_MAJOR
        if layout == "rowmajor":
            return 1  # CUBLASDX_ARRANGEMENT_ROW_MAJOR
        raise ValueError("Unsupported layout in tile_matmul")

    (a_dtype, a_prec, a_type) = cublasdx_type_map(adtype)
    (b_dtype, b_prec, b_type) = cublasdx_type_map(bdtype)
    (c_dtype, c_prec, c_type) = cublasdx_type_map(cdtype)

    if precision == "tf32":
        # Request TF32 input precision without changing float32 storage.
        # C keeps F32 so accumulation stays in float32.
        # The tile_matmul dispatch has already rejected non-float32 operands.
        a_prec = 4  # COMMONDX_PRECISION_TF32
        b_prec = 4
    elif precision is not None:
        raise ValueError(f"build_lto_dot() precision must be None or 'tf32', got {precision!r}")
    a_arrangement = cublasdx_arrangement_map(alayout)
    b_arrangement = cublasdx_arrangement_map(blayout)
    c_arrangement = cublasdx_arrangement_map(clayout)

    if a_type != b_type or a_type != c_type:
        raise TypeError("tile_matmul(A, B, C) requires all inputs to be real or complex")

    element_type = a_type

    # A leading dimension is the element stride between rows of a row-major operand,
    # or between columns of a col-major one. None means dense.
    def dense_ld(layout, rows, cols):
        return cols if layout == "rowmajor" else rows

    dense_lds = (dense_ld(alayout, M, K), dense_ld(blayout, K, N), dense_ld(clayout, M, N))
    if lda is None:
        lda = dense_lds[0]
    if ldb is None:
        ldb = dense_lds[1]
    if ldc is None:
        ldc = dense_lds[2]

    # Pass zeros for dense strides, leaving the LeadingDimension operator unset.
    # cuBLASDx validates an explicit LeadingDimension more strictly than the default;
    # see the fallback in the tile_matmul dispatch.
    native_lds = (0, 0, 0) if (lda, ldb, ldc) == dense_lds else (lda, ldb, ldc)

    lto_symbol = f"dot_{M}_{N}_{K}_{arch}_{num_threads}_{a_arrangement}_{b_arrangement}_{c_arrangement}_{a_prec}_{b_prec}_{c_prec}_{element_type}"
    # explicit leading dimensions are part of the LTO identity
    if (lda, ldb, ldc) != dense_lds:
        lto_symbol += f"_{lda}_{ldb}_{ldc}"

    alignments = _gemm_operand_alignments(
        dense_lds,
        native_lds,
        tuple(type_size_in_bytes(t) for t in (adtype, bdtype, cdtype)),
        tuple(builtins.bool(b) for b in aligned_bases),
    )

    def operator_symbol(al):
        """Return the LTO symbol with the cuBLASDx operator settings appended, so they are part of the cache identity."""
        return f"{lto_symbol}_al{al[0]}_{al[1]}_{al[2]}_sb{int(_GEMM_ENABLE_STATIC_BLOCK_DIM)}"

    def make_compile_func(symbol, al, suppress_errors):
        """Return the compile callback for one variant.

        Args:
            symbol: LTO symbol to generate.
            al: Alignment in bytes to declare for A, B, and C.
            suppress_errors: Whether a rejected configuration is expected and must not be
                printed as a native error.
        """

        def compile_lto_dot(temp_paths):
            """Compile the GEMM LTO into ``temp_paths[".lto"]`` and return ``(success, {".lto": bytes})``."""
            result = warp._src.context.runtime.core.wp_cuda_compile_dot(
                temp_paths[".lto"].encode("utf-8"),
                symbol.encode("utf-8"),
                0,
                None,
                None,
                arch,
                M,
                N,
                K,
                a_prec,
                b_prec,
                c_prec,
                element_type,
                a_arrangement,
                b_arrangement,
                c_arrangement,
                num_threads,
                native_lds[0],
                native_lds[1],
                native_lds[2],
                al[0],
                al[1],
                al[2],
                int(_GEMM_ENABLE_STATIC_BLOCK_DIM),
                int(suppress_errors),
            )

            if result:
                with open(temp_paths[".lto"], "rb") as f:
                    lto_code_data = f.read()
                return True, {".lto": lto_code_data}
            return False, {}

        return compile_lto_dot

    # cuBLASDx rejects some layouts when an operand is declared 16-byte aligned (for example fp16
    # GEMMs with N=16 on sm_90 and newer), so fall back to the unaligned variant if the aligned
    # compile fails
    attempts = [alignments] if alignments == (0, 0, 0) else [alignments, (0, 0, 0)]
    rejected_symbol = None
    for al in attempts:
        symbol = operator_symbol(al)
        if symbol in builder.ltoirs:
            if rejected_symbol is not None:
                # the fallback was already built for another GEMM in this module; remember the
                # rejection so later GEMMs with the same shape skip the failing compile
                _gemm_lto_alignment_unsupported.add(rejected_symbol)
            return symbol, builder.ltoirs[symbol]
        if symbol in _gemm_lto_alignment_unsupported:
            continue

        # a rejected aligned variant is expected and handled below, so its compile does not report errors
        has_fallback = al != (0, 0, 0)
        (result, lto_code_data) = _build_lto_base(symbol, make_compile_func(symbol, al, has_fallback), builder, {})
        if result:
            if rejected_symbol is not None:
                # remember the rejection only once the fallback is known to work, so a transient
                # failure does not disable the aligned variant for the rest of the process
                _gemm_lto_alignment_unsupported.add(rejected_symbol)
            builder.ltoirs[symbol] = lto_code_data
            builder.ltoirs_decl[symbol] = f"void {symbol}({c_dtype}*, {a_dtype}*, {b_dtype}*, {c_dtype}*, {c_dtype}*);"
            return symbol, lto_code_data

        if has_fallback:
            rejected_symbol = symbol
            log_warning(
                f"cuBLASDx rejected the 16-byte-aligned GEMM for tile_matmul ({adtype.__name__} {M}x{N}x{K}, "
                f"{num_threads} threads, sm_{arch}); retrying without explicit alignment. Results are unaffected "
                "but performance may be reduced. Please report this warning in a Warp GitHub issue."
            )

    raise RuntimeError(
        f"Failed to compile LTO '{symbol}'. "
        "Set the environment variable LIBMATHDX_LOG_LEVEL=5 and rerun for more details."
    )


def build_lto_solver(
    M,
    N,
    K,
    solver,
    solver_enum,
    side_enum,
    diag_enum,
    alayout,
    blayout,
    fill_mode,
    arch,
    precision_enum,
    num_threads,
    parameter_list,
    builder,
    smem_estimate_bytes=None,
):
    arch = _get_mathdx_arch(arch)

    def cusolverdx_arrangement_map(layout):
        if layout == "colmajor":
            return 0  # CUSOLVERDX_ARRANGEMENT_COL_MAJOR
        if layout == "rowmajor":
            return 1  # CUSOLVERDX_ARRANGEMENT_ROW_MAJOR
        raise ValueError("Unsupported layout in tile_matmul")

    a_arrangement = cusolverdx_arrangement_map(alayout)
    b_arrangement = cusolverdx_arrangement_map(blayout)

    lto_symbol = f"{solver}_{M}_{N}_{K}_{arch}_{num_threads}_{a_arrangement}_{b_arrangement}_{precision_enum}_{side_enum if side_enum >= 0 else 'x'}_{diag_enum if diag_enum >= 0 else 'x'}_{fill_mode}"

    def compile_lto_solver(temp_paths):
        # compile LTO
        result = warp._src.context.runtime.core.wp_cuda_compile_solver(
            temp_paths["_fatbin.lto"].encode("utf-8"),
            temp_paths[".lto"].encode("utf-8"),
            lto_symbol.encode("utf-8"),
            0,
            None,
            None,
            arch,
            M,
            N,
            K,
            solver_enum,
            side_enum,
            diag_enum,
            precision_enum,
            a_arrangement,
            b_arrangement,
            fill_mode,
            num_threads,
        )

        if result:
            with open(temp_paths[".lto"], "rb") as f:
                lto_code_data = f.read()
            with open(temp_paths["_fatbin.lto"], "rb") as f:
                universal_fatbin_code_data = f.read()
            return True, {".lto": lto_code_data, "_fatbin.lto": universal_fatbin_code_data}
        return False, {}

    # Early out if already cached in module
    if lto_symbol in builder.ltoirs:
        lto_code_data = builder.ltoirs[lto_symbol]
    else:
        (result, lto_code_data, universal_fatbin_code_data) = _build_lto_base(
            lto_symbol, compile_lto_solver, builder, {"_fatbin.lto": get_cached_lto}
        )

        if not result:
            hint = ""
            if smem_estimate_bytes:
                max_smem_bytes = 232448
                max_smem_is_estimate = True
                for d in warp.get_cuda_devices():
                    if d.arch == arch:
                        max_smem_bytes = d.max_shared_memory_per_block
                        max_smem_is_estimate = False
                        break
                if smem_estimate_bytes > max_smem_bytes:
                    source = "estimated limit" if max_smem_is_estimate else "device-reported limit"
                    hint = (
                        f"Estimated shared memory requirement is {smem_estimate_bytes}B, "
                        f"but the {source} is {max_smem_bytes}B, and a kernel's usable budget is lower "
                        "still because Warp reserves static shared memory per block. "
                        "The tile size(s) may be too large for this device."
                    )

            if warp._src.context.runtime.toolkit_version < (12, 6):
                raise RuntimeError(
                    "cuSolverDx requires CUDA Toolkit 12.6.3 or later. This version of Warp was built against CUDA Toolkit "
                    f"{warp._src.context.runtime.toolkit_version[0]}.{warp._src.context.runtime.toolkit_version[1]}. "
                    "Upgrade your CUDA Toolkit and rebuild Warp, or install a Warp wheel built with CUDA >= 12.6.3."
                )
            else:
                raise RuntimeError(
                    f"Failed to compile LTO '{lto_symbol}'. {hint}"
                    " Set the environment variable LIBMATHDX_LOG_LEVEL=5 and rerun for more details."
                )

        # Update builder
        builder.ltoirs[lto_symbol] = lto_code_data
        builder.ltoirs_decl[lto_symbol] = f"void {lto_symbol}{parameter_list};"

        # only store the universal fatbin once (all solvers produce the same one)
        if "cusolverdx" not in builder.fatbins:
            builder.fatbins["cusolverdx"] = universal_fatbin_code_data

    return lto_symbol, lto_code_data


def build_lto_fft(arch, size, ept, direction, dir, precision, builder):
    arch = _get_mathdx_arch(arch)

    lto_symbol = f"fft_{size}_{ept}_{arch}_{direction}_{precision}"
    dtype_ctype = "wp::vec2f" if precision == 5 else "wp::vec2d"

    def compile_lto_fft(temp_paths):
        shared_memory_size = ctypes.c_int(0)

        result = warp._src.context.runtime.core.wp_cuda_compile_fft(
            temp_paths[".lto"].encode("utf-8"),
            lto_symbol.encode("utf-8"),
            0,
            None,
            None,
            arch,
            size,
            ept,
            dir,
            precision,
            ctypes.byref(shared_memory_size),
        )

        if result:
            with open(temp_paths[".lto"], "rb") as f:
                lto_code_data = f.read()

            shared_memory_bytes = tile.round_up(shared_memory_size.value)

            # output meta file with shared memory requirements for this lto_symbol
            meta = {}
            meta[lto_symbol] = shared_memory_bytes

            with open(temp_paths[".meta"], "w") as meta_file:
                json.dump(meta, meta_file, sort_keys=True)

            return True, {".lto": lto_code_data, ".meta": shared_memory_bytes}

        return False, {}

    # Early out if already cached in module
    if lto_symbol in builder.ltoirs and lto_symbol in builder.shared_memory_bytes:
        lto_code_data = builder.ltoirs[lto_symbol]
        shared_memory_bytes = builder.shared_memory_bytes[lto_symbol]
    else:
        (result, lto_code_data, shared_memory_bytes) = _build_lto_base(
            lto_symbol, compile_lto_fft, builder, {".meta": lambda path: get_cached_lto_meta(path, lto_symbol)}
        )

        if not result:
            raise RuntimeError(
                f"Failed to compile LTO '{lto_symbol}'."
                "Set the environment variable LIBMATHDX_LOG_LEVEL=5 and rerun for more details."
            )

        # Update builder
        builder.ltoirs[lto_symbol] = lto_code_data
        builder.ltoirs_decl[lto_symbol] = f"void {lto_symbol}({dtype_ctype}*, char*);"
        builder.shared_memory_bytes[lto_symbol] = shared_memory_bytes

    return lto_symbol, lto_code_data, shared_memory_bytes
