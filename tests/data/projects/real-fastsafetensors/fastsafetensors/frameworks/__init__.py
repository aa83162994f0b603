# SPDX-License-Identifier: Apache-2.0

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    Iterator,
    List,
    Optional,
    Set,
    Tuple,
    TypeVar,
)

from ..cpp import gds_device_buffer
from ..st_types import Device, DType

if TYPE_CHECKING:
    from ..common import SafeTensorsMetadata


@dataclass
class TensorBase:
    device: Device
    dtype: DType

    @abstractmethod
    def get_raw(self) -> Any:
        pass

    @abstractmethod
    def get_shape(self) -> List[int]:
        """Return the logical safetensors shape, including sub-byte elements."""
        pass

    @abstractmethod
    def get_nbytes(self) -> int:
        pass

    @abstractmethod
    def copy_to_buffer(self, buf: memoryview) -> None:
        """Copy tensor bytes in logical C order into the supplied buffer."""
        pass

    @abstractmethod
    def contiguous(self) -> "TensorBase":
        pass

    @abstractmethod
    def to(
        self,
        device: Optional[Device] = None,
        dtype: DType = DType.AUTO,
    ) -> "TensorBase":
        pass

    @abstractmethod
    def clone(self) -> "TensorBase":
        pass

    @abstractmethod
    def detach(self) -> "TensorBase":
        pass

    @abstractmethod
    def view(self, dtype: DType) -> "TensorBase":
        pass

    @abstractmethod
    def __getitem__(self, _val) -> "TensorBase":
        pass

    def reshape(self, shape: List[int]) -> "TensorBase":
        """Reshape the tensor.  Default implementation raises NotImplementedError.
        Frameworks that support packed sub-byte dtypes (e.g. F4) must override
        this to handle shape adjustment after buffer loading.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement reshape()")

    def data_ptr(self) -> int:
        """Return the address of the first element.  Default implementation
        raises NotImplementedError.
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not implement data_ptr()"
        )


T = TypeVar("T", bound=TensorBase)


class ProcessGroupBase(ABC, Generic[T]):
    @abstractmethod
    def size(self) -> int:
        pass

    @abstractmethod
    def rank(self) -> int:
        pass

    @abstractmethod
    def broadcast(self, dst: T, rank: int) -> None:
        pass

    @abstractmethod
    def scatter(
        self,
        dst: T,
        scatter_list: List[T],
        src: int,
    ) -> None:
        pass

    @abstractmethod
    def send(
        self,
        t: T,
        dst_rank: int,
        tag: int,
    ) -> None:
        pass

    @abstractmethod
    def recv(
        self,
        t: T,
        src_rank: int,
        tag: int,
    ) -> None:
        pass


K = TypeVar("K", bound=ProcessGroupBase)


class FrameworkOpBase(ABC, Generic[T, K]):
    def broadcast_contiguous_run(
        self,
        pg: K,
        source_tensors: List[T],
        frames: List[Any],
        src_rank: int,
        device: Device,
    ) -> Optional[List[T]]:
        """Optionally broadcast adjacent tensors using an owned byte buffer.

        Return None for the portable per-tensor path. Returned views must own
        their storage independently of the loader buffer. CUDA implementations
        must establish a dependency on the consumer's current stream.
        """
        return None

    @abstractmethod
    def get_name(self) -> str:
        pass

    @abstractmethod
    def get_device(self, device: str, pg: K) -> Device:
        pass

    @abstractmethod
    def set_device(self, device: Device) -> None:
        pass

    @abstractmethod
    def alloc_tensor_memory(self, length: int, dev: Device) -> gds_device_buffer:
        pass

    @abstractmethod
    def free_tensor_memory(self, gbuf: gds_device_buffer, dev: Device) -> None:
        pass

    @abstractmethod
    def get_empty_tensor(self, shape: List[int], dtype: DType, device: Device) -> T:
        pass

    @abstractmethod
    def concat_tensors(self, tensors: List[T], dim: int) -> T:
        pass

    @abstractmethod
    def copy_tensor(self, dst: T, src: T) -> None:
        pass

    def wrap_tensor(self, tensor: Any) -> T:
        """Wrap a framework-native tensor without copying its storage."""
        raise NotImplementedError(f"{self.get_name()}: wrap_tensor")

    @abstractmethod
    def get_dtype_size(self, dtype: DType) -> float:
        """Return the number of bytes per logical element for this dtype.

        For packed sub-byte types (e.g. F4 / float4_e2m1fn_x2, where two
        FP4 values share a single byte), this returns a fractional value
        (0.5 for F4).  Callers should use ``int(nelements *
        get_dtype_size(dtype))`` when computing byte counts.
        """
        pass

    @abstractmethod
    def from_dlpack(self, dl_tensor: Any, device: Device, dtype: DType) -> T:
        pass

    @abstractmethod
    def get_cuda_ver(self) -> str:
        pass

    def get_runtime_lib_dirs(self) -> List[str]:
        """Return trusted directories containing framework-bundled GPU runtimes."""
        return []

    @abstractmethod
    def get_device_ptr_align(self) -> int:
        pass

    @abstractmethod
    def as_workaround_dtype(self, dtype: DType) -> DType:
        pass

    def get_storage_shape(
        self, dtype: DType, shape: List[int], strides: List[int]
    ) -> "tuple[List[int], List[int]]":
        """Return the (shape, strides) to use for the workaround-dtype DLPack
        tensor when loading from a device buffer.

        For most dtypes this is just (shape, strides).  Packed sub-byte dtypes
        (e.g. F4 / float4_e2m1fn_x2) store multiple logical values per byte;
        the safetensors shape counts logical values while DLPack / PyTorch work
        in bytes, so the shape must be collapsed to a flat byte count.
        """
        return shape, strides

    def get_native_shape(self, dtype: DType, st_shape: List[int]) -> List[int]:
        """Return the framework-native tensor shape for a safetensors tensor.

        For most dtypes this matches *st_shape* exactly.  For packed sub-byte
        dtypes the safetensors shape counts logical (sub-byte) elements while
        the framework counts packed storage units (bytes), so the shape is
        compressed by the packing ratio.
        """
        return st_shape

    def get_native_slices(
        self, dtype: DType, st_shape: List[int], slices: Tuple
    ) -> Tuple:
        """Return slices to apply to a framework-native tensor.

        For most dtypes this is just *slices*.  Frameworks with packed
        sub-byte dtypes can translate logical slices into storage-unit slices.
        """
        return slices

    def iter_buffer_views(
        self,
        metadata: "SafeTensorsMetadata",
        gbuf: gds_device_buffer,
        device: Device,
        copy_start_offset: int,
        names: Optional[Set[str]],
        owner=None,
    ) -> Optional[Iterator[Tuple[str, T]]]:
        """Optionally create views sharing storage within a loader buffer.

        Return None to use per-tensor DLPack conversion. Without an owner,
        views borrow the allocation and must not outlive the loader buffer.
        With an owner, attach it to the shared storage so every exported tensor
        and derived view keeps the backing allocation alive.
        """
        return None

    def synchronize(self, device: Device) -> None:
        """Block until pending asynchronous device copies are complete.

        Default: no-op.  Frameworks with asynchronous device transfers
        (e.g. cudaMemcpyAsync) must override this.
        """
        return None

    def synchronize_current_stream(self, device: Device) -> None:
        """Finish consumer work before releasing raw loader storage."""
        self.synchronize(device)

    def get_global_rank(self) -> int:
        """Return this process's rank in the framework's global distributed
        world, or 0 when distributed mode is not initialized.
        """
        return 0

    def get_device_name(self, index: int) -> str:
        """Return the accelerator device name for *index*, or "" when no
        device is available.  Used for platform detection (e.g. unified
        memory systems); not required for plain CPU loading.
        """
        return ""

    def mmap_file_pinned(self, filename: str, length: int, offset: int) -> TensorBase:
        """Return a pinned CPU byte tensor holding the file content at
        ``[offset, offset + length)``.  The returned tensor owns the pinned
        pages; dropping the last reference releases them.  Frameworks that
        support the unified-memory copier must override this.
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not implement mmap_file_pinned()"
        )

    @abstractmethod
    def get_process_group(self, pg: Optional[Any]) -> ProcessGroupBase:
        pass

    @abstractmethod
    def is_equal(self, wrapped: T, real: Any) -> bool:
        pass

    @abstractmethod
    def randn(self, s: tuple, device: Device, dtype: DType) -> T:
        pass

    @abstractmethod
    def support_fp8(self) -> bool:
        pass

    @abstractmethod
    def get_mem_used(self) -> int:
        pass


def get_framework_op(name: str) -> FrameworkOpBase:
    if name == "pt" or name == "pytorch" or name == "torch":
        from ._torch import get_framework_op as op
    elif name == "paddle":
        from ._paddle import get_framework_op as op
    else:
        raise Exception(f"Unknown framework name: {name}")
    return op()
