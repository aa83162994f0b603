# SPDX-License-Identifier: Apache-2.0

try:
    import torch
    import torch.distributed as dist
except ImportError as e:
    raise ImportError("could not import torch. Please install it.") from e

import os
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

from ..common import SafeTensorsMetadata, SingleGroup
from ..cpp import cpu_free, cpu_malloc, gds_device_buffer
from ..st_types import DTYPE_SIZES, Device, DeviceType, DType
from . import FrameworkOpBase, ProcessGroupBase, TensorBase

dtype_convert: Dict[DType, Any] = {
    DType.BOOL: torch.bool,
    DType.U8: torch.uint8,
    DType.I8: torch.int8,
    DType.I16: torch.int16,
    DType.I32: torch.int32,
    DType.I64: torch.int64,
    DType.F16: torch.float16,
    DType.BF16: torch.bfloat16,
    DType.F32: torch.float32,
    DType.F64: torch.float64,
}
need_workaround_dtypes: Dict[DType, DType] = {
    DType.F8_E5M2: DType.I8,
    DType.F8_E4M3: DType.I8,
    DType.F8_E8M0: DType.U8,
    DType.F4: DType.U8,
}

if hasattr(torch, "float8_e5m2"):
    dtype_convert[DType.F8_E5M2] = torch.float8_e5m2
if hasattr(torch, "float8_e4m3fn"):
    dtype_convert[DType.F8_E4M3] = torch.float8_e4m3fn
if hasattr(torch, "float8_e8m0fnu"):
    dtype_convert[DType.F8_E8M0] = torch.float8_e8m0fnu
if hasattr(torch, "float4_e2m1fn_x2"):
    dtype_convert[DType.F4] = torch.float4_e2m1fn_x2
if hasattr(torch, "uint16"):
    dtype_convert[DType.U16] = torch.uint16
if hasattr(torch, "uint32"):
    dtype_convert[DType.U32] = torch.uint32
if hasattr(torch, "uint64"):
    dtype_convert[DType.U64] = torch.uint64

_fst_dtypes = {dtype: fst for fst, dtype in dtype_convert.items()}


def fst_dtype(dtype: torch.dtype) -> DType:
    """Translate a PyTorch dtype to its safetensors representation."""
    return _fst_dtypes[dtype]


@dataclass
class TorchTensor(TensorBase):
    real_tensor: torch.Tensor

    def get_raw(self) -> torch.Tensor:
        return self.real_tensor

    def get_shape(self) -> List[int]:
        shape = list(self.real_tensor.shape)
        if self.dtype == DType.F4:
            if not shape:
                raise ValueError("F4 requires a packed last dimension")
            shape[-1] *= 2
        return shape

    def get_nbytes(self) -> int:
        return self.real_tensor.nbytes

    def copy_to_buffer(self, buf: memoryview) -> None:
        if self.real_tensor.numel() == 0:
            return
        flat = self.real_tensor.detach().contiguous().reshape(-1).view(torch.uint8)
        torch.frombuffer(buf, dtype=torch.uint8, count=flat.numel()).copy_(flat)

    def contiguous(self) -> "TorchTensor":
        return TorchTensor(self.device, self.dtype, self.real_tensor.contiguous())

    def to(
        self,
        device: Optional[Device] = None,
        dtype: DType = DType.AUTO,
    ) -> "TorchTensor":
        to_dev: Optional[str] = None
        if device is not None and self.device != device:
            to_dev = device.as_str()
        else:
            device = self.device
        to_dtype: Optional[torch.dtype] = None
        if dtype != DType.AUTO and (dtype != self.dtype):
            to_dtype = dtype_convert[dtype]
        else:
            dtype = self.dtype
        if to_dev is not None or to_dtype is not None:
            return TorchTensor(
                device, dtype, self.real_tensor.to(device=to_dev, dtype=to_dtype)
            )
        return self

    def clone(self) -> "TorchTensor":
        return TorchTensor(self.device, self.dtype, self.real_tensor.clone())

    def detach(self) -> "TorchTensor":
        return TorchTensor(self.device, self.dtype, self.real_tensor.detach())

    def view(self, dtype: DType) -> "TorchTensor":
        t2 = self.real_tensor.view(dtype_convert[dtype])
        return TorchTensor(self.device, dtype, t2)

    def __getitem__(self, _val) -> "TorchTensor":
        return TorchTensor(self.device, self.dtype, self.real_tensor[_val])

    def reshape(self, shape: List[int]) -> "TorchTensor":
        return TorchTensor(self.device, self.dtype, self.real_tensor.reshape(shape))

    def data_ptr(self) -> int:
        return self.real_tensor.data_ptr()


def _needs_fp8_cast() -> bool:
    """Check if FP8 NCCL ops need a bf16 workaround (pre-sm90 GPUs)."""
    if not torch.cuda.is_available():
        return False
    major, _ = torch.cuda.get_device_capability()
    return major < 9


def _is_fp8(dtype: DType) -> bool:
    return dtype in (DType.F8_E5M2, DType.F8_E4M3, DType.F8_E8M0)


def _needs_uint8_view(dtype: DType) -> bool:
    """NCCL has no native collective for F8_E8M0 or F4. Reinterpret as uint8.

    Same byte width, bitwise-transparent for collective ops (broadcast/scatter/
    send/recv). Bypasses NCCL's dtype dispatch without an alloc or value
    conversion.
    """
    return dtype in (DType.F8_E8M0, DType.F4)


@dataclass
class TorchProcessGroup(ProcessGroupBase[TorchTensor]):
    real_pg: Optional[dist.ProcessGroup]

    def size(self) -> int:
        return self.real_pg.size() if self.real_pg else 1

    def rank(self) -> int:
        return self.real_pg.rank() if self.real_pg else 0

    def broadcast(self, dst: TorchTensor, rank: int) -> None:
        if self.real_pg:
            if _needs_uint8_view(dst.dtype):
                dist.broadcast(
                    dst.real_tensor.view(torch.uint8),
                    group=self.real_pg,
                    group_src=rank,
                )
            elif _is_fp8(dst.dtype) and _needs_fp8_cast():
                buf = dst.real_tensor.to(torch.bfloat16)
                dist.broadcast(buf, group=self.real_pg, group_src=rank)
                dst.real_tensor.copy_(buf.to(dst.real_tensor.dtype))
                del buf
            else:
                dist.broadcast(dst.real_tensor, group=self.real_pg, group_src=rank)
            if torch.cuda.is_available():
                torch.cuda.synchronize()

    def scatter(
        self,
        dst: TorchTensor,
        scatter_list: List[TorchTensor],
        src: int,
    ) -> None:
        if self.real_pg:
            if _needs_uint8_view(dst.dtype):
                sl = [t.real_tensor.view(torch.uint8) for t in scatter_list]
                dist.scatter(
                    dst.real_tensor.view(torch.uint8),
                    scatter_list=sl,
                    group=self.real_pg,
                    group_src=src,
                )
            elif _is_fp8(dst.dtype) and _needs_fp8_cast():
                sl = [t.real_tensor.to(torch.bfloat16) for t in scatter_list]
                buf = dst.real_tensor.to(torch.bfloat16)
                dist.scatter(buf, scatter_list=sl, group=self.real_pg, group_src=src)
                dst.real_tensor.copy_(buf.to(dst.real_tensor.dtype))
                del buf, sl
            else:
                sl = [t.real_tensor for t in scatter_list]
                dist.scatter(
                    dst.real_tensor, scatter_list=sl, group=self.real_pg, group_src=src
                )
            if torch.cuda.is_available():
                torch.cuda.synchronize()

    def send(
        self,
        t: TorchTensor,
        dst_rank: int,
        tag: int,
    ):
        if self.real_pg:
            if _needs_uint8_view(t.dtype):
                dist.send(
                    t.real_tensor.view(torch.uint8),
                    group=self.real_pg,
                    group_dst=dst_rank,
                    tag=tag,
                )
            elif _is_fp8(t.dtype) and _needs_fp8_cast():
                buf = t.real_tensor.to(torch.bfloat16)
                dist.send(buf, group=self.real_pg, tag=tag, group_dst=dst_rank)
                del buf
            else:
                dist.send(
                    t.real_tensor, group=self.real_pg, tag=tag, group_dst=dst_rank
                )
            if torch.cuda.is_available():
                torch.cuda.synchronize()

    def recv(
        self,
        t: TorchTensor,
        src_rank: int,
        tag: int,
    ):
        if self.real_pg:
            if _needs_uint8_view(t.dtype):
                dist.recv(
                    t.real_tensor.view(torch.uint8),
                    group=self.real_pg,
                    group_src=src_rank,
                    tag=tag,
                )
            elif _is_fp8(t.dtype) and _needs_fp8_cast():
                buf = t.real_tensor.to(torch.bfloat16)
                dist.recv(buf, group=self.real_pg, tag=tag, group_src=src_rank)
                t.real_tensor.copy_(buf.to(t.real_tensor.dtype))
                del buf
            else:
                dist.recv(
                    t.real_tensor, group=self.real_pg, tag=tag, group_src=src_rank
                )
            if torch.cuda.is_available():
                torch.cuda.synchronize()


class TorchOp(FrameworkOpBase[TorchTensor, TorchProcessGroup]):
    def synchronize_current_stream(self, device: Device) -> None:
        if device.type == DeviceType.CUDA:
            torch.cuda.current_stream(device.as_str()).synchronize()

    @staticmethod
    def _flat_source_run(tensors: List[TorchTensor], sizes: List[int]) -> torch.Tensor:
        """Describe adjacent loader views, including bounded DLPack storage."""
        for previous, current, size in zip(tensors, tensors[1:], sizes):
            if previous.data_ptr() + size != current.data_ptr():
                raise ValueError("broadcast run is not contiguous in device memory")
        from ..dlpack import from_cuda_buffer

        # Each DLPack Storage may describe only one tensor even when the
        # underlying loader allocation spans the entire validated run.
        return torch.from_dlpack(
            from_cuda_buffer(
                tensors[0].data_ptr(), [sum(sizes)], [1], DType.U8, tensors[0].device
            )
        )

    def broadcast_contiguous_run(
        self,
        pg: TorchProcessGroup,
        source_tensors: List[TorchTensor],
        frames: List[Any],
        src_rank: int,
        device: Device,
    ) -> Optional[List[TorchTensor]]:
        if pg.real_pg is None:
            return None
        sizes = [frame.data_offsets[1] - frame.data_offsets[0] for frame in frames]
        if pg.rank() == src_rank:
            # The iterator promises outputs survive buffer close, including
            # on the source rank. Clone the span once, rather than borrowing it.
            flat = self._flat_source_run(source_tensors, sizes).clone()
        else:
            flat = torch.empty(sum(sizes), dtype=torch.uint8, device=device.as_str())
        work = dist.broadcast(flat, group=pg.real_pg, group_src=src_rank, async_op=True)
        # NCCL wait orders this thread's current stream without synchronizing
        # the whole device, allowing the producer's checkpoint reads to proceed.
        work.wait()
        outputs = []
        offset = 0
        for frame, size in zip(frames, sizes):
            raw = flat.narrow(0, offset, size).view(dtype_convert[frame.dtype])
            raw = raw.reshape(self.get_native_shape(frame.dtype, frame.shape))
            outputs.append(TorchTensor(device, frame.dtype, raw))
            offset += size
        return outputs

    def __init__(self) -> None:
        self.mem_used = 0

    def get_name(self) -> str:
        return "pytorch"

    def get_device(self, device: str, pg: TorchProcessGroup) -> Device:
        dev = torch.device(device)
        return Device(DeviceType(dev.type), dev.index)

    def set_device(self, device: Device) -> None:
        if device.type != DeviceType.CPU:
            torch.cuda.set_device(device.as_str())

    def alloc_tensor_memory(self, length: int, dev: Device) -> gds_device_buffer:
        if dev.type == DeviceType.CUDA:
            rbuf = torch.cuda.caching_allocator_alloc(length)
        else:
            rbuf = cpu_malloc(length)
        self.mem_used += length
        return gds_device_buffer(rbuf, length, dev.type == DeviceType.CUDA)

    def free_tensor_memory(self, gbuf: gds_device_buffer, dev: Device):
        length = gbuf.get_length()
        if dev.type == DeviceType.CUDA:
            torch.cuda.caching_allocator_delete(gbuf.get_base_address())
        else:
            cpu_free(gbuf.get_base_address())
        self.mem_used -= length

    def get_empty_tensor(
        self, shape: List[int], dtype: DType, device: Device
    ) -> TorchTensor:
        native_shape = self.get_native_shape(dtype, shape)
        dst = torch.empty(
            size=native_shape, dtype=dtype_convert[dtype], device=device.as_str()
        )
        return TorchTensor(device, dtype, dst)

    def concat_tensors(self, tensors: List[TorchTensor], dim: int) -> TorchTensor:
        dtype = tensors[0].dtype
        if _needs_uint8_view(dtype):
            ts = [tensor.real_tensor.view(torch.uint8) for tensor in tensors]
            t = torch.cat(ts, dim=dim).view(dtype_convert[dtype])
            return TorchTensor(tensors[0].device, dtype, t)
        ts = [tensor.real_tensor for tensor in tensors]
        return TorchTensor(tensors[0].device, dtype, torch.cat(ts, dim=dim))

    def get_dtype_size(self, dtype: DType) -> float:
        return float(DTYPE_SIZES[dtype])

    def from_dlpack(self, dl_tensor: Any, device: Device, dtype: DType) -> TorchTensor:
        t = torch.from_dlpack(dl_tensor)
        return TorchTensor(device, dtype, t)

    def iter_buffer_views(
        self,
        metadata: SafeTensorsMetadata,
        gbuf: gds_device_buffer,
        device: Device,
        copy_start_offset: int,
        names: Optional[Set[str]],
        owner=None,
    ) -> Iterator[Tuple[str, TorchTensor]]:
        """Amortize DLPack conversion over tensors with a common storage dtype."""
        from ..dlpack import from_cuda_buffer

        base_address = gbuf.get_base_address()
        buffer_end = base_address + gbuf.get_length()
        bases = {}
        for name, frame in metadata.tensors.items():
            if names is not None and name not in names:
                continue
            if frame.data_offsets[0] == frame.data_offsets[1]:
                yield name, self.get_empty_tensor(frame.shape, frame.dtype, device)
                continue
            tensor_address = (
                base_address
                + metadata.header_length
                + frame.data_offsets[0]
                - copy_start_offset
            )
            nbytes = frame.data_offsets[1] - frame.data_offsets[0]
            if tensor_address < base_address or tensor_address + nbytes > buffer_end:
                raise ValueError(f"Tensor {name!r} is outside the loader buffer")
            disk_dtype = self.as_workaround_dtype(frame.dtype)
            itemsize = int(self.get_dtype_size(disk_dtype))
            # Safetensors offsets need not be aligned. Separate residue classes
            # so every view's offset is an integer number of storage elements.
            residue = tensor_address % itemsize
            key = (disk_dtype, residue)
            if key not in bases:
                shift = (residue - base_address % itemsize) % itemsize
                typed_address = base_address + shift
                elements = (buffer_end - typed_address) // itemsize
                capsule = from_cuda_buffer(
                    typed_address, [elements], [1], disk_dtype, device, owner
                )
                bases[key] = (typed_address, torch.from_dlpack(capsule))
            typed_address, raw_base = bases[key]
            shape, strides = self.get_storage_shape(
                frame.dtype, frame.shape, frame.strides
            )
            raw = torch.as_strided(
                raw_base, shape, strides, (tensor_address - typed_address) // itemsize
            )
            tensor = TorchTensor(device, disk_dtype, raw)
            if disk_dtype != frame.dtype:
                tensor = tensor.view(frame.dtype)
            native_shape = self.get_native_shape(frame.dtype, frame.shape)
            if native_shape != frame.shape:
                tensor = tensor.reshape(native_shape)
            yield name, tensor

    def copy_tensor(self, dst: TorchTensor, src: TorchTensor):
        dst.real_tensor.copy_(src.real_tensor)

    def wrap_tensor(self, tensor: torch.Tensor) -> TorchTensor:
        return TorchTensor(
            Device(DeviceType(tensor.device.type), tensor.device.index),
            fst_dtype(tensor.dtype),
            tensor,
        )

    def get_cuda_ver(self) -> str:
        """Get GPU runtime version with platform indicator.

        Returns a string like 'hip-5.7.0' for ROCm or 'cuda-12.1' for CUDA,
        or '0.0' if no GPU is available. This allows code to distinguish
        between different GPU platforms without using torch directly.
        """
        if torch.cuda.is_available():
            # Check if this is ROCm/HIP build
            if hasattr(torch.version, "hip") and torch.version.hip is not None:
                return f"hip-{torch.version.hip}"
            return f"cuda-{torch.version.cuda}"
        return "0.0"

    def get_runtime_lib_dirs(self) -> List[str]:
        torch_c_file = getattr(getattr(torch, "_C", None), "__file__", None)
        torch_file = torch_c_file or getattr(torch, "__file__", None)
        if not torch_file:
            return []
        return [os.path.join(os.path.dirname(os.path.abspath(torch_file)), "lib")]

    def get_device_ptr_align(self) -> int:
        CUDA_PTR_ALIGN: int = 16
        return CUDA_PTR_ALIGN

    def as_workaround_dtype(self, dtype: DType) -> DType:
        if dtype in need_workaround_dtypes:
            return need_workaround_dtypes[dtype]
        return dtype

    def get_storage_shape(
        self, dtype: DType, shape: List[int], strides: List[int]
    ) -> "tuple[List[int], List[int]]":
        size = self.get_dtype_size(dtype)
        if size < 1.0:
            # Packed sub-byte dtype: collapse to flat byte count so the
            # workaround-dtype DLPack tensor doesn't overread the buffer.
            import math

            ratio = int(round(1.0 / size))  # e.g. 2 for F4 (2 FP4 per byte)
            if not shape or shape[-1] % ratio > 0:
                raise ValueError(
                    f"Malformed input: {shape=}, {ratio=}, "
                    "last dimension must be divisible by the packing ratio."
                )
            nbytes = int(math.prod(shape) * size)
            return [nbytes], [1]
        return shape, strides

    def get_native_shape(self, dtype: DType, st_shape: List[int]) -> List[int]:
        size = self.get_dtype_size(dtype)
        if size < 1.0:
            # safetensors counts logical sub-byte elements; PyTorch counts
            # packed storage units (bytes). Compress the last dimension.
            import math

            ratio = int(round(1.0 / size))  # e.g. 2 for F4 (2 FP4 per byte)
            if not st_shape or st_shape[-1] % ratio > 0:
                raise ValueError(
                    f"Malformed input: {st_shape=}, {ratio=}, "
                    "last dimension must be divisible by the packing ratio."
                )
            if len(st_shape) > 1:
                return list(st_shape[:-1]) + [st_shape[-1] // ratio]
            return [int(math.prod(st_shape) * size)]
        return st_shape

    def get_native_slices(
        self, dtype: DType, st_shape: List[int], slices: Tuple
    ) -> Tuple:
        size = self.get_dtype_size(dtype)
        if size >= 1.0 or not st_shape or len(slices) < len(st_shape):
            return slices

        ratio = int(round(1.0 / size))  # e.g. 2 for F4 (2 FP4 per byte)
        last_dim = len(st_shape) - 1
        native_slices = list(slices)
        last = native_slices[last_dim]
        if isinstance(last, slice):
            step = 1 if last.step is None else last.step
            if step != 1:
                raise ValueError(
                    f"Malformed input: {slices=}, {ratio=}, "
                    "packed sub-byte slices only support step=1."
                )
            start = 0 if last.start is None else last.start
            stop = st_shape[last_dim] if last.stop is None else last.stop
            start = min(max(start, 0), st_shape[last_dim])
            stop = min(max(stop, 0), st_shape[last_dim])
            if start % ratio > 0 or stop % ratio > 0:
                raise ValueError(
                    f"Malformed input: {slices=}, {ratio=}, "
                    "packed sub-byte slice bounds must align to storage units."
                )
            native_start = start // ratio
            native_stop = stop // ratio
            native_slices[last_dim] = slice(native_start, native_stop, step)
        elif isinstance(last, int):
            if last % ratio > 0:
                raise ValueError(
                    f"Malformed input: {slices=}, {ratio=}, "
                    "packed sub-byte indices must align to storage units."
                )
            native_slices[last_dim] = last // ratio
        return tuple(native_slices)

    def synchronize(self, device: Device) -> None:
        if device.type != DeviceType.CPU and torch.cuda.is_available():
            torch.cuda.synchronize()

    def get_global_rank(self) -> int:
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank()
        return 0

    def get_device_name(self, index: int) -> str:
        if not torch.cuda.is_available():
            return ""
        try:
            return torch.cuda.get_device_name(index)
        except Exception:
            return ""

    def mmap_file_pinned(self, filename: str, length: int, offset: int) -> TorchTensor:
        # mmap the file lazily; pin_memory then faults in and pins the pages
        # in a single optimized path, ready for async DMA.
        file_tensor = torch.from_file(filename, size=offset + length, dtype=torch.uint8)
        pinned = file_tensor[offset:].pin_memory()
        return TorchTensor(Device(DeviceType.CPU), DType.U8, pinned)

    def get_process_group(self, pg: Optional[Any]) -> TorchProcessGroup:
        if pg is not None:
            if isinstance(pg, SingleGroup):
                pg = None
            elif not isinstance(pg, dist.ProcessGroup):
                raise Exception(
                    "pg must be an instance of torch.disributed.ProcessGroup"
                )
        return TorchProcessGroup(pg)

    # for testing
    def is_equal(self, wrapped: TorchTensor, real: Any) -> bool:
        if isinstance(real, torch.Tensor):
            return bool(torch.all(wrapped.real_tensor.eq(real)))
        raise Exception("real is not torch.Tensor")

    def randn(self, s: tuple, device: Device, dtype: DType) -> TorchTensor:
        return TorchTensor(
            device,
            dtype,
            torch.randn(s, device=device.as_str(), dtype=dtype_convert[dtype]),
        )

    def support_fp8(self) -> bool:
        return DType.F8_E5M2 in dtype_convert

    def get_mem_used(self):
        return self.mem_used


_op: Optional[TorchOp] = None


def get_framework_op() -> FrameworkOpBase:
    global _op
    if _op is None:
        _op = TorchOp()
    return _op
