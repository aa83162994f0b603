# SPDX-License-Identifier: Apache-2.0

"""Unified memory copier for systems with shared CPU/GPU memory (DGX Spark, Grace Hopper).

Uses mmap → pin_memory → cudaMemcpyAsync instead of the bounce buffer approach.
On unified memory with ATS, pin_memory on mmap'd pages triggers kernel readahead
and page pinning in a single optimized path, then async DMA transfers at full
memory bandwidth.

All framework-specific operations (mmap + pinning, device synchronization,
device-name detection) go through the FrameworkOpBase abstraction so this
module never imports torch or paddle directly.
"""

import os
import threading
from bisect import bisect_right
from operator import itemgetter
from typing import TYPE_CHECKING, Dict, List, Optional, Set, Tuple

from .. import cpp as fstcpp
from ..common import SafeTensorsMetadata, is_odirect_enabled
from ..frameworks import FrameworkOpBase, TensorBase
from ..st_types import Device, DeviceType, DType
from .base import (
    CopierInterface,
    validated_byte_ranges,
    validated_chunk_allocation_size,
)
from .registry import CopierConstructFunc, register_copier_constructor

if TYPE_CHECKING:
    from ..allocation import SharedDeviceAllocation

_DMA_THREADS_ENV = "FASTSAFETENSORS_DMA_THREADS"
_DMA_THREADS_DEFAULT = 8
# Keep in sync with PIN_CHUNK in cpp/ext.cpp.
_DMA_PIN_CHUNK = 16 << 20
_range_end = itemgetter(1)


def _dma_threads_from_env() -> int:
    return int(os.environ.get(_DMA_THREADS_ENV, str(_DMA_THREADS_DEFAULT)))


def _odirect_reader_usable(path: str) -> bool:
    """Whether ``submit_io`` can use the O_DIRECT reader for this path."""
    return (
        getattr(fstcpp, "dma_load_runs", None) is not None
        and _dma_threads_from_env() > 0
        and is_odirect_enabled(path)
    )


def _dma_worker_count(nthreads: int) -> int:
    """Worker count after the clamp in ``dma_load_runs``."""
    if nthreads < 1:
        return 4
    return min(nthreads, 32)


class UnifiedMemCopier(CopierInterface):
    """Copier using mmap → pin_memory → cudaMemcpyAsync for unified memory.

    On systems where CPU and GPU share the same physical memory (DGX Spark,
    Grace Hopper), this avoids the unnecessary bounce buffer used by NoGdsFileCopier.
    The mmap + pin_memory path lets the kernel handle readahead and page pinning
    in a single step, then async DMA copies at full memory bandwidth.
    """

    def __init__(
        self,
        metadata: SafeTensorsMetadata,
        device: Device,
        framework: FrameworkOpBase,
        dma_gate: Optional[threading.Lock] = None,
    ):
        self.metadata = metadata
        self.device = device
        self.framework = framework
        self._pinned: List[TensorBase] = []
        self.byte_ranges: Optional[List[Tuple[int, int]]] = None
        self._chunk_names: Optional[Set[str]] = None
        self._chunk_allocation_size: Optional[int] = None
        self._base_off = metadata.header_length
        # Worker count for the C++ O_DIRECT range reader (dma_load_runs). Single
        # -thread pin_memory is page-cache-bound (~2.5 GB/s); O_DIRECT threads
        # bypass the cache and drive NVMe queue depth. Falls back to pin_memory
        # if the reader is unavailable.
        self._dma_threads = _dma_threads_from_env()
        self._dma_gate = dma_gate if dma_gate is not None else threading.Lock()
        self._readiness = False
        self._completion: Optional[fstcpp.dma_completion] = None
        self._dma_thread: Optional[threading.Thread] = None
        self._dma_error: Optional[BaseException] = None
        self._dma_rc = 0
        self._ready_blocks = bytearray()
        self._read_ranges: List[Tuple[int, int]] = []

    def enable_tensor_readiness(self) -> bool:
        self._readiness = (
            self.device.type != DeviceType.CPU
            and self._dma_threads > 0
            and is_odirect_enabled(self.metadata.src)
            and hasattr(fstcpp, "dma_load_runs_progress")
        )
        return self._readiness

    def prepare_tensors(
        self,
        gbuf: fstcpp.gds_device_buffer,
        owner: Optional["SharedDeviceAllocation"] = None,
    ) -> Dict[str, TensorBase]:
        return self.metadata._get_tensors(
            gbuf, self.device, self._base_off, names=self._chunk_names, owner=owner
        )

    def wait_tensor(self, name: str) -> None:
        if self._completion is None:
            return
        frame = self.metadata.tensors[name]
        start = self.metadata.header_length + frame.data_offsets[0]
        end = self.metadata.header_length + frame.data_offsets[1]
        if start == end:
            return
        covered = start
        index = bisect_right(self._read_ranges, start, key=_range_end)
        while covered < end and index < len(self._read_ranges):
            lo, hi = self._read_ranges[index]
            if lo > covered:
                break
            covered = min(end, hi)
            index += 1
        if covered != end:
            raise ValueError(f"tensor {name} includes unread bytes")
        first = (start - self._base_off) // _DMA_PIN_CHUNK
        last = (end - 1 - self._base_off) // _DMA_PIN_CHUNK
        if self._ready_blocks.find(b"\x00", first, last + 1) == -1:
            return
        rc = self._completion.wait_range(start, end)
        if rc:
            raise RuntimeError(f"dma_load_runs failed with rc={rc}")
        self._ready_blocks[first : last + 1] = b"\x01" * (last - first + 1)

    def finish_io(self) -> None:
        if self._dma_thread is not None:
            self._dma_thread.join()
            self._dma_thread = None
        elif self._pinned:
            self.framework.synchronize(self.device)
        self._pinned = []
        self._completion = None
        self._ready_blocks.clear()
        self._read_ranges.clear()
        error, rc = self._dma_error, self._dma_rc
        self._dma_error, self._dma_rc = None, 0
        if error is not None:
            raise error
        if rc:
            raise RuntimeError(f"dma_load_runs failed with rc={rc}")

    def set_byte_ranges(self, byte_ranges: Optional[List[Tuple[int, int]]]) -> None:
        """Restrict reads to these ``[start, end)`` absolute file-offset runs.

        Only the bytes in the given runs are mmap-faulted, pinned, and copied;
        the rest of the device buffer is left uninitialized (so the corresponding
        tensors must not be requested). Tensor offsets are unchanged. ``None``
        reads the whole data section. Build runs with
        ``SafeTensorsMetadata.select_byte_ranges``.
        """
        self.byte_ranges = validated_byte_ranges(self.metadata, byte_ranges)

    def set_chunk(
        self,
        byte_ranges: List[Tuple[int, int]],
        names: Set[str],
        allocation_size: Optional[int] = None,
    ) -> None:
        """Load ``names`` into a compact or fixed-size device buffer.

        Allocates the runs' span by default, or ``allocation_size`` when set.
        """
        checked_ranges = validated_byte_ranges(self.metadata, byte_ranges)
        assert checked_ranges is not None
        self.byte_ranges = checked_ranges
        self._chunk_names = names
        self._chunk_allocation_size = validated_chunk_allocation_size(
            checked_ranges, allocation_size
        )

    @classmethod
    def chunk_transient_multiplier(cls, paths: List[str]) -> int:
        """Per in-flight-chunk transient cost, as a multiple of chunk span.

        The O_DIRECT reader (dma_load_runs) reads runs straight into the device
        buffer: each live chunk costs ~1x its span; its pinned pool is charged
        separately by ``fixed_device_overhead``. The mmap+pin_memory fallback
        additionally pins the chunk's file pages for the copy's lifetime;
        on unified-memory systems both draws come from one physical pool,
        so each live chunk costs ~2x its span.
        Mirrors submit_io's own path selection.
        """
        if any(not _odirect_reader_usable(p) for p in paths):
            return 2
        return 1

    @classmethod
    def fixed_device_overhead(cls, paths: List[str]) -> int:
        """Pinned O_DIRECT bounce pool charged on unified-memory systems.

        The C++ reader retains one 16 MiB pinned buffer per worker in a
        process-wide pool. Mixed files may use both reader paths: any usable
        O_DIRECT path can grow that persistent pool, even though the transient
        multiplier is 2 when any file falls back to mmap plus pinning.
        """
        if not any(_odirect_reader_usable(p) for p in paths):
            return 0
        return _dma_worker_count(_dma_threads_from_env()) * _DMA_PIN_CHUNK

    def submit_io(
        self, use_buf_register: bool, max_copy_block_size: int
    ) -> fstcpp.gds_device_buffer:
        header_length = self.metadata.header_length

        # Default to the whole data section, reproducing the full-file read.
        # An empty list (vs None) reads nothing — same semantics as nogds.
        runs = self.byte_ranges
        if runs is None:
            runs = [(header_length, self.metadata.size_bytes)]

        if self._chunk_names is not None:
            # Compact chunk: allocate only the runs' span and map gbuf[0] to the
            # first run's start, so peak memory tracks the chunk, not the shard.
            base_off = min((s for s, _ in runs), default=header_length)
            chunk_span = max((e for _, e in runs), default=base_off) - base_off
            alloc_length = self._chunk_allocation_size or chunk_span
        else:
            base_off = header_length
            alloc_length = self.metadata.size_bytes - header_length
        self._base_off = base_off

        # Allocate CUDA buffer via framework's allocator (proper lifecycle)
        gbuf = self.framework.alloc_tensor_memory(alloc_length, self.device)
        if not runs:
            return gbuf

        # Fast path: multithreaded O_DIRECT reader copies only the runs straight
        # into gbuf (byte F -> gbuf[F - base_off]), bypassing the page cache and
        # single-thread pin. Works for both full and compact-chunk buffers.
        # FASTSAFETENSORS_DMA_THREADS=0 disables it (falls back to mmap + pin);
        # Network filesystems use the shared buffered-I/O policy.
        dma_load_runs = getattr(fstcpp, "dma_load_runs", None)
        if (
            dma_load_runs is not None
            and self._dma_threads > 0
            and is_odirect_enabled(self.metadata.src)
        ):
            starts = [s for s, _ in runs]
            ends = [e for _, e in runs]
            # The reader's worker threads must select this loader's device
            # before any CUDA call (thread-local current device defaults to 0);
            # -1 = cpu device, leave the workers' default untouched.
            if self.device.type == DeviceType.CPU:
                device_id = -1
            else:
                device_id = self.device.index if self.device.index is not None else 0
            if self._readiness:
                completion = fstcpp.dma_completion(base_off, starts, ends)
                self._completion = completion
                self._read_ranges = list(runs)
                last = max(ends, default=base_off)
                self._ready_blocks = bytearray(
                    (last - base_off + _DMA_PIN_CHUNK - 1) // _DMA_PIN_CHUNK
                )

                def read():
                    try:
                        # One active DMA job per loader keeps the reusable pinned
                        # pool at the planner's fixed worker-count allowance.
                        with self._dma_gate:
                            self.framework.set_device(self.device)
                            self.framework.synchronize(self.device)
                            self._dma_rc = fstcpp.dma_load_runs_progress(
                                gbuf.get_base_address(),
                                self.metadata.src,
                                base_off,
                                starts,
                                ends,
                                self._dma_threads,
                                device_id,
                                completion,
                            )
                    except BaseException as error:
                        self._dma_error = error
                        completion.finish(-6)

                self._dma_thread = threading.Thread(target=read, name="fst-unified-dma")
                try:
                    self._dma_thread.start()
                except BaseException:
                    self._dma_thread = None
                    self._completion = None
                    self.framework.free_tensor_memory(gbuf, self.device)
                    raise
                return gbuf
            rc = dma_load_runs(
                gbuf.get_base_address(),
                self.metadata.src,
                base_off,
                starts,
                ends,
                self._dma_threads,
                device_id,
            )
            if rc == 0:
                return gbuf
            # Non-zero: reader unusable here; fall back to mmap + pin_memory.

        base_address = gbuf.get_base_address()
        self._pinned = []
        for start, end in runs:
            # mmap_file_pinned faults in + pins only this run's pages
            # (kernel readahead + DMA-ready), then DMA to the matching offset in
            # gbuf (gbuf[0] maps to file offset base_off).
            pinned = self.framework.mmap_file_pinned(
                self.metadata.src, end - start, start
            )
            self._pinned.append(pinned)
            ret = fstcpp.memcpy_h2d_async(  # type: ignore[attr-defined]
                base_address + (start - base_off),
                pinned.data_ptr(),
                end - start,
            )
            if ret != 0:
                self.framework.free_tensor_memory(gbuf, self.device)
                self._pinned = []
                raise RuntimeError(
                    f"cudaMemcpyAsync failed with error {ret} for {self.metadata.src}"
                )

        return gbuf

    def wait_io(
        self,
        gbuf: fstcpp.gds_device_buffer,
        dtype: DType = DType.AUTO,
        noalign: bool = False,
        owner: Optional["SharedDeviceAllocation"] = None,
    ) -> Dict[str, TensorBase]:
        self.finish_io()
        self.framework.synchronize(self.device)

        # Alignment note: unlike the GDS copier, we only copy the data section
        # (not the header) into gbuf, so gbuf starts at a CUDA-allocator-aligned
        # address. The copy_start_offset=header_length cancels out in get_tensors'
        # pointer arithmetic, giving correct offsets. No memmove fixup needed.
        tensors = self.metadata._get_tensors(
            gbuf,
            self.device,
            self._base_off,
            dtype=dtype,
            names=self._chunk_names,
            owner=owner,
        )

        # Release the pinned mmap pages
        self._pinned = []

        return tensors


def is_unified_memory_system(framework: Optional[FrameworkOpBase] = None) -> bool:
    """Detect if this system has unified CPU/GPU memory.

    Currently verified on DGX Spark (GB10). Other unified memory
    platforms (Grace Hopper GH200) may also benefit but are untested.

    Can be overridden via the FASTSAFETENSORS_UNIFIED_MEM environment
    variable: set to "1" to force enable, "0" to force disable.
    Device-name detection requires *framework*; with framework=None only
    the environment override can enable it.
    """
    override = os.environ.get("FASTSAFETENSORS_UNIFIED_MEM")
    if override is not None:
        return override == "1"

    if framework is None:
        return False
    return "gb10" in framework.get_device_name(0).lower()


@register_copier_constructor("unified", UnifiedMemCopier)
def new_unified_copier(device: Device, **kwargs) -> CopierConstructFunc:
    """Factory function for UnifiedMemCopier.

    Returns a constructor that creates UnifiedMemCopier instances.
    """
    from .nogds import load_library_func

    load_library_func(kwargs.get("framework"))
    dma_gate = threading.Lock()

    def construct_unified_copier(
        metadata: SafeTensorsMetadata,
        device: Device,
        framework: FrameworkOpBase,
    ) -> CopierInterface:
        return UnifiedMemCopier(metadata, device, framework, dma_gate)

    return construct_unified_copier
