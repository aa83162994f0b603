# SPDX-License-Identifier: Apache-2.0

import math
import platform
from typing import (
    Any,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    OrderedDict,
    Set,
    Tuple,
    Type,
    Union,
)

from . import cpp as fstcpp
from .common import (
    SafeTensorsMetadata,
    TensorFrame,
    get_device_numa_node,
    init_logger,
)
from .copier import (
    CopierConstructFunc,
    CopierInterface,
    CopierType,
    copier_class_of,
    create_copier_constructor,
)
from .copier.unified import is_unified_memory_system
from .file_buffer import FilesBufferOnDevice
from .frameworks import TensorBase, get_framework_op
from .st_types import Device, DeviceType, DType
from .tensor_factory import LazyTensorFactory

gl_set_numa = False

loaded_library = False

logger = init_logger(__name__)


class BaseSafeTensorsFileLoader:
    r"""Base class for loading .safetensors files lazily.

    Args:
        pg (Optional[Any]): Process group-like objects for distributed loading.
                           Use None for single device use-cases.
        device (Device): Target device where tensors will be loaded (CPU, CUDA, etc.).
        copier_constructor: Constructor function for creating file copier objects.
        set_numa (bool): Whether to set NUMA node affinity for optimized memory access.
        disable_cache (bool): Whether to disable caching of loaded tensors.
        debug_log (bool): Enable detailed debug logging.
        framework (str): Deep learning framework to use ("pytorch" or "paddle").
    """

    @classmethod
    def process_extension_config(
        cls, ext_config: Mapping[str, Any], **kwargs: Any
    ) -> Dict[str, Any]:
        """Translate extension config into ``__init__`` kwargs.
        Default: shallow copy as-is. Subclasses override to remap fields.
        ``kwargs`` carries runtime context (e.g. ``hf_weights_files``)."""
        return dict(ext_config)

    def __init__(
        self,
        pg: Optional[Any],
        device: Device,
        copier_type: CopierType,
        set_numa: bool = True,
        disable_cache: bool = True,
        framework="pytorch",
        **kwargs,
    ):
        self.framework = get_framework_op(framework)
        self.pg = self.framework.get_process_group(pg)
        self.device = device
        self.meta: Dict[str, Tuple[SafeTensorsMetadata, int]] = {}
        # Seeded by PipelineParallel's chunk planner and reused across batch
        # resets. Standalone loaders continue to read headers on registration.
        self._metadata_cache: Dict[str, SafeTensorsMetadata] = {}
        self.frames = OrderedDict[str, TensorFrame]()
        self.disable_cache = disable_cache
        self._tensor_filter: Optional[Callable[[str], bool]] = None
        # realpath -> (chunk tensor names, byte-ranges) for the next
        # copy_files_to_device; set by PipelineParallel when max_batch_bytes is
        # active so each file loads only a sub-file chunk. Empty = whole files.
        self._chunk_plan: Dict[
            str, Tuple[Set[str], List[Tuple[int, int]], Optional[int]]
        ] = {}
        kwargs["set_numa"] = set_numa
        if copier_type != "nogds":
            self.init_numa(set_numa)
        self.copier_constructor: CopierConstructFunc = create_copier_constructor(
            copier_type=copier_type,
            device=device,
            framework=self.framework,
            **kwargs,
        )
        # The class behind copier_constructor, for policy the planner needs
        # before any copier exists (chunk_transient_multiplier). Read off the
        # constructor rather than copier_type: asking for "gds" on a host
        # without cuFile hands back a nogds/unified constructor, and the plan
        # has to reflect the copier that will really run.
        self.copier_class: Type[CopierInterface] = copier_class_of(
            self.copier_constructor
        )

    def init_numa(self, set_numa: bool = True):
        global gl_set_numa
        if not gl_set_numa and set_numa:
            node = get_device_numa_node(self.device.index)
            if node is not None:
                fstcpp.set_numa_node(node)
            gl_set_numa = True

    def _set_chunk_plan(
        self,
        chunk_plan: Dict[str, Tuple[Set[str], List[Tuple[int, int]], Optional[int]]],
    ) -> None:
        """Load only a sub-file chunk of each listed file on the next
        copy_files_to_device, with an optional allocation size."""
        self._chunk_plan = chunk_plan

    def _set_metadata_cache(self, metadata: Dict[str, SafeTensorsMetadata]) -> None:
        """Reuse headers parsed for the current pipeline's chunk plan."""
        self._metadata_cache = dict(metadata)

    def reset(self):
        self.frames = {}
        self.meta = {}
        self._chunk_plan = {}

    def close(self):
        """Release the file registrations and copier. Safe to call more than once.

        The loader cannot be reused afterwards. Device buffers belong to the
        ``FilesBufferOnDevice`` returned by ``copy_files_to_device()``; close
        that to release them.
        """
        self.reset()
        self._metadata_cache.clear()
        if hasattr(self, "copier_constructor"):
            del self.copier_constructor

    def get_keys(self) -> List[str]:
        if self._tensor_filter is None:
            return list(self.frames.keys())
        keep = self._tensor_filter
        return [k for k in self.frames.keys() if keep(k)]

    def get_shape(self, tensor_name: str) -> List[int]:
        if self._tensor_filter is not None and not self._tensor_filter(tensor_name):
            raise ValueError(f"get_shape: key {tensor_name} is filtered out")
        return self.frames[tensor_name].shape

    def set_tensor_filter(self, keep_tensor: Optional[Callable[[str], bool]]) -> None:
        """Load only the tensors for which ``keep_tensor(name)`` is True.

        The ``nogds`` and ``unified`` copiers skip reading bytes for filtered
        tensors; other copiers load the full file. The filter narrows the
        public API on every backend: ``get_keys()`` omits filtered tensors,
        ``FilesBufferOnDevice`` does not register them, and ``get_tensor``,
        ``get_filename``, and ``get_shape`` raise ``ValueError`` for them.
        ``ParallelLoader.iterate_weights()`` skips them. ``None`` (the
        default) loads every tensor. See
        ``fastsafetensors.ep_slice.expert_parallel_filter``.
        """
        self._tensor_filter = keep_tensor

    def add_filenames(self, filenames: Dict[int, List[str]]):
        """
        Register files to ranks to be copied at copy_file_to_device().
        """
        # shuffle files in a round-robin fashion to avoid OoM
        rank_next_idx = {rank: 0 for rank in filenames.keys()}
        completed = 0
        while completed < len(filenames.keys()):
            completed = 0
            for rank in filenames.keys():
                next_idx = rank_next_idx[rank]
                if next_idx < len(filenames[rank]):
                    realpath = filenames[rank][next_idx]  # os.path.realpath(filename)
                    metadata = self._metadata_cache.get(realpath)
                    if metadata is None:
                        metadata = SafeTensorsMetadata.from_file(
                            realpath, self.framework
                        )
                    self.meta[realpath] = (metadata, rank)
                    self.frames.update(metadata.tensors)
                    if rank == self.pg.rank():
                        logger.debug(
                            "add_filenames %d: path=%s", len(self.meta), realpath
                        )
                    rank_next_idx[rank] = next_idx + 1
                else:
                    completed += 1

    def copy_files_to_device(
        self,
        dtype: DType = DType.AUTO,
        use_buf_register: bool = True,
        max_copy_block_size: int = 16 * 1024 * 1024 * 1024,
        allow_inflight: bool = False,
        borrowed_tensors: bool = False,
    ) -> FilesBufferOnDevice:
        """
        With allow_inflight=True, supporting copiers prepare AUTO dtype views
        during IO and wait for the necessary DMA range at tensor access. Closing
        the returned buffer drains all outstanding IO. Other copiers and online
        dtype conversion retain the blocking behavior.

        trigger copying all the files to device buffers.
        At this moment, we do not instantiate tensors but just creating copies at device buffers with or without GDS.
        Users can instantiate and/or partition tensors with FilesBufferOnDevice returned by this function.
        Tensors created from the returned FilesBufferOnDevice take shared
        ownership of the backing storage, so they stay valid after
        FilesBufferOnDevice.close(); no clone is required to outlive the buffer.
        With borrowed_tensors=True, local tensors and their derived views do
        not retain the allocation. Complete all use, including asynchronous
        device work, before closing the buffer. Requires a single-process group.
        """
        if borrowed_tensors and self.pg.size() != 1:
            raise ValueError("borrowed_tensors requires a single-process loader group")
        self.framework.set_device(self.device)

        if dtype != DType.AUTO:
            # Online conversion updates TensorFrame.dtype in the metadata.
            # Those objects no longer describe the on-disk dtype, so a later
            # registration must parse fresh headers instead of reusing them.
            self._metadata_cache.clear()

        need_wait: List[LazyTensorFactory] = []
        factories: Dict[int, List[LazyTensorFactory]] = {}
        for i in range(0, self.pg.size()):
            factories[i] = []

        factory_idx_bits = math.ceil(math.log2(len(self.meta) + 1))
        lidx = 1
        try:
            for realpath, (meta, rank) in sorted(self.meta.items(), key=lambda x: x[0]):
                self_rank = self.pg.rank() == rank
                if self_rank:
                    copier = self.copier_constructor(meta, self.device, self.framework)
                else:
                    copier = None
                factory = LazyTensorFactory(
                    meta,
                    self.device,
                    rank,
                    self_rank,
                    factory_idx_bits,
                    lidx,
                    copier,
                    self.framework,
                    disable_cache=self.disable_cache,
                )
                # Register ownership before configuring the copier: set_chunk
                # and set_byte_ranges can fail after it has opened a file.
                factories[rank].append(factory)
                if copier is not None:
                    chunk = self._chunk_plan.get(realpath)
                    if chunk is not None:
                        # Copiers without partial-read support refuse the chunk
                        # plan here (CopierInterface.set_chunk raises).
                        # Legacy two-argument overrides work only without an
                        # allocation size; budget-sized allocation needs all three.
                        names, ranges, allocation_size = chunk
                        if allocation_size is None:
                            copier.set_chunk(ranges, names)
                        else:
                            copier.set_chunk(ranges, names, allocation_size)
                    elif self._tensor_filter is not None:
                        copier.set_byte_ranges(
                            meta.select_byte_ranges(self._tensor_filter)
                        )
                factory.submit_io(
                    use_buf_register,
                    max_copy_block_size,
                    allow_inflight=allow_inflight and dtype == DType.AUTO,
                )
                if self_rank:
                    need_wait.append(factory)
                lidx += 1
            for factory in need_wait:
                factory.wait_io(
                    dtype=dtype, noalign=False, borrowed_tensors=borrowed_tensors
                )
        except BaseException:
            for loaders in factories.values():
                for factory in loaders:
                    try:
                        factory.free_dev_ptrs()
                    except Exception:
                        pass  # Preserve the original submission/materialization error.
            raise
        if self._chunk_plan:
            # Only this sub-batch's chunk tensors should be registered/visible.
            chunk_keys = set().union(
                *(names for names, _, _ in self._chunk_plan.values())
            )
            keep_tensor: Optional[Callable[[str], bool]] = lambda n: n in chunk_keys
        else:
            keep_tensor = self._tensor_filter
        return FilesBufferOnDevice(
            factories,
            pg=self.pg,
            framework=self.framework,
            keep_tensor=keep_tensor,
            borrowed_tensors=borrowed_tensors,
        )


class SafeTensorsFileLoader(BaseSafeTensorsFileLoader):
    r"""Load .safetensors files lazily.

    Args:
        devcie (str): target device.
        pg (Optional[Any]): process group-like objects for distributed. None for single GPU use-cases.
        bbuf_size_kb (int): bounce buffer size for file copies.
        max_threads (int): maximum number of threads for memory copies.
        nogds (bool): if True, trun off GDS and fallback to pread with bounce buffer.
        debug_log (bool): enable debug logs.

    Examples:
        >> from fastsafetensors import SafeTensorsFileLoader
        >> src_files = download(target_dir, "gpt2")
        >> loader = SafeTensorsFileLoader(Device("cpu"), nogds=True, debug_log=True)
        >> loader.add_filenames({0: src_files})
        >> bufs = loader.copy_files_to_device()
        >> print(bufs.get_tensor(loader.get_keys()[0]))
        >> loader.close()
    """

    @classmethod
    def process_extension_config(
        cls, ext_config: Mapping[str, Any], **kwargs: Any
    ) -> Dict[str, Any]:
        """Map ``copier_type`` to ``nogds``/``use_fgds`` flags; pass rest through."""
        out = dict(ext_config)
        copier_type = out.pop("copier_type", "gds")
        if copier_type == "fgds":
            out["nogds"] = False
            out["use_fgds"] = True
        else:
            out["nogds"] = copier_type != "gds"
            out.setdefault("use_fgds", False)
        return out

    def __init__(
        self,
        pg: Optional[Any],
        device: str = "cpu",
        bbuf_size_kb: int = 16 * 1024,
        max_threads: int = 16,
        nogds: bool = False,
        set_numa: bool = True,
        disable_cache: bool = True,
        debug_log: bool = False,
        framework="pytorch",
        use_fgds: bool = False,
        **kwargs,
    ):
        self.framework = get_framework_op(framework)
        self.pg = self.framework.get_process_group(pg)
        self.device = self.framework.get_device(device, self.pg)

        fstcpp.set_debug_log(debug_log)
        if nogds:
            if self.device.type != DeviceType.CPU and is_unified_memory_system(
                self.framework
            ):
                # When GDS is unavailable, prefer the unified copier on systems
                # with shared CPU/GPU memory (e.g., DGX Spark) over the
                # bounce-buffer nogds path.
                copier_type = "unified"
            else:
                copier_type = "nogds"
        elif use_fgds:
            copier_type = "fgds"
        elif platform.system() == "Windows":
            copier_type = "dstorage"
        else:
            copier_type = "gds"
        super().__init__(
            pg,
            self.device,
            copier_type,
            set_numa,
            disable_cache,
            framework,
            bbuf_size_kb=bbuf_size_kb,
            max_threads=max_threads,
            **kwargs,
        )


class fastsafe_open:
    """
    Opens a safetensors lazily and returns tensors as asked
    This is an enhanced version of safe_open in the original safetensors library to consume file list
    Tensors returned from this context take shared ownership of their backing
    buffer, so they remain valid after the with block exits; no clone is
    required to reuse the data afterwards.

    Args:
        filenames (:obj:`str`|`list[str]`|`dict[int, str]`): The filename(s) or rank-file map to open
        framework (:obj:`str`): `pt`, `pytorch`, and `paddle` are only supported currently
        device (:obj:`str`, defaults to :obj:`"cpu"`): The device on which you want the tensors.
    """

    def __init__(
        self,
        filenames: Union[str, List[str], Dict[int, List[str]]],
        framework: str = "pt",
        pg: Optional[Any] = None,
        device: str = "cpu",
        nogds: bool = False,
        debug_log: bool = False,
        max_copy_block_size: int = 16 * 1024 * 1024 * 1024,
        use_fgds: bool = False,
    ):
        self.loader = SafeTensorsFileLoader(
            pg,
            device,
            nogds=nogds,
            debug_log=debug_log,
            framework=framework,
            use_fgds=use_fgds,
        )
        file_dict: Dict[int, List[str]] = {}
        if isinstance(filenames, str):
            file_dict = {0: [filenames]}
        if isinstance(filenames, list):
            file_dict = {0: filenames}
        elif isinstance(filenames, dict):
            file_dict = filenames
        self.loader.add_filenames(file_dict)
        self.fb = self.loader.copy_files_to_device(
            max_copy_block_size=max_copy_block_size
        )

    def metadata(self) -> Dict[str, Dict[str, str]]:
        ret = {}
        for filename, (metadata, _) in self.loader.meta.items():
            ret[filename] = metadata.metadata
        return ret

    def keys(self) -> List[str]:
        return list(self.fb.key_to_rank_lidx.keys())

    def get_tensor_wrapped(self, name: str) -> TensorBase:
        """Return a wrapped tensor by name.

        The returned tensor keeps its backing buffer alive, so it stays valid
        after the context closes.
        """
        return self.fb.get_tensor_wrapped(name)

    def get_tensor(self, name: str) -> Any:
        """Return a tensor by name.

        The returned tensor keeps its backing buffer alive, so it stays valid
        after the context closes.
        """
        return self.get_tensor_wrapped(name).get_raw()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, tb):
        if self.fb:
            self.fb.close()
        if self.loader:
            self.loader.close()
