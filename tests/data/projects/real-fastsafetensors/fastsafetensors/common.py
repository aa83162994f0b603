# SPDX-License-Identifier: Apache-2.0

import json
import logging
import os
import re
import sys
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Set, Tuple

from . import cpp as fstcpp
from .dlpack import from_cuda_buffer
from .frameworks import FrameworkOpBase, TensorBase
from .st_types import Device, DType

if TYPE_CHECKING:
    from .allocation import SharedDeviceAllocation


def init_logger(name: str):
    return logging.getLogger(name)


def set_debug():
    logging.basicConfig(
        format="[%(levelname)s] %(message)s", level=logging.DEBUG, force=True
    )


def is_debug(logger: logging.Logger) -> bool:
    return logger.isEnabledFor(logging.DEBUG)


def is_gpu_found():
    """Check if any GPU (CUDA or HIP) is available.

    Returns True if either CUDA or ROCm/HIP GPUs are detected.
    This allows code to work transparently across both platforms.
    """
    return fstcpp.is_cuda_found() or fstcpp.is_hip_found()


def get_fs_type(path: str, mounts_file: str = "/proc/mounts") -> str:
    """Best-effort filesystem type for *path* (longest mount-point prefix
    match). Returns "" when it cannot be determined (non-Linux, unreadable
    mounts table). Used to pick I/O strategies -- e.g. O_DIRECT is a win on
    local block devices but loses kernel readahead on network filesystems.
    """
    try:
        real = os.path.realpath(path)
        best_mnt, best_type = "", ""
        with open(mounts_file) as f:
            for line in f:
                parts = line.split()
                if len(parts) < 3:
                    continue
                # /proc/mounts octal-escapes spaces and tabs in mount points
                mnt = parts[1].replace("\\040", " ").replace("\\011", "\t")
                fstype = parts[2]
                if real == mnt or real.startswith(mnt.rstrip("/") + "/"):
                    if len(mnt) > len(best_mnt):
                        best_mnt, best_type = mnt, fstype
        return best_type
    except OSError:
        return ""


# Preserve kernel readahead and client caching on network filesystems.
_NETWORK_FS = {
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "smbfs",
    "sshfs",
    "fuse.sshfs",
    "lustre",
    "gpfs",
    "beegfs",
    "glusterfs",
    "ceph",
    "9p",
    "virtiofs",
}
# RAM-backed filesystems: the page cache is the storage, so a bounce-buffer
# reader gains nothing from O_DIRECT, and tmpfs rejects it before Linux 6.6.
# Only copiers that opt in (nogds) read these buffered; the unified copier's
# multithreaded direct reader is unmeasured there and keeps its default.
_RAM_FS = {"tmpfs", "ramfs"}
_warned_odirect_fs: Set[str] = set()

# Appended to read failures on an O_DIRECT descriptor, so the user can tell a
# direct-I/O rejection from a truncated or unreadable file.
ODIRECT_HINT = "set FASTSAFETENSORS_ODIRECT=0 to use buffered reads"


def is_odirect_enabled(path: str, buffered_ram_fs: bool = False) -> bool:
    """Select direct I/O by default on local or unknown filesystems.

    FASTSAFETENSORS_ODIRECT=1/0 overrides the filesystem policy for every
    copier. ``buffered_ram_fs`` also reads tmpfs and ramfs buffered. Platforms
    without O_DIRECT use buffered I/O. This is a policy check, not a probe of
    whether this particular file accepts direct I/O; copiers that open with
    O_DIRECT fall back to buffered reads when the filesystem rejects it.
    """
    if not getattr(os, "O_DIRECT", 0):
        return False
    override = os.environ.get("FASTSAFETENSORS_ODIRECT")
    if override is not None:
        return override == "1"
    fstype = get_fs_type(path)
    if fstype in _NETWORK_FS or (buffered_ram_fs and fstype in _RAM_FS):
        if fstype not in _warned_odirect_fs:
            _warned_odirect_fs.add(fstype)
            init_logger(__name__).info(
                "checkpoint on %s: using buffered reads instead of O_DIRECT "
                "(set FASTSAFETENSORS_ODIRECT=1 to force)",
                fstype,
            )
        return False
    return True


def get_device_numa_node(device: Optional[int]) -> Optional[int]:
    if device is None or not sys.platform.startswith("linux"):
        return None
    pci_addr = fstcpp.get_device_pci_bus(device)
    if pci_addr == "":
        return None
    bus_addr = ":".join(pci_addr.split(":")[:2]).lower()
    syspath = f"/sys/class/pci_bus/{bus_addr}/device/numa_node"
    if not os.path.exists(syspath):
        return None
    with open(syspath) as f:
        return int(f.read().strip())


def _normalize_windows_dll_path(path: str, source: str) -> str:
    """Return a normalized absolute DLL path on Windows.

    We intentionally reject relative paths and bare DLL names here so callers do
    not fall back to the Windows DLL search order, which is susceptible to DLL
    planting / search-order hijacking.
    """
    expanded = os.path.expandvars(os.path.expanduser(path))
    if not os.path.isabs(expanded):
        raise ValueError(f"{source} must be an absolute path on Windows: {path!r}")
    normalized = os.path.abspath(expanded)
    if not os.path.isfile(normalized):
        raise FileNotFoundError(
            f"{source} points to a missing DLL on Windows: {normalized}"
        )
    return normalized


def resolve_runtime_lib_name(framework=None) -> str:
    """Resolve the GPU runtime library to dlopen for the current platform.

    On Windows, returns an absolute cudart DLL path. On other platforms, maps the framework's declared GPU
    vendor to a runtime library so the dlopen'd vendor stays in sync with the
    framework's GPU build. Returns "" when there is no usable hint so the caller falls
    back to auto-detection.
    """
    if sys.platform == "win32":
        return _resolve_windows_cudart_lib_name(framework)
    if framework is None:
        return ""
    try:
        ver = framework.get_cuda_ver()
    except Exception:
        return ""
    if not ver or "-" not in ver:
        return ""
    vendor = ver.split("-", 1)[0]
    if vendor == "hip":
        return "libamdhip64.so"
    if vendor == "cuda":
        return "libcudart.so"
    return ""


def _resolve_windows_cudart_lib_name(framework=None) -> str:
    """Resolve the absolute cudart DLL path on Windows, "" for the default."""
    # Allow explicit override via environment variable
    override = os.environ.get("FASTSAFETENSORS_CUDART_LIB", "").strip()
    if override:
        return _normalize_windows_dll_path(override, "FASTSAFETENSORS_CUDART_LIB")

    import glob

    def _find_cudart_in_dir(d: str) -> str:
        """Scan a trusted directory for cudart64_*.dll files."""
        if not d:
            return ""
        expanded = os.path.expandvars(os.path.expanduser(d))
        if not os.path.isabs(expanded):
            return ""
        d = os.path.abspath(expanded)
        if not os.path.isdir(d):
            return ""
        matches = []
        for path in glob.glob(os.path.join(d, "cudart64_*.dll")):
            match = re.fullmatch(r"cudart64_(\d+)\.dll", os.path.basename(path))
            if match:
                matches.append((int(match.group(1)), path))
        if matches:
            matches.sort(key=lambda item: item[0], reverse=True)
            return os.path.abspath(matches[0][1])
        return ""

    def _detect_from_nvcc(cuda_home: str) -> str:
        """Try to detect the CUDA major version from nvcc -V output."""
        expanded = os.path.expandvars(os.path.expanduser(cuda_home))
        if not os.path.isabs(expanded):
            return ""
        cuda_home = os.path.abspath(expanded)
        nvcc = os.path.join(cuda_home, "bin", "nvcc.exe")
        if not os.path.isfile(nvcc):
            return ""
        try:
            import subprocess

            output = subprocess.check_output(
                [nvcc, "-V"], universal_newlines=True, stderr=subprocess.STDOUT
            )
            tokens = output.split()
            release_idx = tokens.index("release") + 1
            version_str = tokens[release_idx].rstrip(",")
            cuda_major = version_str.split(".")[0]
            candidate = os.path.join(cuda_home, "bin", f"cudart64_{cuda_major}.dll")
            if os.path.isfile(candidate):
                return os.path.abspath(candidate)
            return ""
        except Exception:
            return ""

    # Framework wheels such as PyTorch can bundle cudart without installing a
    # system CUDA Toolkit.
    if framework is not None:
        try:
            runtime_dirs = framework.get_runtime_lib_dirs()
        except (AttributeError, OSError):
            runtime_dirs = []
        for runtime_dir in runtime_dirs:
            result = _find_cudart_in_dir(runtime_dir)
            if result:
                return result

    # Try to detect from CUDA_HOME / CUDA_PATH
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if cuda_home:
        result = _detect_from_nvcc(cuda_home)
        if result:
            return result
        result = _find_cudart_in_dir(os.path.join(cuda_home, "bin"))
        if result:
            return result

    # Scan common NVIDIA install locations
    program_files = os.environ.get("ProgramFiles", r"C:\Program Files")
    nvidia_base = os.path.join(program_files, "NVIDIA GPU Computing Toolkit", "CUDA")
    if os.path.isdir(nvidia_base):
        # List version directories (e.g. v12.6, v11.8), newest first
        try:
            versions = sorted(
                (
                    version
                    for version in os.listdir(nvidia_base)
                    if re.fullmatch(r"v\d+(?:\.\d+)*", version)
                ),
                key=lambda version: tuple(int(part) for part in version[1:].split(".")),
                reverse=True,
            )
        except OSError:
            versions = []
        for ver_dir in versions:
            result = _find_cudart_in_dir(os.path.join(nvidia_base, ver_dir, "bin"))
            if result:
                return result

    return ""  # fall back to compiled-in default


def _read_exact(fd: int, length: int, filename: str) -> bytes:
    """Read exactly ``length`` bytes from ``fd``, retrying on short reads."""
    chunks = []
    remaining = length
    while remaining > 0:
        chunk = os.read(fd, remaining)
        if not chunk:
            raise Exception(
                f"{filename}: UnexpectedEOF, expected {length} more bytes "
                f"but got {length - remaining}"
            )
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


# keep this for compatibility
class SingleGroup:
    def size(self):
        return 1

    def rank(self):
        return 0


class SafeTensorsMetadata:
    def __init__(
        self,
        string: str,
        header_length: int,
        size_bytes: int,
        framework: FrameworkOpBase,
        src: str = "",
        keep_orig_dict: bool = False,
    ):
        self.src = src
        self.framework = framework
        ser = json.loads(string, object_pairs_hook=OrderedDict)
        self.metadata = ser.get("__metadata__", "")
        if "__metadata__" in ser:
            del ser["__metadata__"]
        self.tensors: Dict[str, TensorFrame] = {}
        self.header_length = header_length
        self.aligned = header_length % framework.get_device_ptr_align() == 0
        if keep_orig_dict:
            self.ser = ser

        start = 0
        for _, (k, buffer) in enumerate(
            sorted(ser.items(), key=lambda x: x[1]["data_offsets"][0])
        ):
            t: TensorFrame = TensorFrame.from_buffer(buffer)
            self.tensors[k] = t
            # validation
            s, e = t.data_offsets
            if s != start or e < s:
                raise Exception(
                    f"validate(tensor {k}): InvalidOffset s={s}, start={start}, e={e}, src={src}"
                )
            # if (header_length + s) % CUDA_PTR_ALIGN > 0:
            #    logger.warning(f"misaligned tensor is detected at {header_length + s}. this will cause cuda pointer alignment errors later.")
            start = e
            nelements = 1
            for sh in t.shape:
                nelements *= sh
            nbytes = int(nelements * framework.get_dtype_size(t.dtype))
            if (e - s) != nbytes:
                raise Exception(
                    f"validate(tensor {k}): TensorInvalidInfo, e-s={e-s}, nbytes={nbytes}, src={src}"
                )
        self.size_bytes = size_bytes
        if start + header_length > size_bytes:
            raise Exception(
                f"MetadataIncompleteBuffer, src={src}, start={start}, header_length={header_length}, size_bytes={size_bytes}"
            )
        if start + header_length < size_bytes:
            # Trailing padding bytes after tensor data are allowed.
            # This occurs with sub-byte dtypes (FP4, NF4) where alignment
            # padding is added, or when the header is padded for page alignment.
            trailing = size_bytes - (start + header_length)
            logger = init_logger(__name__)
            logger.debug(
                "trailing %d bytes after tensor data in %s (alignment padding)",
                trailing,
                src,
            )

    @classmethod
    def from_buffer(
        self, buf: int, buffer_len: int, filename: str, framework: FrameworkOpBase
    ):
        if buffer_len < 8:
            raise Exception(
                f"from_buffer: HeaderTooSmall, filename={filename}, buffer_len={buffer_len}"
            )
        arr = fstcpp.read_buffer(buf, 8)
        n = int.from_bytes(arr, byteorder="little", signed=False)
        if n > 100000000:
            raise Exception(
                f"from_buffer: HeaderTooLarge, n={n}, filename={filename}, buffer_len={buffer_len}"
            )
        if n > buffer_len - 8:
            raise Exception(
                f"from_buffer: InvalidHeaderLength, n={n}, filename={filename}, buffer_len={buffer_len}"
            )
        string = fstcpp.read_buffer(buf + 8, n).decode("utf-8")
        # Assert the string starts with {
        # NOTE: Add when we move to 0.4.0
        # if string.startswith('{'):
        #    raise Exception(f"{filename}: InvalidHeaderStart")
        return SafeTensorsMetadata(string, n + 8, buffer_len, framework)

    @classmethod
    def from_fd(
        self,
        fd: int,
        filename: str,
        framework: FrameworkOpBase,
        keep_orig_dict: bool = False,
    ):
        status = os.fstat(fd)
        buffer_len = status.st_size
        if buffer_len < 8:
            raise Exception(f"{filename}: HeaderTooSmall, buffer_len={buffer_len}")
        arr = _read_exact(fd, 8, filename)
        n = int.from_bytes(arr, byteorder="little", signed=False)
        if n > 100000000:
            raise Exception(
                f"{filename}: HeaderTooLarge, n={n}, buffer_len={buffer_len}"
            )
        if n > buffer_len - 8:
            raise Exception(
                f"{filename}: InvalidHeaderLength, n={n}, buffer_len={buffer_len}"
            )
        string = _read_exact(fd, n, filename).decode("utf-8")
        # Assert the string starts with {
        # NOTE: Add when we move to 0.4.0
        # if string.startswith('{'):
        #    raise Exception(f"{filename}: InvalidHeaderStart")
        return SafeTensorsMetadata(
            string,
            n + 8,
            buffer_len,
            framework,
            filename,
            keep_orig_dict=keep_orig_dict,
        )

    @classmethod
    def from_file(self, filename: str, framework: FrameworkOpBase):
        flags = os.O_RDONLY
        # On Windows, O_RDONLY defaults to text mode which translates \r\n -> \n,
        # corrupting binary data and causing size mismatches on large files.
        if sys.platform == "win32" and hasattr(os, "O_BINARY"):
            flags |= os.O_BINARY
        fd = os.open(filename, flags, 0o644)
        try:
            return self.from_fd(fd, filename, framework=framework, keep_orig_dict=False)
        finally:
            os.close(fd)

    def get_tensors(
        self,
        gbuf: fstcpp.gds_device_buffer,
        device: Device,
        copy_start_offset: int,
        dtype: DType = DType.AUTO,
        owner: Optional["SharedDeviceAllocation"] = None,
    ) -> Dict[str, TensorBase]:
        """Instantiate every tensor in this shard from the device buffer."""
        return self._get_tensors(gbuf, device, copy_start_offset, dtype, owner=owner)

    def _get_tensors(
        self,
        gbuf: fstcpp.gds_device_buffer,
        device: Device,
        copy_start_offset: int,
        dtype: DType = DType.AUTO,
        names: Optional[Set[str]] = None,
        owner: Optional["SharedDeviceAllocation"] = None,
    ) -> Dict[str, TensorBase]:
        # ``names`` restricts instantiation to that subset of tensors. Required
        # when ``gbuf`` is a compacted chunk buffer (holding only some tensors'
        # bytes): other tensors' computed offsets would fall outside the buffer.
        # In-place dtype conversion below uses individual destination views;
        # only the unconverted path can use shared typed storage. A single
        # tensor has nothing to share and is cheaper on the portable path.
        if dtype == DType.AUTO and len(self.tensors if names is None else names) > 1:
            views = self.framework.iter_buffer_views(
                self, gbuf, device, copy_start_offset, names, owner=owner
            )
            if views is not None:
                return dict(views)
        ret = {}
        for tensor_name, t in self.tensors.items():
            if names is not None and tensor_name not in names:
                continue
            if t.data_offsets[0] == t.data_offsets[1]:
                if dtype != DType.AUTO and self.framework.get_dtype_size(
                    dtype
                ) > self.framework.get_dtype_size(t.dtype):
                    raise Exception(
                        f"Online type conversion to larger sizes is not supported ({t.dtype} -> {dtype})"
                    )
                ret[tensor_name] = self.framework.get_empty_tensor(
                    t.shape, t.dtype if dtype == DType.AUTO else dtype, device
                )
                if dtype != DType.AUTO:
                    t.dtype = dtype
                continue
            dst_dev_ptr = (
                gbuf.get_base_address()
                + self.header_length
                + t.data_offsets[0]
                - copy_start_offset
            )
            disk_dtype = self.framework.as_workaround_dtype(t.dtype)
            dl_shape, dl_strides = self.framework.get_storage_shape(
                t.dtype, t.shape, t.strides
            )
            dl_tensor = from_cuda_buffer(
                dst_dev_ptr,
                dl_shape,
                dl_strides,
                disk_dtype,
                device,
                owner,
            )
            t2 = self.framework.from_dlpack(dl_tensor, device, disk_dtype)
            if disk_dtype != t.dtype:
                t2 = t2.view(t.dtype)
            # For packed sub-byte dtypes, reshape to the framework-native shape.
            # e.g. F4 (float4_e2m1fn_x2): safetensors shape counts FP4 values,
            # but PyTorch shape counts packed pairs (2 FP4 per byte).
            native_shape = self.framework.get_native_shape(t.dtype, t.shape)
            if native_shape != t.shape:
                t2 = t2.reshape(native_shape)

            if dtype != DType.AUTO and dtype != t.dtype:
                if self.framework.get_dtype_size(dtype) > self.framework.get_dtype_size(
                    t.dtype
                ):
                    raise Exception(
                        f"Online type conversion to larger sizes is not supported ({t.dtype} -> {dtype})"
                    )
                t3 = t2.to(dtype=dtype)
                conv_dtype: DType = self.framework.as_workaround_dtype(dtype)
                dl_tensor = from_cuda_buffer(
                    dst_dev_ptr,
                    t.shape,
                    t.strides,
                    conv_dtype,
                    device,
                    owner,
                )
                t2 = self.framework.from_dlpack(dl_tensor, device, conv_dtype)
                if dtype != conv_dtype:
                    t2 = t2.view(dtype)
                self.framework.copy_tensor(t2, t3)
                self.tensors[tensor_name].dtype = dtype
            ret[tensor_name] = t2
        return ret

    def select_byte_ranges(
        self, keep_tensor: Callable[[str], bool], merge_gap: int = 4096
    ) -> List[Tuple[int, int]]:
        """Compute the file byte-ranges covering only the kept tensors.

        Returns a sorted list of ``[start, end)`` absolute file offsets spanning
        exactly the tensors for which ``keep_tensor(name)`` is True. Kept tensors
        separated by a gap of at most ``merge_gap`` bytes are coalesced into one
        range to reduce the number of reads; the few non-kept bytes inside a
        coalesced range are read but never instantiated as tensors.

        Pass the result to a partial-read-capable copier (see
        ``NoGdsFileCopier.set_byte_ranges``) to load only a subset of a shard --
        e.g. only the experts an expert-parallel rank owns. Tensor data offsets
        are unchanged, so unread regions of the device buffer simply stay
        uninitialized and their tensors must not be requested.
        """
        ranges: List[Tuple[int, int]] = []
        for name, frame in self.tensors.items():
            if not keep_tensor(name):
                continue
            s, e = frame.data_offsets[0], frame.data_offsets[1]
            if s == e:
                continue  # zero-size tensor: nothing to read
            ranges.append((self.header_length + s, self.header_length + e))
        ranges.sort()
        merged: List[List[int]] = []
        for s, e in ranges:
            if merged and s - merged[-1][1] <= merge_gap:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        return [(s, e) for s, e in merged]

    def __repr__(self) -> str:
        return str({"__metadata__": self.metadata, "tensors": self.tensors})


@dataclass
class TensorFrame:
    dtype: DType
    shape: List[int]
    data_offsets: List[int]
    strides: List[int]
    offsets: List[int]
    sliced: bool

    @classmethod
    def from_buffer(self, entry: OrderedDict[str, List[int]]):
        shape = entry["shape"]
        if not isinstance(shape, list) or any(
            type(d) is not int or d < 0 for d in shape
        ):
            raise ValueError(f"shape must contain nonnegative integers: {shape!r}")
        data_offsets = list(entry["data_offsets"])
        strides = []
        offsets = []
        for i in range(0, len(shape)):
            s = 1
            for j in range(i + 1, len(shape)):
                s *= shape[j]
            strides.append(s)
            offsets.append(0)
        return TensorFrame(
            DType(entry["dtype"]), shape, data_offsets, strides, offsets, False
        )

    def __repr__(self) -> str:
        return str(
            {
                "dtype": self.dtype,
                "shape": self.shape,
                "data_offsets": self.data_offsets,
            }
        )

    # TODO: reduce dim if isinstance(_val, int) == True
    def __getitem__(self, _val) -> "TensorFrame":
        val: Tuple = ()
        if isinstance(_val, slice) or isinstance(_val, int):
            val = (_val,)
        elif isinstance(_val, tuple):
            val = _val
        else:
            raise Exception(f"[BUG] Unsupported index type for DiskTensor: {_val}")
        if len(val) > len(self.shape):
            raise Exception(
                f"[BUG] tried to get too large slice {_val} from {self.shape}"
            )
        shape: List[int] = []
        strides: List[int] = []
        offsets: List[int] = []
        for dim in range(0, len(val)):
            if isinstance(val[dim], int):
                start = val[dim]
                if start >= self.shape[dim] or start < -self.shape[dim]:
                    raise IndexError(
                        f"[BUG] tried to access index {start} at dim={dim} for shape={self.shape}"
                    )
                if start < 0:
                    start = self.shape[dim] + start
                step = 1
                length = 1
            elif isinstance(val[dim], slice):
                if val[dim].step == 0:
                    raise ValueError(f"[BUG] slice step cannot be zero")
                # normalize None/negative/out-of-range bounds the same way
                # Python sequences do
                start, stop, step = val[dim].indices(self.shape[dim])
                length = stop - start
                if (
                    length == 0
                    or (length < 0 and step > 0)
                    or (length > 0 and step < 0)
                ):
                    return TensorFrame(self.dtype, [], self.data_offsets, [], [], False)
                if length < 0 and step < 0:
                    length *= -1
            else:
                raise Exception(
                    f"[BUG] Unsupported index type for DiskTensor: {_val} at dim={dim}"
                )
            offsets.append(self.offsets[dim] + start)
            strides.append(self.strides[dim] * step)
            abs_step = step if step > 0 else -step
            shape.append((length + abs_step - 1) // abs_step)
        for rdim in range(len(val), len(self.shape)):
            offsets.append(self.offsets[rdim])
            strides.append(self.strides[rdim])
            shape.append(self.shape[rdim])
        return TensorFrame(self.dtype, shape, self.data_offsets, strides, offsets, True)
