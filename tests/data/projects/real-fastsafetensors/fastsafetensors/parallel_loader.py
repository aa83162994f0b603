# SPDX-License-Identifier: Apache-2.0

import os
import queue
import threading
import time
from typing import Any, Callable, Dict, Generator, List, Optional, Set, Tuple, Union

try:
    from tqdm.auto import tqdm

    _TQDM_AVAILABLE = True
except ImportError:
    _TQDM_AVAILABLE = False

    def tqdm(iterable, *args, **kwargs):
        return iterable


from . import cpp as fstcpp
from ._planner import plan_chunks
from .common import SafeTensorsMetadata, SingleGroup
from .frameworks import FrameworkOpBase
from .loader import BaseSafeTensorsFileLoader, SafeTensorsFileLoader


def enable_tqdm(
    use_tqdm_on_load: bool, framework: Optional[FrameworkOpBase] = None
) -> bool:
    """Determine whether to enable tqdm progress bar based on distributed settings.

    Progress bar is enabled only on rank 0 when in distributed mode, or always
    enabled in single GPU mode.

    Args:
        use_tqdm_on_load: User preference for enabling tqdm
        framework: Framework op used to query the global distributed rank.
            None is treated as single-process mode (rank 0).

    Returns:
        bool: True if tqdm should be enabled, False otherwise
    """
    rank = framework.get_global_rank() if framework is not None else 0
    return _TQDM_AVAILABLE and use_tqdm_on_load and rank == 0


_BAR_FORMAT = "{desc}: {percentage:3.0f}% Completed | {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]\n"


def parse_time(timestamp_ms):
    """Convert timestamp in milliseconds to formatted string with millisecond precision.

    Args:
        timestamp_ms: Timestamp in milliseconds

    Returns:
        str: Formatted timestamp string with millisecond precision
    """
    return (
        time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(timestamp_ms))
        + f".{int((timestamp_ms % 1) * 1000):03d}"
    )


class TimingContext:
    """Context manager for timing operations."""

    def __init__(
        self,
        name: str,
        logger=None,
        batch_id=None,
        threshold_ms: float = 0,
        log_on_exit: bool = True,
    ):
        self.name = name
        self.logger = logger
        self.threshold_ms = threshold_ms
        self.log_on_exit = log_on_exit
        self.start_time = None
        self.elapsed_ms = 0
        self.batch_id = batch_id

    def __enter__(self):
        self.start_time = time.time()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        msg = ""
        if self.batch_id is not None:
            msg += f"Batch {self.batch_id}: "
        self.elapsed_ms = (time.time() - self.start_time) * 1000
        if (
            self.logger
            and self.log_on_exit
            and (self.elapsed_ms >= self.threshold_ms or exc_type is not None)
        ):
            msg += f"{self.name} took {self.elapsed_ms:.3f} ms"
            self.logger(msg)
        return False


class FileBatch:
    """Represents a batch of files loaded into device memory.

    This class encapsulates a batch of SafeTensors files that have been loaded
    into memory, along with metadata about the loading process for performance
    monitoring and debugging purposes.
    """

    def __init__(self, fb, keys: List[str], batch_id: int):
        """Initialize a FileBatch instance.

        Args:
            fb: SafeTensors file buffer containing loaded tensors
            keys: List of tensor keys available in this batch
            batch_id: Unique identifier for this batch
        """
        self.fb = fb  # SafeTensors file buffer
        self.keys = keys  # tensor keys
        self.batch_id = batch_id
        self.load_time: Optional[float] = None  # Record loading time for debugging
        self.add_filenames_time: Optional[float] = None  # Record add_filenames time
        self.copy_files_time: Optional[float] = None  # Record copy_files_to_device time


class PipelineParallel:
    r"""Load .safetensors files in parallel with producer-consumer pattern."""

    def __init__(
        self,
        pg: Optional[Any],
        loader: BaseSafeTensorsFileLoader,
        hf_weights_files: List[str],
        max_concurrent_producers: int = 1,
        # queue_size semantics:
        #   -1 : fully serial — copy_files → broadcast → copy_files (1 batch in GPU mem)
        #    0 : unbuffered pipeline — 1 copying + 1 broadcasting concurrently (2 batches)
        #   >0 : buffered pipeline — up to (queue_size+2) batches in GPU mem
        #        (queue_size queued + 1 being produced + 1 being consumed)
        queue_size: int = 0,
        use_tqdm_on_load: bool = True,
        tensor_filter: Optional[Callable[[str], bool]] = None,
        max_batch_bytes: Optional[int] = None,
        use_chunk_budget_as_allocation_size: bool = False,
        device_memory_budget: Optional[int] = None,
        accumulate_resident: bool = True,
        resident_tensor: Optional[Callable[[str], bool]] = None,
        broadcast_run_bytes: int = 16 << 20,
        broadcast_run_tensors: int = 64,
        overlap_io: bool = True,
        borrowed_tensors: bool = False,
        **kwargs,
    ):

        if max_concurrent_producers != 1:
            raise ValueError(
                f"max_concurrent_producers must be 1 (got {max_concurrent_producers}). "
                "Concurrent producers > 1 are not yet supported because broadcast "
                "batches must be processed in strict order across all ranks."
            )
        if pg is None:
            pg = SingleGroup()
        self.loader = loader
        self.overlap_io = overlap_io
        # Read only the tensors this rank keeps (e.g. its owned experts); see
        # SafeTensorsFileLoader.set_tensor_filter. get_tensor broadcasts across
        # the loader's process group, so a per-rank filter is only correct when
        # the loader uses a single-process group (no broadcast) -- enforce it.
        if tensor_filter is not None:
            if pg.size() > 1 or loader.pg.size() > 1:
                raise ValueError(
                    "tensor_filter requires a single-process loader group "
                    "(ParallelLoader(all_local=True) or pg=None): get_tensor "
                    "broadcasts across the loader group, which would deliver "
                    "tensors this rank never read"
                )
            loader.set_tensor_filter(tensor_filter)
        self.hf_weights_files = hf_weights_files
        self.max_concurrent_producers = max_concurrent_producers
        self.queue_size = queue_size
        self.use_tqdm_on_load = use_tqdm_on_load
        # When set, each shard is loaded in sub-file chunks (span <= this many
        # bytes) so peak device buffer per rank is bounded regardless of shard
        # size. See _planner.plan_chunks / CopierInterface.set_chunk.
        self.max_batch_bytes = max_batch_bytes
        if use_chunk_budget_as_allocation_size and (
            max_batch_bytes is None and device_memory_budget is None
        ):
            raise ValueError(
                "use_chunk_budget_as_allocation_size requires max_batch_bytes or "
                "device_memory_budget"
            )
        self.use_chunk_budget_as_allocation_size = use_chunk_budget_as_allocation_size
        # When set (bytes), bound the load's TOTAL device footprint (resident
        # tensors + transient buffers + fixed copier pools) via a static fit
        # plan: whole-file loads while headroom is ample, per-file chunk budgets
        # declining as the device fills. The caller knows what else lives on
        # the device and, under broadcast loading, must pass the same value
        # on every rank (e.g. all-reduce(MIN) of each rank's free memory) so
        # the plan stays identical across ranks. See fastsafetensors._planner.
        self.device_memory_budget = device_memory_budget
        # True: the consumer keeps every yielded tensor (resident grows by
        # cumulative kept bytes). False: tensors are copied into preallocated
        # destinations (e.g. model params) so resident growth is 0 and the fit
        # plan degenerates to a uniform per-file budget.
        self.accumulate_resident = accumulate_resident
        if resident_tensor is not None and not accumulate_resident:
            raise ValueError(
                "resident_tensor requires accumulate_resident=True: "
                "accumulate_resident=False charges no residency at all, so the "
                "predicate would be silently discarded"
            )
        # Which kept tensors stay on the device after the load. None: all of
        # them. Must be a pure function of the tensor name and identical on
        # every rank -- see collect_file_stats.
        #
        # The plan reserves one chunk budget for a live non-resident yield, so
        # the consumer must relocate each such tensor before asking for the
        # next. Holding several at once overruns that reservation.
        self.resident_tensor = resident_tensor

        if borrowed_tensors and accumulate_resident:
            raise ValueError(
                "borrowed_tensors requires accumulate_resident=False because "
                "yielded tensors must not be retained after the iterator advances"
            )
        if borrowed_tensors and (pg.size() != 1 or loader.pg.size() != 1):
            raise ValueError(
                "borrowed_tensors requires a single-process loader group "
                "(ParallelLoader(all_local=True) or pg=None)"
            )
        self.borrowed_tensors = borrowed_tensors
        # Preserve independent outputs and the existing clone budget by default.
        # Only an explicit borrowed mode exports the raw loader storage.
        self.need_clone = pg.size() == 1 and not borrowed_tensors
        if broadcast_run_bytes < 0 or broadcast_run_tensors < 0:
            raise ValueError("broadcast run limits must be non-negative")
        self.broadcast_run_bytes = broadcast_run_bytes
        self.broadcast_run_tensors = broadcast_run_tensors
        self._coalesce_broadcasts = (
            pg.size() > 1
            and loader.framework.get_name() == "pytorch"
            and broadcast_run_bytes > 0
            and broadcast_run_tensors > 0
            # Keep selected resident tensors from retaining unrelated run
            # storage by delivering them individually.
            and resident_tensor is None
        )
        self._drain_broadcast_runs = not accumulate_resident

        # Before _create_batches, which reports any queue_size clamp.
        self.print_log = os.getenv("FASTSAFETENSORS_DEBUG", "false").lower() == "true"
        self.log_prefix = f"PG{pg.rank() if pg is not None else 0}"

        # Batch files (or, with max_batch_bytes / device_memory_budget,
        # sub-file chunk-batches)
        self.weight_files_batches = self._create_batches(pg)

        # Producer-consumer communication
        # For unbuffered behavior (queue_size=0), we use a maxsize of 1 to ensure synchronization
        # but modify the producer logic to wait for consumer to process before producing next
        # self.queue_size, not the parameter: _create_batches may have clamped
        # it, and the runtime handshake paths read the attribute. Sizing these
        # from the parameter would run the pipeline deeper than it was budgeted
        # for -- a clamp from 3 to -1 would leave consumer_processed None and
        # skip the serial handshake entirely.
        self.batch_queue: queue.Queue[Union[FileBatch, Exception, None]] = queue.Queue(
            maxsize=max(1, self.queue_size)
        )  # Ensure at least size 1
        self.stop_event = threading.Event()
        self.error_event = threading.Event()
        self.error_info: Optional[str] = None

        # For unbuffered behavior, we need additional synchronization
        self.consumer_processed: Optional[threading.Event] = (
            threading.Event() if self.queue_size <= 0 else None
        )
        if self.queue_size <= 0 and self.consumer_processed is not None:
            self.consumer_processed.set()  # Initially set to allow first production

        fstcpp.set_gil_release(True)

    def _create_batches(self, pg) -> List[List[Any]]:
        """Create file batches based on distributed settings.

        In distributed mode, files are grouped by the process group size so that
        each process in the group handles one file from each batch.

        Args:
            pg: Process group for distributed operations

        Returns:
            List[List[str]]: List of file batches, where each batch contains
                            files for all processes in the group
        """
        batch_size = pg.size()
        # A new pipeline must not inherit headers from a previous load, even
        # when it uses the same underlying loader without sub-file chunking.
        self.loader._set_metadata_cache({})
        file_batches = [
            self.hf_weights_files[i : i + batch_size]
            for i in range(0, len(self.hf_weights_files), batch_size)
        ]
        if self.max_batch_bytes is None and self.device_memory_budget is None:
            return file_batches

        keep = self.loader._tensor_filter
        fw = self.loader.framework

        # Parse each distinct shard once for planning and all later chunks.
        meta_by_path = {
            f: SafeTensorsMetadata.from_file(f, fw)
            for f in dict.fromkeys(self.hf_weights_files)
        }

        # Per-file chunk budget. Uniform (max_batch_bytes) by default; with
        # device_memory_budget, a static fit plan chooses declining budgets so
        # resident + transient stays within the budget (see planner module).
        per_file_budget: Optional[Dict[str, int]] = None
        if self.device_memory_budget is not None:
            from ._planner import (
                BudgetInfeasibleError,
                collect_file_stats,
                fit_queue_size,
                has_non_resident,
                load_depth,
                plan_file_budgets,
            )

            metas = [(f, meta_by_path[f]) for f in self.hf_weights_files]
            stats = collect_file_stats(metas, keep, self.resident_tensor)
            # A clone of a yielded tensor only needs its own budget when it is
            # transient. With a residency predicate that is a property of the
            # plan, not a caller-supplied bool: reserve iff some kept bytes do
            # not stay resident.
            account_for_yield_clone = self.need_clone and (
                not self.accumulate_resident or has_non_resident(stats)
            )
            # Transient and fixed device costs both depend on the copier's
            # reader path (e.g. mmap+pin costs 2x per chunk, while O_DIRECT
            # keeps a fixed pinned pool), so ask it before fitting and planning.
            copier = self.loader.copier_class
            paths = [f for f, _ in metas]
            multiplier = copier.chunk_transient_multiplier(paths)
            chunk_overhead = copier.chunk_device_overhead(paths)
            fixed_overhead = copier.fixed_device_overhead(paths)
            effective_budget = self.device_memory_budget - fixed_overhead
            if effective_budget <= 0:
                raise BudgetInfeasibleError(
                    f"device_memory_budget={self.device_memory_budget} does not "
                    f"cover {copier.__name__}'s fixed device overhead of "
                    f"{fixed_overhead} bytes, leaving no budget for loading. "
                    f"Free device memory or pass a larger explicit budget."
                )
            # Too small a budget for the requested depth is a reason to load
            # more shallowly, not to fail: the budget comes from free memory at
            # load time while queue_size is static, so nobody can pick the right
            # depth in advance. Inputs are header-derived and the budget is
            # identical on every rank, so all ranks clamp alike -- the lockstep
            # broadcast needs no collective to agree.
            fitted = fit_queue_size(
                self.queue_size,
                stats,
                effective_budget,
                max_batch_bytes=self.max_batch_bytes,
                accumulate_resident=self.accumulate_resident,
                transient_multiplier=multiplier,
                group_size=batch_size,
                account_for_yield_clone=account_for_yield_clone,
                chunk_overhead=chunk_overhead,
            )
            if fitted is None:
                # No depth fits. Plan serially anyway, so the error reports the
                # smallest shortfall -- the bytes the user must actually free.
                self.queue_size = -1
            elif fitted < self.queue_size:
                self._log_message(
                    f"device_memory_budget={self.device_memory_budget} does not "
                    f"fit queue_size={self.queue_size}; loading with "
                    f"queue_size={fitted} instead. Free device memory or raise "
                    f"the budget to keep a deeper pipeline.",
                    is_error=True,  # a silent throughput cut is worse
                )
                self.queue_size = fitted
            # batch_size also sets the group width: those files load together,
            # one per rank, and every rank keeps all of them.
            depth = load_depth(self.queue_size, batch_size)
            try:
                budgets = plan_file_budgets(
                    stats,
                    effective_budget,
                    depth,
                    max_batch_bytes=self.max_batch_bytes,
                    accumulate_resident=self.accumulate_resident,
                    transient_multiplier=multiplier,
                    group_size=batch_size,
                    account_for_yield_clone=account_for_yield_clone,
                    chunk_overhead=chunk_overhead,
                )
            except BudgetInfeasibleError as e:
                if not fixed_overhead:
                    raise
                raise BudgetInfeasibleError(
                    f"{e} (the budget passed was {self.device_memory_budget}, "
                    f"less {fixed_overhead} bytes of fixed {copier.__name__} "
                    f"device overhead)"
                ) from e
            per_file_budget = {f: b for (f, _), b in zip(metas, budgets)}

        # Expand each file-batch (one file per rank) into aligned chunk-batches.
        # Chunk-batch j holds rank r's j-th chunk (or None once that rank's file
        # runs out), so every rank issues the same broadcast sequence in
        # lockstep. Header reads are deterministic, so all ranks build identical
        # batches. Each shard stays owned by one rank and is loaded in chunks
        # over successive batches -> peak buffer bounded by its budget per rank.
        def _plan_file(
            f: str,
        ) -> Tuple[List[Tuple[Set[str], List[Tuple[int, int]]]], int]:
            if per_file_budget is not None:
                budget = per_file_budget[f]
                return (
                    plan_chunks(meta_by_path[f], budget, keep_tensor=keep),
                    budget,
                )
            assert self.max_batch_bytes is not None
            return (
                plan_chunks(
                    meta_by_path[f],
                    self.max_batch_bytes,
                    keep_tensor=keep,
                ),
                self.max_batch_bytes,
            )

        chunk_batches: List[List[Any]] = []
        for group in file_batches:
            planned = [(f, *_plan_file(f)) for f in group]
            maxn = max((len(chunks) for _, chunks, _ in planned), default=0)
            for j in range(maxn):
                spec: List[Any] = []
                for f, chunks, budget in planned:
                    if j < len(chunks):
                        names, ranges = chunks[j]
                        allocation_size = (
                            budget
                            if ranges and self.use_chunk_budget_as_allocation_size
                            else None
                        )
                        spec.append((f, names, ranges, allocation_size))
                    else:
                        spec.append(None)
                chunk_batches.append(spec)
        self.loader._set_metadata_cache(meta_by_path)
        return chunk_batches

    def _log_message(self, message: str, is_error: bool = False):
        """Unified logging method for conditional print statements.
        Args:
            message: The message to log
        """
        t = parse_time(time.time())
        if self.print_log or is_error:
            print(f"[{self.log_prefix}] {t} - {message}", flush=True)

    def _log_error(self, message: str):
        self._log_message(message, is_error=True)

    def _wait_consumer_processed(self) -> bool:
        """Wait for the consumer to finish the previous batch, cancellable.

        Returns False once cleanup has begun (stop_event set), so the producer
        abandons the batch instead of blocking forever when the consumer stops
        iterating mid-batch. The timeout only bounds how long a missed wakeup
        could linger; cleanup also sets consumer_processed for an instant wakeup.
        """
        assert self.consumer_processed is not None
        while not self.stop_event.is_set():
            if self.consumer_processed.wait(timeout=0.1):
                return not self.stop_event.is_set()
        return False

    def _put_cancellable(self, item: Union[FileBatch, Exception, None]) -> bool:
        """Queue put that gives up once cleanup has begun.

        A plain put() can block forever when the consumer stopped iterating
        mid-batch (queue full, nobody left to get). Returns False if the item
        was not delivered.
        """
        while not self.stop_event.is_set():
            try:
                self.batch_queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _drain_queue(self):
        """Discard queued items, closing any file buffers the consumer never took."""
        error = None
        while True:
            try:
                item = self.batch_queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, FileBatch):
                try:
                    item.fb.close()
                except Exception as exc:
                    if error is None:
                        error = exc
        if error is not None:
            raise error

    def _spec_to_maps(self, spec: List[Any]):
        """Turn a batch spec into (rank_file_map, chunk_plan).

        Without sub-file chunking (neither max_batch_bytes nor
        device_memory_budget set) the spec is a list of files (one per rank).
        With it, the spec is a chunk-batch: per rank, either
        (file, names, ranges, allocation_size) or None.
        """
        if self.max_batch_bytes is None and self.device_memory_budget is None:
            return {i: [f] for i, f in enumerate(spec)}, None
        rank_file_map: Dict[int, List[str]] = {}
        chunk_plan: Dict[str, Tuple[Set[str], List[Tuple[int, int]], Optional[int]]] = (
            {}
        )
        for r, entry in enumerate(spec):
            if entry is None:
                continue
            f, names, ranges, allocation_size = entry
            rank_file_map[r] = [f]
            chunk_plan[f] = (names, ranges, allocation_size)
        return rank_file_map, chunk_plan

    def _load_single_batch(self, batch_id: int, file_list: List[Any]):
        """Load a single batch into device memory.

        This method handles the complete process of loading a batch of files:
        1. Preparing file mappings
        2. Adding filenames to the loader
        3. Copying files to device memory
        4. Creating a FileBatch object with timing information
        5. Putting the batch into the queue for consumer processing

        Args:
            batch_id: Identifier for this batch
            file_list: List of files to load in this batch
        """
        if self.stop_event.is_set() or self.error_event.is_set():
            self._log_message(
                f"Producer batch {batch_id} skipped: stop_event-{self.stop_event.is_set()} "
                f"or error_event-{self.error_event.is_set()},"
                f"error_info-{self.error_info}",
                is_error=True,
            )
            return

        try:
            rank_file_map, chunk_plan = self._spec_to_maps(file_list)

            with TimingContext("add_filenames", self._log_message, batch_id) as timer:
                self.loader.add_filenames(rank_file_map)
                if chunk_plan is not None:
                    self.loader._set_chunk_plan(chunk_plan)
            add_filenames_time = timer.elapsed_ms

            # For unbuffered behavior, wait for consumer to process previous item
            if self.queue_size <= 0 and self.consumer_processed is not None:
                if not self._wait_consumer_processed():
                    return  # cleanup began; skip the batch
                # Clear the event after wait to ensure next wait will block
                self.consumer_processed.clear()

            with TimingContext(
                "copy_files_to_device", self._log_message, batch_id
            ) as timer:
                fb = self.loader.copy_files_to_device(
                    allow_inflight=self.overlap_io,
                    borrowed_tensors=self.borrowed_tensors,
                )
            copy_time = timer.elapsed_ms

            # Get tensor keys
            keys = list(fb.key_to_rank_lidx.keys())

            # Create batch object with timing info
            batch = FileBatch(fb, keys, batch_id)
            batch.add_filenames_time = add_filenames_time
            batch.copy_files_time = copy_time
            batch.load_time = add_filenames_time + copy_time  # Total load time

            # Put into queue for consumer processing
            if self._put_cancellable(batch):
                with TimingContext("loader.reset", self._log_message, batch_id):
                    self.loader.reset()
            else:
                # Consumer is gone; release the batch's device memory.
                fb.close()

        except Exception as e:
            self.error_info = f"Producer batch {batch_id} failed: {e}"
            self.error_event.set()
            self._put_cancellable(e)  # Notify consumer of error

    def _producer_worker(self):
        """Producer worker thread: responsible for copy_files_to_device operations.

        This method runs in a separate thread and handles the production of file
        batches by loading them into memory and placing them in the queue for
        consumption by the main thread.
        """
        batch_id = 0
        try:
            for f_list in tqdm(
                self.weight_files_batches,
                desc="Loading fastsafetensors checkpoint shards",
                disable=True,
                bar_format=_BAR_FORMAT,
            ):
                self._load_single_batch(batch_id, f_list)
                batch_id += 1
        except Exception as e:
            if not self.error_event.is_set():
                self.error_info = f"Producer future failed: {e}"
                self.error_event.set()
                self._put_cancellable(e)

        # Signal end of production
        self._put_cancellable(None)

    def _consume_single_batch(self):
        with TimingContext("wait_queue", self._log_message) as timer:
            batch_item = self.batch_queue.get()
            # For unbuffered behavior, signal that we've processed this item
            if self.queue_size == 0 and self.consumer_processed is not None:
                self.consumer_processed.set()
            # Check end signal
            if batch_item is None:
                self._log_error(f"get batch_item is None, will break")
                return
            # Check for errors
            if isinstance(batch_item, Exception):
                self._log_error(f"get batch_item is Exception, will raise")
                raise batch_item
            # Process normal batch
            batch = batch_item
            timer.batch_id = batch.batch_id
        queue_wait_time = timer.elapsed_ms
        if queue_wait_time / 1000 > 10:  # Only log if wait time is significant > 10s
            self._log_message(
                f"Warning: Batch {batch.batch_id}: Queue wait took {queue_wait_time:.3f} ms",
                is_error=True,
            )
        try:
            self._log_message(
                f"Batch {batch.batch_id}: tensor key len: {len(batch.keys)}"
            )
            with TimingContext(
                "get_tensor", self._log_message, batch.batch_id
            ) as timer:
                if self.borrowed_tensors:
                    weights = batch.fb.iter_local_tensors(batch.keys)
                elif self._coalesce_broadcasts:
                    weights = batch.fb._iter_tensors(
                        batch.keys,
                        self.broadcast_run_bytes,
                        self.broadcast_run_tensors,
                        self._drain_broadcast_runs,
                    )
                else:
                    weights = ((key, batch.fb.get_tensor(key)) for key in batch.keys)
                try:
                    for key, tensor in weights:
                        if self.need_clone:
                            tensor = tensor.clone()
                        yield key, tensor
                finally:
                    weights.close()
            get_tensor_time = timer.elapsed_ms
        finally:
            # Close the file buffer
            with TimingContext("fb.close", self._log_message, batch.batch_id) as timer:
                batch.fb.close()
            close_time = timer.elapsed_ms
        # Log batch summary with all timing info
        self._log_message(
            f"Batch {batch.batch_id} summary: "
            f"add_filenames={batch.add_filenames_time:.3f}ms, "
            f"copy_files={batch.copy_files_time:.3f}ms, "
            f"get_tensor_total={get_tensor_time:.3f}ms, "
            f"close={close_time:.3f}ms, "
            f"num_keys={len(batch.keys)}"
        )
        # sync
        if self.queue_size < 0 and self.consumer_processed is not None:
            self.consumer_processed.set()

    def _consumer_worker(self):
        start_time_total = time.time()
        processed_batches = 0
        try:
            for _ in tqdm(
                self.weight_files_batches,
                desc="Loading fastsafetensors checkpoint shards",
                disable=not enable_tqdm(self.use_tqdm_on_load, self.loader.framework),
                bar_format=_BAR_FORMAT,
            ):
                yield from self._consume_single_batch()
                processed_batches += 1
        except GeneratorExit:
            # The caller closed the iterator before it was exhausted.
            self._log_message(
                f"iterate_weights closed early: {processed_batches} of "
                f"{len(self.weight_files_batches)} batches fully consumed"
            )
            raise
        except Exception as e:
            self._log_message(f"Consumer error: {e}", is_error=True)
            self.stop_event.set()
            raise
        finally:
            end_time_total = time.time()
            elapsed_time = end_time_total - start_time_total
            self._log_message(
                f"Completed ParallelLoader iterate_weights, "
                f"processed {processed_batches} batches, total time: {elapsed_time:.2f} seconds"
            )

    def iterate_weights(self) -> Generator[Tuple[str, Any], None, None]:
        """Main weight iterator: consumer logic.

        This method implements the consumer side of the producer-consumer pattern.
        It retrieves batches from the queue, extracts tensors, and yields them
        one by one. It also handles cleanup and error reporting.

        Yielded tensors are independent of the load buffers and stay valid.
        Each batch's buffers are freed once the iterator moves past its last
        tensor, and the rest when the iterator is exhausted or closed. The
        loader's ``close()`` does not free them: if the loop can stop early,
        close the iterator (e.g. ``contextlib.closing``) before the loader.

        Yields:
            Tuple[str, Any]: Key-value pairs of tensor names and framework
            tensors (e.g. torch.Tensor for the pytorch framework)

        Warning:
            With borrowed_tensors=True, tensors and derived views do not own
            the load buffer. Complete all use, including asynchronous device
            work, before advancing or closing the iterator. Copy into independent
            storage to retain data. Close the iterator on early exit.
        """
        self._log_message("Starting ParallelLoader iterate_weights")

        # Start producer thread
        producer_thread = threading.Thread(target=self._producer_worker)
        producer_thread.start()

        try:
            yield from self._consumer_worker()
        finally:
            # Cleanup: the consumer may stop mid-iteration (generator closed,
            # exception), leaving the producer parked on consumer_processed or
            # a full queue. Wake both so it observes stop_event and exits.
            self.stop_event.set()
            if self.consumer_processed is not None:
                self.consumer_processed.set()
            error = None
            try:
                self._drain_queue()
            except Exception as exc:
                error = exc
            # Stop may arrive while the producer submits IO or builds views.
            # It owns those buffers until its cancellable queue put finishes.
            # Join before closing the loader, even if a queued read failed.
            producer_thread.join()
            try:
                self._drain_queue()
            except Exception as exc:
                if error is None:
                    error = exc
            if error is not None:
                raise error

    def close(self):
        """Close the underlying loader. Safe to call more than once.

        Does not free buffers held by a live ``iterate_weights()`` iterator.
        Exhaust or close the iterator first.
        """
        self.loader.close()


class ParallelLoader(PipelineParallel):
    r"""Load .safetensors files in parallel with producer-consumer pattern.

    This class is a convenience wrapper around PipelineParallel that handles
    the creation of the SafeTensorsFileLoader with appropriate parameters.

    Args:
        pg (Optional[Any]): Process group-like objects for distributed operations.
                           None for single GPU use-cases.
        hf_weights_files (List[str]): List of safetensors files to load.
        max_concurrent_producers (int): Maximum number of concurrent producer threads
                                       for file loading. Currently only 1 is supported.
        queue_size (int): Size of the queue for buffering loaded file batches.
                         Set to -1 for serial loading or 0 for an unbuffered
                         pipeline. Automatically reduced to fit device_memory_budget.
        use_tqdm_on_load (bool): Enable progress bar during loading.
        device (str): Target device for tensor loading (e.g., "cpu", "cuda:0").
        bbuf_size_kb (int): Bounce buffer size for file copies in KB.
        max_threads (int): Maximum number of threads for memory copies.
        nogds (bool): If True, turn off GDS and fallback to pread with bounce buffer.
        use_shm (bool): If True, use shared memory for file loading.
        set_numa (bool): If True, set NUMA node for optimal memory allocation.
        debug_log (bool): Enable debug logs.
        framework (str): Framework to use for tensor operations, e.g., "pytorch".
        tensor_filter (Optional[Callable[[str], bool]]): If set, read only the
                         tensors for which the predicate is True (see
                         SafeTensorsFileLoader.set_tensor_filter and
                         fastsafetensors.ep_slice.expert_parallel_filter). Must
                         be paired with all_local=True.
        all_local (bool): If True, the loader uses a single-process group so
                         every rank loads its files independently with no
                         cross-rank broadcast. Required when tensor_filter drops
                         tensors that other ranks would otherwise receive via
                         broadcast (e.g. expert-parallel slicing). The EP
                         rank/size for the filter come from the real
                         distributed world, independent of the loader's group.
        max_batch_bytes (Optional[int]): Maximum sub-file chunk span in bytes.
                         Must fit the largest selected tensor; tensors are not split.
        use_chunk_budget_as_allocation_size (bool): Allocate chunks at their
                         planner budget to improve caching-allocator reuse.
                         Requires max_batch_bytes or device_memory_budget.
                         Custom copiers must accept allocation_size as the
                         third set_chunk argument; legacy signatures raise TypeError.
        device_memory_budget (Optional[int]): Budget for resident tensors and
                         transient load buffers, in bytes per rank. Broadcast
                         ranks must pass the same value. Reserve allocator
                         rounding, copier fixed pools, and external memory separately.
        accumulate_resident (bool): Whether yielded tensors remain resident
                         (default True). Set False when copying them into
                         destinations allocated before loading. With True,
                         resident_tensor selects which tensors count as resident.
        resident_tensor (Optional[Callable[[str], bool]]): Identify yielded
                         tensors retained on the device. None counts all tensors.
                         Requires accumulate_resident=True. This only controls
                         accounting; the consumer must relocate and release each
                         non-resident tensor before requesting the next tensor.
                         Under broadcast, it must be a pure function of the name
                         with identical results on every rank.
        overlap_io (bool): Prepare NoGDS / Unified O_DIRECT views during DMA,
                         and wait only for
                         each requested tensor. Default True. Unsupported copiers
                         retain whole-batch waits. False disables this overlap.
        use_fgds (bool): If True, use FGDS (alternative GPU Direct Storage) instead
                        of cuFile GDS. When FGDS is unavailable, falls back to nogds.
        borrowed_tensors (bool): Skip yield clones and return non-owning views.
                         Complete all use, including asynchronous device work,
                         before advancing or closing the iterator. Requires
                         accumulate_resident=False and a single-process loader
                         group (pg=None or all_local=True). Defaults to False,
                         preserving independent outputs and yield-clone budgets.
                         Available through the direct Python API.
        broadcast_run_bytes (int): Maximum bytes per coalesced PyTorch broadcast
                         (default 16 MiB). A larger individual tensor is sent alone.
                         Zero disables coalescing. Identical on every rank.
        broadcast_run_tensors (int): Maximum tensors per coalesced broadcast
                         (default 64). Zero disables coalescing. Identical on every rank.

    The pipeline holds up to 1 chunk buffer per rank for queue_size=-1, otherwise
    queue_size+2. Broadcast receive tensors, yield clones, and copier staging
    memory require additional space. If even serial loading cannot fit the
    memory budget, raises BudgetInfeasibleError (a ValueError subclass exported
    from fastsafetensors).
    To reduce GPU memory consumption, re-accessing tensors that have already been accessed is prohibited.

    Examples:
        >> from fastsafetensors import ParallelLoader
        >> src_files = download(target_dir, "gpt2")
        >> iterator = ParallelLoader(None, src_files, max_concurrent_producers=1, queue_size=0)
        >> for key, tensor in iterator.iterate_weights():
        >>     print(f"Loaded tensor: {key}, shape: {tensor.shape}")
    """

    def __init__(
        self,
        pg: Optional[Any],
        hf_weights_files: List[str],
        max_concurrent_producers: int = 1,
        queue_size: int = 0,  # Changed default to 0 for unbuffered behavior
        use_tqdm_on_load: bool = True,
        device: str = "cpu",
        bbuf_size_kb: int = 16 * 1024,
        max_threads: int = 16,
        nogds: bool = False,
        set_numa: bool = True,
        debug_log: bool = False,
        framework="pytorch",
        tensor_filter: Optional[Callable[[str], bool]] = None,
        all_local: bool = False,
        max_batch_bytes: Optional[int] = None,
        use_chunk_budget_as_allocation_size: bool = False,
        device_memory_budget: Optional[int] = None,
        accumulate_resident: bool = True,
        resident_tensor: Optional[Callable[[str], bool]] = None,
        use_fgds: bool = False,
        broadcast_run_bytes: int = 16 << 20,
        broadcast_run_tensors: int = 64,
        overlap_io: bool = True,
        borrowed_tensors: bool = False,
        **kwargs,
    ):
        """Initialize PipelineParallelLoader with a pre-configured SafeTensorsFileLoader.

        Args:
            pg (Optional[Any]): Process group-like objects for distributed operations.
            hf_weights_files (List[str]): List of safetensors files to load.
            max_concurrent_producers (int): Maximum number of concurrent producer threads.
            queue_size (int): Size of the queue for buffering loaded file batches.
            use_tqdm_on_load (bool): Enable progress bar during loading.
            device (str): Target device for tensor loading.
            bbuf_size_kb (int): Bounce buffer size for file copies in KB.
            max_threads (int): Maximum number of threads for memory copies.
            nogds (bool): If True, turn off GDS and fallback to pread with bounce buffer.
            set_numa (bool): If True, set NUMA node for optimal memory allocation.
            debug_log (bool): Enable debug logs.
            framework (str): Framework to use for tensor operations.
            use_fgds (bool): If True, use FGDS instead of cuFile GDS.
        """
        # all_local: load with a single-process group so each rank reads its
        # files independently (no cross-rank broadcast in get_tensor). This is
        # what makes a per-rank tensor_filter correct -- otherwise get_tensor
        # would broadcast tensors this rank never read.
        loader_pg = SingleGroup() if all_local else pg
        loader = SafeTensorsFileLoader(
            loader_pg,
            device,
            bbuf_size_kb=bbuf_size_kb,
            max_threads=max_threads,
            nogds=nogds,
            disable_cache=True,
            set_numa=set_numa,
            debug_log=debug_log,
            framework=framework,
            use_fgds=use_fgds,
            device_memory_budget=device_memory_budget,
            **kwargs,
        )
        super().__init__(
            loader_pg,
            loader,
            hf_weights_files,
            max_concurrent_producers,
            queue_size,
            use_tqdm_on_load,
            tensor_filter=tensor_filter,
            max_batch_bytes=max_batch_bytes,
            use_chunk_budget_as_allocation_size=(use_chunk_budget_as_allocation_size),
            device_memory_budget=device_memory_budget,
            accumulate_resident=accumulate_resident,
            resident_tensor=resident_tensor,
            broadcast_run_bytes=broadcast_run_bytes,
            broadcast_run_tensors=broadcast_run_tensors,
            overlap_io=overlap_io,
            borrowed_tensors=borrowed_tensors,
            **kwargs,
        )
