# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0

from __future__ import annotations

import collections
import ctypes
import inspect
import operator
import threading
import traceback
from collections.abc import Callable, Iterable
from enum import IntEnum
from typing import Any

import warp as wp
from warp._src.codegen import _TID_MAX_EXTENT, get_full_arg_spec, make_full_qualified_name
from warp._src.context import (
    CudaMemcpyKind,
    _build_kernel_launch_bounds,
    _raise_cuda_launch_error,
    _resolve_launch_block_dim,
    _validate_cluster_launch,
    invoke,
    invoke_cpu_blocks,
)
from mujoco.mjx.third_party.warp._src.jax import get_jax_device
from warp._src.logger import log_warning
from warp._src.types import (
    array_t,
    matches_array_class,
    strides_from_shape,
    type_size_in_bytes,
    type_to_warp,
)

from .xla_ffi import *

# Holders for the custom callbacks to keep them alive.
_FFI_KERNEL_REGISTRY: dict[tuple, FfiKernel] = {}
_FFI_DIFF_KERNEL_REGISTRY: dict[tuple, Callable] = {}
_FFI_CALLABLE_REGISTRY: dict[tuple, FfiCallable] = {}
_FFI_CALLBACK_REGISTRY: dict[str, ctypes.CFUNCTYPE] = {}
_FFI_REGISTRY_LOCK = threading.Lock()

# Lock when XLA invokes callbacks from multiple threads.
_FFI_CALLBACK_LOCK = threading.Lock()

# Sentinel for detecting when per-call kwargs are passed to differentiable wrappers.
_MISSING = object()

JAX_CALLABLE_DEFAULT_GRAPH_CACHE_MAX = 32


def _get_jax():
    import jax  # noqa: PLC0415

    return jax


def check_jax_version():
    jax = _get_jax()
    # check if JAX version supports this
    if jax.__version_info__ < (0, 5, 0):
        msg = (
            "This version of jax_kernel() requires JAX version 0.5.0 or higher, "
            f"but installed JAX version is {jax.__version_info__}. Upgrade JAX to version 0.5.0 or newer."
        )
        raise RuntimeError(msg)


# JAX platform identifiers are case-sensitive and intentionally use different casing.
_FFI_PLATFORM_CPU = "cpu"
_FFI_PLATFORM_CUDA = "CUDA"


def _register_ffi_targets(name, callback):
    """Register one FFI callback for CPU and CUDA without initializing either backend."""
    jax = _get_jax()
    callback_type = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.POINTER(XLA_FFI_CallFrame))
    callback_funcs = {}

    for platform in (_FFI_PLATFORM_CPU, _FFI_PLATFORM_CUDA):

        def platform_callback(call_frame, platform=platform):
            return callback(call_frame, platform)

        callback_func = callback_type(platform_callback)
        callback_address = ctypes.cast(callback_func, ctypes.c_void_p)
        callback_capsule = jax.ffi.pycapsule(callback_address.value)
        jax.ffi.register_ffi_target(name, callback_capsule, platform=platform)
        callback_funcs[platform] = callback_func

    return callback_funcs


def collapse_batch_dims(shape, desired_ndim):
    # roll leading batch dims into one
    while len(shape) > desired_ndim:
        shape = (shape[0] * shape[1], *shape[2:])
    return shape


def compute_batch_size(shape, batch_ndim):
    # compute product of batch dims at front
    batch_size = 1
    for i in range(batch_ndim):
        batch_size *= shape[i]
    return batch_size


class JaxCallableGraphMode(IntEnum):
    """CUDA graph capture modes for :func:`warp.jax_callable`.

    These modes control whether JAX or Warp captures a CUDA graph, and whether
    staging buffers are used when capturing with Warp.
    """

    NONE = 0
    """Disable graph capture. Use when operations are not CUDA-graph compatible (for example, host synchronization)."""
    JAX = 1
    """Let JAX capture the graph so the callable can be used as a subgraph within a larger JAX capture."""
    WARP = 2
    """Let Warp capture the graph and replay it for matching buffer addresses."""
    WARP_STAGED = 3
    """Capture a Warp graph using staging buffers and insert memcpy nodes inside the graph."""
    WARP_STAGED_EX = 4
    """Capture a Warp graph using staging buffers and perform memcpy outside the graph."""


GraphMode = JaxCallableGraphMode


class JaxModulePreloadMode(IntEnum):
    """Module preload modes for JAX interop callables."""

    NONE = 0  # don't preload modules
    CURRENT_DEVICE = 1  # preload on currently active device
    ALL_DEVICES = 2  # preload on all supported devices


ModulePreloadMode = JaxModulePreloadMode


def _get_ffi_block_dim(device, block_dim=None):
    """Resolve the FFI block dimension for ``device``."""
    return _resolve_launch_block_dim(device, block_dim)


def _load_ffi_module(module, device, block_dim=None):
    module_exec = module.load(device, _get_ffi_block_dim(device, block_dim))
    if module_exec is None:
        raise RuntimeError(
            f"Failed to load Warp module '{module.name}' on device '{device}' after a previous build failure"
        )
    return module_exec


def _validate_ffi_kernel_launch_bounds(dim, kernel, block_dim=None) -> None:
    """Validate platform-neutral tracing against every possible FFI target."""
    cuda_block_dim = 256 if block_dim is None else block_dim
    kernel.module.get_module_hash(cuda_block_dim)
    _build_kernel_launch_bounds(dim, kernel, cuda_block_dim)

    tid_extents = dim[: kernel.adj.kernel_dim]
    if any(extent > _TID_MAX_EXTENT for extent in tid_extents) and cuda_block_dim != 1:
        _build_kernel_launch_bounds(dim, kernel, 1)


def _preload_ffi_module(module, mode, block_dim=None):
    if mode == JaxModulePreloadMode.NONE:
        return

    if mode == JaxModulePreloadMode.CURRENT_DEVICE:
        jax_device = get_jax_device()
        try:
            device = wp.device_from_jax(jax_device)
        except (IndexError, RuntimeError):
            return
        _load_ffi_module(module, device, block_dim)
        return

    if mode == JaxModulePreloadMode.ALL_DEVICES:
        jax = _get_jax()
        devices = []
        mapped_device_ids = set()
        for backend in ("cpu", "cuda"):
            try:
                jax_devices = jax.local_devices(backend=backend)
            except RuntimeError:
                continue

            for jax_device in jax_devices:
                try:
                    device = wp.device_from_jax(jax_device)
                except (IndexError, RuntimeError):
                    continue

                device_id = id(device)
                if device_id in mapped_device_ids:
                    continue
                mapped_device_ids.add(device_id)
                devices.append(device)

        for device in devices:
            _load_ffi_module(module, device, block_dim)
        return

    raise ValueError(f"Unsupported JAX module preload mode '{mode}'")


class FfiArg:
    def __init__(self, name, type, in_out=False):
        self.name = name
        self.type = type
        self.in_out = in_out
        self.is_array = matches_array_class(type, wp.array)

        if self.is_array:
            if hasattr(type.dtype, "_wp_scalar_type_"):
                self.dtype_shape = type.dtype._shape_
                self.dtype_ndim = len(self.dtype_shape)
                self.jax_scalar_type = wp.dtype_to_jax(type.dtype._wp_scalar_type_)
                self.jax_ndim = type.ndim + self.dtype_ndim
            elif type.dtype in wp._src.types.value_types:
                self.dtype_ndim = 0
                self.dtype_shape = ()
                self.jax_scalar_type = wp.dtype_to_jax(type.dtype)
                self.jax_ndim = type.ndim
            else:
                raise TypeError(f"Invalid data type for array argument '{name}', expected scalar, vector, or matrix")
            self.warp_ndim = type.ndim
        elif type in wp._src.types.value_types:
            self.dtype_ndim = 0
            self.dtype_shape = ()
            self.jax_scalar_type = wp.dtype_to_jax(type_to_warp(type))
            self.jax_ndim = 0
            self.warp_ndim = 0
        else:
            raise TypeError(f"Invalid type for argument '{name}', expected array or scalar, got {type}")


class FfiLaunchDesc:
    def __init__(self, static_inputs, launch_dims):
        self.static_inputs = static_inputs
        self.launch_dims = launch_dims


class FfiKernel:
    def __init__(
        self,
        kernel,
        num_outputs,
        vmap_method,
        launch_dims,
        block_dim,
        output_dims,
        in_out_argnames,
        module_preload_mode,
        has_side_effect=False,
    ):
        self.kernel = kernel
        self.name = generate_unique_name(kernel.func)
        self.num_outputs = num_outputs
        self.vmap_method = vmap_method
        self.launch_dims = launch_dims
        self.block_dim = block_dim
        self.output_dims = output_dims
        self.module_preload_mode = module_preload_mode
        self.has_side_effect = has_side_effect
        self.first_array_arg = None
        self.launch_id = 0
        self.launch_descriptors = {}

        in_out_argnames_list = in_out_argnames or []
        in_out_argnames = set(in_out_argnames_list)
        if len(in_out_argnames_list) != len(in_out_argnames):
            raise ValueError("in_out_argnames must not contain duplicate names")

        self.num_kernel_args = len(kernel.adj.args)
        self.num_in_out = len(in_out_argnames)
        self.num_inputs = self.num_kernel_args - num_outputs + self.num_in_out
        if self.num_outputs < 1:
            raise ValueError("At least one output is required")
        if self.num_outputs > self.num_kernel_args:
            raise ValueError("Number of outputs cannot be greater than the number of kernel arguments")
        if self.num_outputs < self.num_in_out:
            raise ValueError("Number of outputs cannot be smaller than the number of in_out_argnames")

        # process input args
        self.input_args = []
        for i in range(self.num_inputs):
            arg_name = kernel.adj.args[i].label
            arg = FfiArg(arg_name, kernel.adj.args[i].type, arg_name in in_out_argnames)
            if arg_name in in_out_argnames:
                in_out_argnames.remove(arg_name)
            if arg.is_array:
                # keep track of the first input array argument
                if self.first_array_arg is None:
                    self.first_array_arg = i
            self.input_args.append(arg)

        # process output args
        self.output_args = []
        for i in range(self.num_inputs, self.num_kernel_args):
            arg_name = kernel.adj.args[i].label
            if arg_name in in_out_argnames:
                raise ValueError(
                    f"Expected an output-only argument for argument {arg_name}."
                    " in_out arguments should be placed before output-only arguments."
                )
            arg = FfiArg(arg_name, kernel.adj.args[i].type, False)
            if not arg.is_array:
                raise TypeError("All output arguments must be arrays")
            self.output_args.append(arg)

        if in_out_argnames:
            raise ValueError(f"in_out_argnames: '{in_out_argnames}' did not match any function argument names.")

        # Build input output aliases.
        out_id = 0
        input_output_aliases = {}
        for in_id, arg in enumerate(self.input_args):
            if not arg.in_out:
                continue
            input_output_aliases[in_id] = out_id
            out_id += 1
        self.input_output_aliases = input_output_aliases

        # register the callback
        self.callback_funcs = _register_ffi_targets(self.name, self.ffi_callback)

    def __call__(self, *args, output_dims=None, launch_dims=None, vmap_method=None):
        jax = _get_jax()
        num_inputs = len(args)
        if num_inputs != self.num_inputs:
            raise ValueError(f"Expected {self.num_inputs} inputs, but got {num_inputs}")

        # default argument fallback
        if launch_dims is None:
            launch_dims = self.launch_dims
        if output_dims is None:
            output_dims = self.output_dims
        if vmap_method is None:
            vmap_method = self.vmap_method

        # process inputs
        array_input_values = []
        in_out_type_specs = []
        static_inputs = {}
        for i in range(num_inputs):
            input_arg = self.input_args[i]
            input_value = args[i]
            if input_arg.is_array:
                # check dtype
                if input_value.dtype != input_arg.jax_scalar_type:
                    raise TypeError(
                        f"Invalid data type for array argument '{input_arg.name}', expected {input_arg.jax_scalar_type}, got {input_value.dtype}"
                    )
                # check ndim
                if input_value.ndim != input_arg.jax_ndim:
                    raise TypeError(
                        f"Invalid dimensionality for array argument '{input_arg.name}', expected {input_arg.jax_ndim} dimensions, got {input_value.ndim}"
                    )
                # check inner dims
                for d in range(input_arg.dtype_ndim):
                    if input_value.shape[input_arg.type.ndim + d] != input_arg.dtype_shape[d]:
                        raise TypeError(
                            f"Invalid inner dimensions for array argument '{input_arg.name}', expected {input_arg.dtype_shape}, got {input_value.shape[-input_arg.dtype_ndim :]}"
                        )
                array_input_values.append(input_value)
            else:
                # make sure scalar is not a traced variable, should be static
                if isinstance(input_value, jax.core.Tracer):
                    raise ValueError(f"Argument '{input_arg.name}' must be a static value")
                # stash the value to be retrieved by callback
                static_inputs[input_arg.name] = input_arg.type(input_value)

            # Save in-out output types until metadata from every input is known.
            if input_arg.in_out:
                in_out_type_specs.append((input_arg, input_value.shape))

        output_type_metadata = get_jax_output_type_metadata(array_input_values)
        out_types = [
            get_jax_output_type(input_arg, dims, output_type_metadata) for input_arg, dims in in_out_type_specs
        ]

        # launch dimensions
        infer_launch_dims = launch_dims is None
        if infer_launch_dims:
            # use the shape of the first input array
            if self.first_array_arg is not None:
                launch_dims = get_warp_shape(self.input_args[self.first_array_arg], args[self.first_array_arg].shape)
            else:
                raise RuntimeError("Failed to determine launch dimensions")
        elif isinstance(launch_dims, int):
            launch_dims = (launch_dims,)
        else:
            launch_dims = tuple(launch_dims)

        # Tracing is platform-neutral even when lowering later targets a specific
        # device. Validate oversized launches against both supported target variants
        # before JAX constructs output buffer types.
        _validate_ffi_kernel_launch_bounds(launch_dims, self.kernel, self.block_dim)

        # output shapes
        if isinstance(output_dims, dict):
            # assume a dictionary of shapes keyed on argument name
            for output_arg in self.output_args:
                dims = output_dims.get(output_arg.name)
                if dims is None:
                    raise ValueError(f"Missing output dimensions for argument '{output_arg.name}'")
                out_types.append(get_jax_output_type(output_arg, dims, output_type_metadata))
        else:
            if output_dims is None:
                # use launch dimensions
                output_dims = launch_dims
            elif isinstance(output_dims, int):
                output_dims = (output_dims,)
            # assume same dimensions for all outputs
            for output_arg in self.output_args:
                out_types.append(get_jax_output_type(output_arg, output_dims, output_type_metadata))

        call = jax.ffi.ffi_call(
            self.name,
            out_types,
            vmap_method=vmap_method,
            input_output_aliases=self.input_output_aliases,
            has_side_effect=self.has_side_effect,
        )

        _preload_ffi_module(self.kernel.module, self.module_preload_mode, self.block_dim)

        # save launch data to be retrieved by callback
        launch_id = self.launch_id
        self.launch_descriptors[launch_id] = FfiLaunchDesc(
            static_inputs, launch_dims if not infer_launch_dims else None
        )
        self.launch_id += 1

        return call(*args, launch_id=launch_id)

    def ffi_callback(self, call_frame, platform):
        try:
            # On the first call, XLA runtime will query the API version and traits
            # metadata using the |extension| field. Let us respond to that query
            # if the metadata extension is present.
            extension = call_frame.contents.extension_start
            if extension:
                # Try to set the version metadata.
                if extension.contents.type == XLA_FFI_Extension_Type.Metadata:
                    metadata_ext = ctypes.cast(extension, ctypes.POINTER(XLA_FFI_Metadata_Extension))
                    metadata_ext.contents.metadata.contents.api_version.major_version = 0
                    metadata_ext.contents.metadata.contents.api_version.minor_version = 1
                    if platform == _FFI_PLATFORM_CUDA:
                        # Turn on CUDA graphs for this handler.
                        metadata_ext.contents.metadata.contents.traits = (
                            XLA_FFI_Handler_TraitsBits.COMMAND_BUFFER_COMPATIBLE
                        )
                    return None

            # Lock is required to prevent race conditions when callback is invoked
            # from multiple threads, like with pmap.
            with _FFI_CALLBACK_LOCK:
                # retrieve call info
                attrs = decode_attrs(call_frame.contents.attrs)
                launch_id = int(attrs["launch_id"])
                launch_desc = self.launch_descriptors[launch_id]

                num_inputs = call_frame.contents.args.size
                inputs = ctypes.cast(call_frame.contents.args.args, ctypes.POINTER(ctypes.POINTER(XLA_FFI_Buffer)))

                num_outputs = call_frame.contents.rets.size
                outputs = ctypes.cast(call_frame.contents.rets.rets, ctypes.POINTER(ctypes.POINTER(XLA_FFI_Buffer)))

                if num_inputs != self.num_inputs:
                    return create_invalid_argument_ffi_error(
                        call_frame.contents.api,
                        f"Expected {self.num_inputs} JAX FFI input buffers, got {num_inputs}",
                    )
                if num_outputs != self.num_outputs:
                    return create_invalid_argument_ffi_error(
                        call_frame.contents.api,
                        f"Expected {self.num_outputs} JAX FFI output buffers, got {num_outputs}",
                    )

                arg_refs = []
                batch_size = None

                # input and in-out args
                for i, input_arg in enumerate(self.input_args):
                    if input_arg.is_array:
                        buffer = inputs[i].contents
                        shape = buffer.dims[: buffer.rank - input_arg.dtype_ndim]
                        if buffer.rank > input_arg.jax_ndim:
                            # handle batching
                            shape = collapse_batch_dims(shape, input_arg.type.ndim)
                            if batch_size is None:
                                batch_size = compute_batch_size(
                                    buffer.dims[: buffer.rank], buffer.rank - input_arg.jax_ndim
                                )
                        strides = strides_from_shape(shape, input_arg.type.dtype)
                        arg = array_t(buffer.data, 0, input_arg.type.ndim, shape, strides)
                        arg_refs.append(arg)  # keep a reference
                    else:
                        # scalar argument, get stashed value
                        value = launch_desc.static_inputs[input_arg.name]
                        arg = input_arg.type._type_(value)
                        arg_refs.append(arg)  # keep a reference

                # pure output args (skip in-out FFI buffers)
                for i, output_arg in enumerate(self.output_args):
                    buffer = outputs[i + self.num_in_out].contents
                    shape = buffer.dims[: buffer.rank - output_arg.dtype_ndim]
                    if buffer.rank > output_arg.jax_ndim:
                        # handle batching
                        shape = collapse_batch_dims(shape, output_arg.type.ndim)
                        if batch_size is None:
                            batch_size = compute_batch_size(
                                buffer.dims[: buffer.rank], buffer.rank - output_arg.jax_ndim
                            )
                    strides = strides_from_shape(shape, output_arg.type.dtype)
                    arg = array_t(buffer.data, 0, output_arg.type.ndim, shape, strides)
                    arg_refs.append(arg)  # keep a reference

                if platform == _FFI_PLATFORM_CPU:
                    if not wp.is_cpu_available():
                        return create_ffi_error(
                            call_frame.contents.api,
                            XLA_FFI_Error_Code.FAILED_PRECONDITION,
                            "This Warp build does not include CPU support",
                        )
                    device = wp.get_device("cpu")
                    stream = None
                elif platform == _FFI_PLATFORM_CUDA:
                    if wp._src.context.runtime is None:
                        wp.init()
                    if not wp._src.context.runtime.is_cuda_enabled:
                        return create_ffi_error(
                            call_frame.contents.api,
                            XLA_FFI_Error_Code.FAILED_PRECONDITION,
                            "This Warp build does not include CUDA support",
                        )

                    device = wp.get_cuda_device(get_device_ordinal_from_callframe(call_frame.contents))
                    stream = get_stream_from_callframe(call_frame.contents)
                else:
                    return create_invalid_argument_ffi_error(
                        call_frame.contents.api,
                        f"Unsupported JAX FFI platform '{platform}'",
                    )

                # Preloading is best-effort, so the callback's actual device must
                # load the module before reading code-generation metadata.
                module_exec = _load_ffi_module(self.kernel.module, device, self.block_dim)
                block_dim = module_exec.block_dim

                # determine launch bounds
                if launch_desc.launch_dims is None:
                    # infer launch dims from argument shape, works with vmap
                    arr = arg_refs[self.first_array_arg]
                    launch_dims = arr.shape[: arr.ndim]
                else:
                    # use specified launch dims
                    launch_dims = launch_desc.launch_dims
                    if batch_size is not None:
                        # roll batch size into the first launch dimension
                        launch_dims = (batch_size * launch_dims[0], *launch_dims[1:])

                # Revalidate here because vmap can grow an extent visible through wp.tid() at runtime.
                launch_bounds = _build_kernel_launch_bounds(launch_dims, self.kernel, block_dim)

                if platform == _FFI_PLATFORM_CPU:
                    hooks = module_exec.get_kernel_hooks(self.kernel)
                    if hooks.forward is None:
                        raise RuntimeError("Failed to find CPU kernel entry point")
                    params = [launch_bounds, *arg_refs]
                    if block_dim > 1:
                        invoke_cpu_blocks(self.kernel, hooks, params, adjoint=False)
                    else:
                        invoke(self.kernel, hooks, params, adjoint=False)
                    return None

                kernel_params = (ctypes.c_void_p * (1 + self.num_kernel_args))(
                    ctypes.addressof(launch_bounds),
                    *(ctypes.addressof(arg) for arg in arg_refs),
                )

                # get kernel hooks
                hooks = module_exec.get_kernel_hooks(self.kernel)
                if hooks.forward is None:
                    raise RuntimeError("Failed to find CUDA kernel entry point")

                # reject non-cluster-aligned grids with a clear Python error instead
                # of a cryptic native CUDA error (configured block_dim, max_blocks=0 below)
                _validate_cluster_launch(hooks.cluster_dim, launch_bounds.size, block_dim, 0)

                # launch the kernel (cluster_dim is cached on the hooks at load time)
                if wp._src.context.runtime.core.wp_cuda_launch_kernel(
                    device.context,
                    hooks.forward,
                    launch_bounds.size,
                    0,
                    block_dim,
                    int(self.kernel.grid_stride),
                    hooks.cluster_dim,
                    hooks.forward_smem_bytes,
                    kernel_params,
                    stream,
                    None,  # apic_info
                ):
                    _raise_cuda_launch_error(self.kernel, device, hooks, False)

        except Exception as e:
            print(traceback.format_exc())
            return create_ffi_error(
                call_frame.contents.api, XLA_FFI_Error_Code.UNKNOWN, f"FFI callback error: {type(e).__name__}: {e}"
            )


class FfiCallDesc:
    def __init__(self, static_inputs):
        self.static_inputs = static_inputs
        self.capture = None

        # staging arrays
        self.input_staging_arrays = None  # inputs copied on each call
        self.output_staging_arrays = None  # outputs copied on each call
        self.static_staging_arrays = None  # arrays copied only once

        # input memcpy info
        self.input_memcpy_count = 0
        self.input_memcpy_indices = None  # indices in FFI input buffers
        self.input_memcpy_srcs = None
        self.input_memcpy_dsts = None
        self.input_memcpy_sizes = None
        self.input_memcpy_kinds = None

        # output memcpy info
        self.output_memcpy_count = 0
        self.output_memcpy_indices = None  # indices in FFI output buffers
        self.output_memcpy_srcs = None
        self.output_memcpy_dsts = None
        self.output_memcpy_sizes = None
        self.output_memcpy_kinds = None


class FfiCallable:
    def __init__(
        self,
        func,
        num_outputs,
        graph_mode,
        vmap_method,
        output_dims,
        in_out_argnames,
        stage_in_argnames,
        stage_out_argnames,
        graph_cache_max,
        module_preload_mode,
        has_side_effect=False,
    ):
        self.func = func
        self.name = generate_unique_name(func)
        self.num_outputs = num_outputs
        self.vmap_method = vmap_method
        self.graph_mode = graph_mode
        self.output_dims = output_dims
        self.module_preload_mode = module_preload_mode
        self.has_side_effect = has_side_effect
        self.first_array_arg = None
        self.call_id = 0
        self.call_descriptors = {}

        # LRU cache of graphs captured by Warp
        self._graph_cache_max = graph_cache_max
        self.captures = collections.OrderedDict()

        # Selective staging: None means copy all, else copy only specified
        self.stage_in_argnames = set(stage_in_argnames) if stage_in_argnames else None
        self.stage_out_argnames = set(stage_out_argnames) if stage_out_argnames else None

        in_out_argnames_list = in_out_argnames or []
        in_out_argnames = set(in_out_argnames_list)
        if len(in_out_argnames_list) != len(in_out_argnames):
            raise ValueError("in_out_argnames must not contain duplicate names")

        # get arguments and annotations
        argspec = get_full_arg_spec(func)

        num_args = len(argspec.args)
        self.num_in_out = len(in_out_argnames)
        self.num_inputs = num_args - num_outputs + self.num_in_out
        if self.num_outputs < 1:
            raise ValueError("At least one output is required")
        if self.num_outputs > num_args:
            raise ValueError("Number of outputs cannot be greater than the number of kernel arguments")
        if self.num_outputs < self.num_in_out:
            raise ValueError("Number of outputs cannot be smaller than the number of in_out_argnames")

        if len(argspec.annotations) < num_args:
            raise RuntimeError(f"Incomplete argument annotations on function {self.name}")

        # parse type annotations
        self.args = []
        self.arg_input_indices = [None] * num_args  # index in FFI input buffers
        self.arg_output_indices = [None] * num_args  # index in FFI output buffers
        arg_idx = 0
        output_idx = 0
        for arg_name, arg_type in argspec.annotations.items():
            if arg_name == "return":
                if arg_type is not None:
                    raise TypeError("Function must not return a value")
                continue
            else:
                arg = FfiArg(arg_name, arg_type, arg_name in in_out_argnames)
                if arg.in_out:
                    in_out_argnames.remove(arg_name)
                if arg.is_array:
                    if arg_idx < self.num_inputs and self.first_array_arg is None:
                        self.first_array_arg = arg_idx
                self.args.append(arg)

            if arg.in_out and arg_idx >= self.num_inputs:
                raise ValueError(
                    f"Expected an output-only argument for argument {arg_name}."
                    " in_out arguments should be placed before output-only arguments."
                )

            # map each argument index to FFI input/output buffer indices
            # (including in-out arguments)
            if arg_idx < self.num_inputs:
                self.arg_input_indices[arg_idx] = arg_idx
            if arg_idx >= self.num_inputs or arg.in_out:
                self.arg_output_indices[arg_idx] = output_idx
                output_idx += 1

            arg_idx += 1

        if in_out_argnames:
            raise ValueError(f"in_out_argnames: '{in_out_argnames}' did not match any function argument names.")

        self.input_args = self.args[: self.num_inputs]  # includes in-out args
        self.output_args = self.args[self.num_inputs :]  # pure output args

        # Buffer indices for array arguments in callback.
        # In-out buffers are the same pointers in the XLA call frame,
        # so we only include them for inputs and skip them for outputs.
        self.array_input_indices = [i for i, arg in enumerate(self.input_args) if arg.is_array]
        self.array_output_indices = list(range(self.num_in_out, self.num_outputs))

        # Build input output aliases.
        out_id = 0
        input_output_aliases = {}
        for in_id, arg in enumerate(self.input_args):
            if not arg.in_out:
                continue
            input_output_aliases[in_id] = out_id
            out_id += 1
        self.input_output_aliases = input_output_aliases

        # register the callback
        self.callback_funcs = _register_ffi_targets(self.name, self.ffi_callback)

    def __call__(self, *args, output_dims=None, vmap_method=None):
        jax = _get_jax()
        num_inputs = len(args)
        if num_inputs != self.num_inputs:
            input_names = ", ".join(arg.name for arg in self.input_args)
            s = "" if self.num_inputs == 1 else "s"
            raise ValueError(f"Expected {self.num_inputs} input{s} ({input_names}), but got {num_inputs}")

        # default argument fallback
        if vmap_method is None:
            vmap_method = self.vmap_method
        if output_dims is None:
            output_dims = self.output_dims

        # process inputs
        array_input_values = []
        in_out_type_specs = []
        static_inputs = {}
        for i in range(num_inputs):
            input_arg = self.input_args[i]
            input_value = args[i]
            if input_arg.is_array:
                # check dtype
                if input_value.dtype != input_arg.jax_scalar_type:
                    raise TypeError(
                        f"Invalid data type for array argument '{input_arg.name}', expected {input_arg.jax_scalar_type}, got {input_value.dtype}"
                    )
                # check ndim
                if input_value.ndim != input_arg.jax_ndim:
                    raise TypeError(
                        f"Invalid dimensionality for array argument '{input_arg.name}', expected {input_arg.jax_ndim} dimensions, got {input_value.ndim}"
                    )
                # check inner dims
                for d in range(input_arg.dtype_ndim):
                    if input_value.shape[input_arg.type.ndim + d] != input_arg.dtype_shape[d]:
                        raise TypeError(
                            f"Invalid inner dimensions for array argument '{input_arg.name}', expected {input_arg.dtype_shape}, got {input_value.shape[-input_arg.dtype_ndim :]}"
                        )
                array_input_values.append(input_value)
            else:
                # make sure scalar is not a traced variable, should be static
                if isinstance(input_value, jax.core.Tracer):
                    raise ValueError(f"Argument '{input_arg.name}' must be a static value")
                # stash the value to be retrieved by callback
                static_inputs[input_arg.name] = input_arg.type(input_value)

            # Save in-out output types until metadata from every input is known.
            if input_arg.in_out:
                in_out_type_specs.append((input_arg, input_value.shape))

        output_type_metadata = get_jax_output_type_metadata(array_input_values)
        out_types = [
            get_jax_output_type(input_arg, dims, output_type_metadata) for input_arg, dims in in_out_type_specs
        ]

        # output shapes
        if isinstance(output_dims, dict):
            # assume a dictionary of shapes keyed on argument name
            for output_arg in self.output_args:
                dims = output_dims.get(output_arg.name)
                if dims is None:
                    raise ValueError(f"Missing output dimensions for argument '{output_arg.name}'")
                out_types.append(get_jax_output_type(output_arg, dims, output_type_metadata))
        else:
            if output_dims is None:
                if self.first_array_arg is None:
                    raise ValueError("Unable to determine output dimensions")
                output_dims = get_warp_shape(self.input_args[self.first_array_arg], args[self.first_array_arg].shape)
            elif isinstance(output_dims, int):
                output_dims = (output_dims,)
            # assume same dimensions for all outputs
            for output_arg in self.output_args:
                out_types.append(get_jax_output_type(output_arg, output_dims, output_type_metadata))

        call = jax.ffi.ffi_call(
            self.name,
            out_types,
            vmap_method=vmap_method,
            input_output_aliases=self.input_output_aliases,
            has_side_effect=self.has_side_effect,
        )

        # NOTE: if the target function uses kernels from different modules, they will not be loaded here
        module = wp.get_module(self.func.__module__)
        _preload_ffi_module(module, self.module_preload_mode)

        # save call data to be retrieved by callback
        call_id = self.call_id
        self.call_descriptors[call_id] = FfiCallDesc(static_inputs)
        self.call_id += 1
        return call(*args, call_id=call_id)

    def _build_arg_list(self, inputs, outputs, call_desc, device):
        arg_list = []

        for i, arg in enumerate(self.input_args):
            if arg.is_array:
                buffer = inputs[i].contents
                shape = collapse_batch_dims(buffer.dims[: buffer.rank - arg.dtype_ndim], arg.type.ndim)
                arg_list.append(wp.array(ptr=buffer.data, dtype=arg.type.dtype, shape=shape, device=device))
            else:
                arg_list.append(call_desc.static_inputs[arg.name])

        for i, arg in enumerate(self.output_args):
            buffer = outputs[i + self.num_in_out].contents
            shape = collapse_batch_dims(buffer.dims[: buffer.rank - arg.dtype_ndim], arg.type.ndim)
            arg_list.append(wp.array(ptr=buffer.data, dtype=arg.type.dtype, shape=shape, device=device))

        return arg_list

    def ffi_callback(self, call_frame, platform):
        try:
            # On the first call, XLA runtime will query the API version and traits
            # metadata using the |extension| field. Let us respond to that query
            # if the metadata extension is present.
            extension = call_frame.contents.extension_start
            if extension:
                # Try to set the version metadata.
                if extension.contents.type == XLA_FFI_Extension_Type.Metadata:
                    metadata_ext = ctypes.cast(extension, ctypes.POINTER(XLA_FFI_Metadata_Extension))
                    metadata_ext.contents.metadata.contents.api_version.major_version = 0
                    metadata_ext.contents.metadata.contents.api_version.minor_version = 1
                    # Turn on CUDA graphs for this handler.
                    if platform == _FFI_PLATFORM_CUDA and self.graph_mode is JaxCallableGraphMode.JAX:
                        metadata_ext.contents.metadata.contents.traits = (
                            XLA_FFI_Handler_TraitsBits.COMMAND_BUFFER_COMPATIBLE
                        )
                    return None

            # Lock is required to prevent race conditions when callback is invoked
            # from multiple threads, like with pmap.
            with _FFI_CALLBACK_LOCK:
                # retrieve call info
                # NOTE: this assumes that there's only one attribute - call_id (int64).
                # A more general but slower approach is this:
                #   attrs = decode_attrs(call_frame.contents.attrs)
                #   call_id = int(attrs["call_id"])
                attr = ctypes.cast(call_frame.contents.attrs.attrs[0], ctypes.POINTER(XLA_FFI_Scalar)).contents
                call_id = ctypes.cast(attr.value, ctypes.POINTER(ctypes.c_int64)).contents.value
                call_desc = self.call_descriptors[call_id]

                num_inputs = call_frame.contents.args.size
                inputs = ctypes.cast(call_frame.contents.args.args, ctypes.POINTER(ctypes.POINTER(XLA_FFI_Buffer)))

                num_outputs = call_frame.contents.rets.size
                outputs = ctypes.cast(call_frame.contents.rets.rets, ctypes.POINTER(ctypes.POINTER(XLA_FFI_Buffer)))

                if num_inputs != self.num_inputs:
                    return create_invalid_argument_ffi_error(
                        call_frame.contents.api,
                        f"Expected {self.num_inputs} JAX FFI input buffers, got {num_inputs}",
                    )
                if num_outputs != self.num_outputs:
                    return create_invalid_argument_ffi_error(
                        call_frame.contents.api,
                        f"Expected {self.num_outputs} JAX FFI output buffers, got {num_outputs}",
                    )

                if platform == _FFI_PLATFORM_CPU:
                    if self.graph_mode not in (JaxCallableGraphMode.NONE, JaxCallableGraphMode.JAX):
                        return create_invalid_argument_ffi_error(
                            call_frame.contents.api,
                            f"JaxCallableGraphMode.{self.graph_mode.name} is not supported for JAX CPU FFI calls",
                        )

                    if not wp.is_cpu_available():
                        return create_ffi_error(
                            call_frame.contents.api,
                            XLA_FFI_Error_Code.FAILED_PRECONDITION,
                            "This Warp build does not include CPU support",
                        )
                    device = wp.get_device("cpu")
                    module = wp.get_module(self.func.__module__)
                    _load_ffi_module(module, device)
                    arg_list = self._build_arg_list(inputs, outputs, call_desc, device)
                    with wp.ScopedDevice(device):
                        self.func(*arg_list)
                    return None

                if platform != _FFI_PLATFORM_CUDA:
                    return create_invalid_argument_ffi_error(
                        call_frame.contents.api,
                        f"Unsupported JAX FFI platform '{platform}'",
                    )

                if wp._src.context.runtime is None:
                    wp.init()
                if not wp._src.context.runtime.is_cuda_enabled:
                    return create_ffi_error(
                        call_frame.contents.api,
                        XLA_FFI_Error_Code.FAILED_PRECONDITION,
                        "This Warp build does not include CUDA support",
                    )

                cuda_stream = get_stream_from_callframe(call_frame.contents)
                device_ordinal = get_device_ordinal_from_callframe(call_frame.contents)
                device = wp.get_cuda_device(device_ordinal)

                if self.graph_mode == JaxCallableGraphMode.WARP:
                    # check if we already captured an identical call
                    ip = [inputs[i].contents.data for i in self.array_input_indices]
                    op = [outputs[i].contents.data for i in self.array_output_indices]
                    capture_key = hash((device_ordinal, call_id, *ip, *op))
                    capture = self.captures.get(capture_key)

                    # launch existing graph
                    if capture is not None:
                        graph_exec = capture.graph.graph_exec
                        if not wp._src.context.runtime.core.wp_cuda_graph_launch(graph_exec, cuda_stream):
                            raise RuntimeError(f"Graph launch error: {wp._src.context.runtime.get_error_string()}")

                        # update the graph cache to keep recently used graphs alive
                        self.captures.move_to_end(capture_key)

                        # early out
                        return

                elif self.graph_mode == JaxCallableGraphMode.WARP_STAGED_EX:
                    if call_desc.capture is not None:
                        graph_exec = call_desc.capture.graph.graph_exec
                        context = call_desc.capture.graph.device.context
                        wp_memcpy_batch = wp._src.context.runtime.core.wp_memcpy_batch

                        # set source pointers for input memcopies
                        for memcpy_idx, input_idx in enumerate(call_desc.input_memcpy_indices):
                            call_desc.input_memcpy_srcs[memcpy_idx] = inputs[input_idx].contents.data

                        # copy inputs to staging buffers
                        if not wp_memcpy_batch(
                            context,
                            call_desc.input_memcpy_dsts,
                            call_desc.input_memcpy_srcs,
                            call_desc.input_memcpy_sizes,
                            call_desc.input_memcpy_count,
                            cuda_stream,
                        ):
                            raise RuntimeError(
                                f"Failed to run input memcpy batch: {wp._src.context.runtime.get_error_string()}"
                            )

                        # launch existing graph
                        if not wp._src.context.runtime.core.wp_cuda_graph_launch(graph_exec, cuda_stream):
                            raise RuntimeError(f"Graph launch error: {wp._src.context.runtime.get_error_string()}")

                        # set destination pointers for output memcopies
                        for memcpy_idx, output_idx in enumerate(call_desc.output_memcpy_indices):
                            call_desc.output_memcpy_dsts[memcpy_idx] = outputs[output_idx].contents.data

                        # copy the outputs from staging buffers
                        if not wp_memcpy_batch(
                            context,
                            call_desc.output_memcpy_dsts,
                            call_desc.output_memcpy_srcs,
                            call_desc.output_memcpy_sizes,
                            call_desc.output_memcpy_count,
                            cuda_stream,
                        ):
                            raise RuntimeError(
                                f"Failed to run output memcpy batch: {wp._src.context.runtime.get_error_string()}"
                            )

                        # early out
                        return

                elif self.graph_mode == JaxCallableGraphMode.WARP_STAGED:
                    if call_desc.capture is not None:
                        graph_exec = call_desc.capture.graph.graph_exec

                        # set source pointers for input memcpy nodes
                        memcpy_idx = 0
                        for input_idx in call_desc.input_memcpy_indices:
                            call_desc.memcpy_srcs[memcpy_idx] = inputs[input_idx].contents.data
                            memcpy_idx += 1

                        # set destination pointers for output memcpy nodes
                        for output_idx in call_desc.output_memcpy_indices:
                            call_desc.memcpy_dsts[memcpy_idx] = outputs[output_idx].contents.data
                            memcpy_idx += 1

                        # update all memcpy nodes
                        if not wp._src.context.runtime.core.wp_cuda_graph_update_memcpy_batch(
                            graph_exec,
                            call_desc.memcpy_nodes,
                            call_desc.memcpy_dsts,
                            call_desc.memcpy_srcs,
                            call_desc.memcpy_sizes,
                            call_desc.memcpy_kinds,
                            len(call_desc.memcpy_nodes),
                        ):
                            raise RuntimeError(
                                f"Failed to update graph memcpy batch: {wp._src.context.runtime.get_error_string()}"
                            )

                        # launch existing graph
                        if not wp._src.context.runtime.core.wp_cuda_graph_launch(graph_exec, cuda_stream):
                            raise RuntimeError(f"Graph launch error: {wp._src.context.runtime.get_error_string()}")

                        # early out
                        return

                _load_ffi_module(wp.get_module(self.func.__module__), device)
                stream = wp.Stream(device, cuda_stream=cuda_stream)

                arg_list = self._build_arg_list(inputs, outputs, call_desc, device)

                # call the Python function with reconstructed arguments
                with wp.ScopedStream(stream, sync_enter=False):
                    if stream.is_capturing:
                        # capturing with JAX
                        with wp.ScopedCapture(external=True) as capture:
                            self.func(*arg_list)

                        # keep a reference to the capture object to prevent required modules getting unloaded
                        call_desc.capture = capture

                    elif self.graph_mode == JaxCallableGraphMode.WARP:
                        # capturing with WARP
                        with wp.ScopedCapture() as capture:
                            self.func(*arg_list)
                        wp.capture_launch(capture.graph)

                        # keep a reference to the capture object and reuse it with same buffers
                        self.captures[capture_key] = capture

                        # respect the cache size limit if specified
                        if self._graph_cache_max is not None and len(self.captures) > self._graph_cache_max:
                            self.captures.popitem(last=False)

                    elif self.graph_mode == JaxCallableGraphMode.WARP_STAGED_EX:
                        # capturing with WARP using staging buffers and memcopies done outside of the graph
                        wp_memcpy_batch = wp._src.context.runtime.core.wp_memcpy_batch

                        # prepare staging arrays and memcpy info
                        self._prepare_staging(arg_list, call_desc)

                        # copy inputs to staging arrays (including in-out arrays)
                        if not wp_memcpy_batch(
                            device.context,
                            call_desc.input_memcpy_dsts,
                            call_desc.input_memcpy_srcs,
                            call_desc.input_memcpy_sizes,
                            call_desc.input_memcpy_count,
                            cuda_stream,
                        ):
                            raise RuntimeError(
                                f"Failed to run input memcpy batch: {wp._src.context.runtime.get_error_string()}"
                            )

                        # capture callback using staging arrays
                        with wp.ScopedCapture() as capture:
                            self.func(*arg_list)

                        wp.capture_launch(capture.graph)

                        # copy outputs from staging arrays (including in-out arrays)
                        if not wp_memcpy_batch(
                            device.context,
                            call_desc.output_memcpy_dsts,
                            call_desc.output_memcpy_srcs,
                            call_desc.output_memcpy_sizes,
                            call_desc.output_memcpy_count,
                            cuda_stream,
                        ):
                            raise RuntimeError(
                                f"Failed to run output memcpy batch: {wp._src.context.runtime.get_error_string()}"
                            )

                        # save the capture for replays
                        # TODO: we should have a way of freeing this
                        call_desc.capture = capture

                    elif self.graph_mode == JaxCallableGraphMode.WARP_STAGED:
                        # capturing with WARP using staging buffers and memcopies done inside of the graph
                        wp_cuda_graph_insert_memcpy_batch = (
                            wp._src.context.runtime.core.wp_cuda_graph_insert_memcpy_batch
                        )

                        # prepare staging arrays and memcpy info
                        self._prepare_staging(arg_list, call_desc)

                        # prepare graph memcpy nodes
                        input_memcpy_count = call_desc.input_memcpy_count
                        output_memcpy_count = call_desc.output_memcpy_count
                        input_memcpy_nodes = (ctypes.c_void_p * input_memcpy_count)()
                        output_memcpy_nodes = (ctypes.c_void_p * output_memcpy_count)()

                        # capture using staging arrays and include memory copies
                        with wp.ScopedCapture() as capture:
                            # copy inputs
                            if not wp_cuda_graph_insert_memcpy_batch(
                                device.context,
                                cuda_stream,
                                call_desc.input_memcpy_dsts,
                                call_desc.input_memcpy_srcs,
                                call_desc.input_memcpy_sizes,
                                call_desc.input_memcpy_kinds,
                                call_desc.input_memcpy_count,
                                input_memcpy_nodes,
                            ):
                                raise RuntimeError(
                                    f"Failed to insert input memcpy batch: {wp._src.context.runtime.get_error_string()}"
                                )

                            # run the callback
                            self.func(*arg_list)

                            # copy outputs
                            if not wp_cuda_graph_insert_memcpy_batch(
                                device.context,
                                cuda_stream,
                                call_desc.output_memcpy_dsts,
                                call_desc.output_memcpy_srcs,
                                call_desc.output_memcpy_sizes,
                                call_desc.output_memcpy_kinds,
                                call_desc.output_memcpy_count,
                                output_memcpy_nodes,
                            ):
                                raise RuntimeError(
                                    f"Failed to insert output memcpy batch: {wp._src.context.runtime.get_error_string()}"
                                )

                        wp.capture_launch(capture.graph)

                        # concatenate input and output memcopy nodes so they can be updated in one call
                        num_nodes = input_memcpy_count + output_memcpy_count
                        call_desc.memcpy_nodes = (ctypes.c_void_p * num_nodes)()
                        call_desc.memcpy_srcs = (ctypes.c_void_p * num_nodes)()
                        call_desc.memcpy_dsts = (ctypes.c_void_p * num_nodes)()
                        call_desc.memcpy_sizes = (ctypes.c_size_t * num_nodes)()
                        call_desc.memcpy_kinds = (ctypes.c_int * num_nodes)()
                        for i in range(input_memcpy_count):
                            call_desc.memcpy_nodes[i] = input_memcpy_nodes[i]
                            call_desc.memcpy_srcs[i] = call_desc.input_memcpy_srcs[i]
                            call_desc.memcpy_dsts[i] = call_desc.input_memcpy_dsts[i]
                            call_desc.memcpy_sizes[i] = call_desc.input_memcpy_sizes[i]
                            call_desc.memcpy_kinds[i] = call_desc.input_memcpy_kinds[i]
                        for i in range(output_memcpy_count):
                            j = input_memcpy_count + i
                            call_desc.memcpy_nodes[j] = output_memcpy_nodes[i]
                            call_desc.memcpy_srcs[j] = call_desc.output_memcpy_srcs[i]
                            call_desc.memcpy_dsts[j] = call_desc.output_memcpy_dsts[i]
                            call_desc.memcpy_sizes[j] = call_desc.output_memcpy_sizes[i]
                            call_desc.memcpy_kinds[j] = call_desc.output_memcpy_kinds[i]

                        # save the capture for replays
                        # TODO: we should have a way of freeing this
                        call_desc.capture = capture

                    else:
                        # not capturing
                        self.func(*arg_list)

        except Exception as e:
            print(traceback.format_exc())
            return create_ffi_error(
                call_frame.contents.api, XLA_FFI_Error_Code.UNKNOWN, f"FFI callback error: {type(e).__name__}: {e}"
            )

        return None

    def _prepare_staging(self, arg_list, call_desc):
        # create staging arrays
        input_callback_arrays = []
        input_staging_arrays = []
        input_memcpy_indices = []
        output_callback_arrays = []
        output_staging_arrays = []
        output_memcpy_indices = []
        static_staging_arrays = []
        for i, arg in enumerate(arg_list):
            # we only care about arrays with non-zero size
            if isinstance(arg, wp.array) and arg.size > 0:
                staging_arr = wp.empty_like(arg)
                input_idx = self.arg_input_indices[i]
                if input_idx is not None:
                    # check if this input needs to be copied every time or just once
                    if self.stage_in_argnames is None or self.args[i].name in self.stage_in_argnames:
                        input_callback_arrays.append(arg)
                        input_staging_arrays.append(staging_arr)
                        input_memcpy_indices.append(input_idx)
                    else:
                        wp.copy(staging_arr, arg)
                        static_staging_arrays.append(staging_arr)
                output_idx = self.arg_output_indices[i]
                if output_idx is not None:
                    # check if this output needs to be copied every time or just once
                    if self.stage_out_argnames is None or self.args[i].name in self.stage_out_argnames:
                        output_callback_arrays.append(arg)
                        output_staging_arrays.append(staging_arr)
                        output_memcpy_indices.append(output_idx)
                    else:
                        wp.copy(staging_arr, arg)
                        static_staging_arrays.append(staging_arr)
                # substitute staging array in argument list
                arg_list[i] = staging_arr

        # prepare input memcpy batch
        input_memcpy_count = len(input_staging_arrays)
        call_desc.input_memcpy_count = input_memcpy_count
        call_desc.input_memcpy_indices = input_memcpy_indices
        call_desc.input_memcpy_srcs = (ctypes.c_void_p * input_memcpy_count)()
        call_desc.input_memcpy_dsts = (ctypes.c_void_p * input_memcpy_count)()
        call_desc.input_memcpy_sizes = (ctypes.c_size_t * input_memcpy_count)()
        call_desc.input_memcpy_kinds = (ctypes.c_int * input_memcpy_count)()
        for i in range(input_memcpy_count):
            size = input_staging_arrays[i].size * type_size_in_bytes(input_staging_arrays[i].dtype)
            call_desc.input_memcpy_srcs[i] = input_callback_arrays[i].ptr
            call_desc.input_memcpy_dsts[i] = input_staging_arrays[i].ptr
            call_desc.input_memcpy_sizes[i] = size
            call_desc.input_memcpy_kinds[i] = CudaMemcpyKind.D2D

        # prepare output memcpy batch
        output_memcpy_count = len(output_staging_arrays)
        call_desc.output_memcpy_count = output_memcpy_count
        call_desc.output_memcpy_indices = output_memcpy_indices
        call_desc.output_memcpy_srcs = (ctypes.c_void_p * output_memcpy_count)()
        call_desc.output_memcpy_dsts = (ctypes.c_void_p * output_memcpy_count)()
        call_desc.output_memcpy_sizes = (ctypes.c_size_t * output_memcpy_count)()
        call_desc.output_memcpy_kinds = (ctypes.c_int * output_memcpy_count)()
        for i in range(output_memcpy_count):
            size = output_staging_arrays[i].size * type_size_in_bytes(output_staging_arrays[i].dtype)
            call_desc.output_memcpy_srcs[i] = output_staging_arrays[i].ptr
            call_desc.output_memcpy_dsts[i] = output_callback_arrays[i].ptr
            call_desc.output_memcpy_sizes[i] = size
            call_desc.output_memcpy_kinds[i] = CudaMemcpyKind.D2D

        # hang on to the staging arrays to prevent GC
        # TODO: we should have a way of freeing this
        call_desc.input_staging_arrays = input_staging_arrays
        call_desc.output_staging_arrays = output_staging_arrays
        call_desc.static_staging_arrays = static_staging_arrays

        if wp.config.log_level <= wp.LOG_DEBUG:
            # print some stats
            total_input_size = 0
            for i in range(input_memcpy_count):
                total_input_size += int(call_desc.input_memcpy_sizes[i])
            total_output_size = 0
            for i in range(output_memcpy_count):
                total_output_size += int(call_desc.output_memcpy_sizes[i])
            print("FFI graph staging stats:")
            print(f"  input memcpy indices: {input_memcpy_indices}")
            print(f"  output memcpy indices: {output_memcpy_indices}")
            print(f"  input memcpy count: {input_memcpy_count}")
            print(f"  output memcpy count: {output_memcpy_count}")
            print(f"  total memcpy count: {input_memcpy_count + output_memcpy_count}")
            print(f"  total input size: {total_input_size} bytes")
            print(f"  total output size: {total_output_size} bytes")
            print(f"  total size: {total_input_size + total_output_size} bytes")

    @property
    def graph_cache_max(self) -> int | None:
        return self._graph_cache_max

    @graph_cache_max.setter
    def graph_cache_max(self, value: int | None):
        if value != self._graph_cache_max:
            if value is not None and (self._graph_cache_max is None or value < self._graph_cache_max):
                # trim the cache if needed
                while len(self.captures) > value:
                    self.captures.popitem(last=False)
            self._graph_cache_max = value

    @property
    def graph_cache_size(self) -> int:
        return len(self.captures)


def jax_kernel(
    kernel,
    num_outputs=1,
    vmap_method="broadcast_all",
    launch_dims=None,
    output_dims=None,
    in_out_argnames=None,
    module_preload_mode=JaxModulePreloadMode.CURRENT_DEVICE,
    enable_backward: bool = False,
    has_side_effect: bool = False,
    block_dim: int | None = None,
):
    """Create a JAX callback from a Warp kernel.

    NOTE: This is an experimental feature under development.

    Args:
        kernel: The Warp kernel to launch.
        num_outputs: Specify the number of output arguments if greater than 1.
            This must include the number of ``in_out_arguments``.
        vmap_method: String specifying how the callback transforms under ``vmap()``.
            This argument can also be specified for individual calls.
        launch_dims: Specify the kernel launch dimensions. If None, launch dimensions
            are inferred from the shape of the first array argument. When
            ``enable_backward=False``, this value will be used by default but
            can be overridden for individual calls. When ``enable_backward=True``,
            this value is fixed at construction time and cannot be overridden
            per call.
        output_dims: Specify the default dimensions of output arrays.  If None, output
            dimensions are inferred from the launch dimensions.
            This argument can also be specified for individual calls.
            Not supported when ``enable_backward=True``.
        in_out_argnames: Names of arguments that are both inputs and outputs (aliased buffers).
            These must be array arguments that appear before any pure output arguments in the
            kernel signature. The number of in-out arguments is included in ``num_outputs``.
            Not supported when ``enable_backward=True``.
        module_preload_mode: Specify the devices where the module should be preloaded.
            ``JaxModulePreloadMode.ALL_DEVICES`` includes the host CPU and all
            supported local CUDA devices. Preloading is best-effort: JAX devices
            that cannot be mapped to Warp are skipped, and execution loads the
            module for the callback's actual device. Module loading errors are
            not suppressed.
        enable_backward: Enable automatic differentiation for this kernel.
        has_side_effect: Whether the custom call has side effects. When True,
            the FFI call will be executed even when the outputs are not used.
        block_dim: Specify the number of threads per block. When ``None``, CUDA
            uses 256 threads per block and CPU uses one. Explicit CPU block
            dimensions greater than one are honored when
            ``warp.config.enable_cpu_blocks`` is ``True``. The value is fixed
            when the wrapper is constructed and is shared by forward and
            adjoint launches when ``enable_backward=True``.

    Limitations:
        - All kernel arguments must be contiguous arrays or scalars.
        - Scalars must be static arguments in JAX.
        - Input and input-output arguments must precede the output arguments in the ``kernel`` definition.
        - There must be at least one output or input-output argument.
        - The CPU and CUDA backends are supported. JAX selects the backend from the
          lowered computation's device.
        - ``output_dims`` and ``in_out_argnames`` are not supported when ``enable_backward=True``.
    """

    check_jax_version()
    jax = _get_jax()

    if block_dim is not None:
        if isinstance(block_dim, bool):
            raise TypeError("jax_kernel(): block_dim must be an integer or None.")
        try:
            block_dim = operator.index(block_dim)
        except TypeError:
            raise TypeError("jax_kernel(): block_dim must be an integer or None.") from None
        if block_dim <= 0:
            raise ValueError("jax_kernel(): block_dim must be positive.")

    if isinstance(output_dims, dict):
        hashable_output_dims = tuple(sorted(output_dims.items()))
    elif hasattr(output_dims, "__len__"):
        hashable_output_dims = tuple(output_dims)
    else:
        hashable_output_dims = output_dims

    if hasattr(launch_dims, "__len__"):
        hashable_launch_dims = tuple(launch_dims)
    else:
        hashable_launch_dims = launch_dims

    # Empty selections normalize to None because the constructors treat them identically.
    hashable_in_out_argnames = tuple(in_out_argnames) if in_out_argnames else None

    if not enable_backward:
        key = (
            kernel.func,
            kernel.sig,
            num_outputs,
            vmap_method,
            hashable_launch_dims,
            hashable_output_dims,
            hashable_in_out_argnames,
            module_preload_mode,
            has_side_effect,
            block_dim,
        )

        with _FFI_REGISTRY_LOCK:
            if key not in _FFI_KERNEL_REGISTRY:
                new_kernel = FfiKernel(
                    kernel,
                    num_outputs,
                    vmap_method,
                    launch_dims,
                    block_dim,
                    output_dims,
                    hashable_in_out_argnames,
                    module_preload_mode,
                    has_side_effect=has_side_effect,
                )
                _FFI_KERNEL_REGISTRY[key] = new_kernel

        return _FFI_KERNEL_REGISTRY[key]

    # make sure the arguments are compatible with autodiff
    if in_out_argnames:
        raise NotImplementedError(
            "jax_kernel(): Input-output arguments (in_out_argnames) are not supported when enable_backward=True."
        )

    # TODO: support output_dims with enable_backward=True (requires separate
    # output-buffer allocation logic). launch_dims is supported below: the
    # captured value is applied to both the forward and the adjoint launches.
    if output_dims is not None:
        raise NotImplementedError("jax_kernel(): output_dims is not yet supported when enable_backward=True.")

    # Differentiable path: build a custom VJP wrapper inline.
    # Infer the original kernel signature (names and annotations)
    signature = inspect.signature(kernel.func)

    parameters = [p for p in signature.parameters.values() if p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD]
    parameter_count = len(parameters)
    num_inputs = parameter_count - num_outputs

    # determine static argument indices
    static_args = []
    for i, p in enumerate(parameters[:num_inputs]):
        param_type = p.annotation
        if not matches_array_class(param_type, wp.array):
            if param_type in wp._src.types.value_types:
                static_args.append(i)
            else:
                raise TypeError(f"Invalid type for argument '{p.name}', expected array or scalar, got {type}")

    # Capture an explicit user-supplied launch_dims so the same value is used
    # for both the forward launch and the adjoint launch (required for
    # correct gradient values when array.ndim > kernel.tid_ndim).
    # Reuse `hashable_launch_dims` (computed above for the cache key path)
    # so 1-D integer and sequence forms are normalized identically.
    _user_launch_dims = hashable_launch_dims if launch_dims is not None else None
    _launch_block_dim = block_dim

    def _resolve_launch_dims(call_args):
        if _user_launch_dims is not None:
            return _user_launch_dims
        # Fallback: determine launch dimensions from the shape of the first input array
        for i, p in enumerate(parameters[:num_inputs]):
            param_type = p.annotation
            if matches_array_class(param_type, wp.array):
                arg = call_args[i]
                arg_shape = tuple(arg.shape)
                if hasattr(param_type.dtype, "_wp_scalar_type_"):
                    # vector/matrix array, trim trailing dimensions of JAX input array
                    return arg_shape[: param_type.ndim]
                else:
                    # scalar array
                    return arg_shape
        raise RuntimeError("Unable to determine launch dimensions, at least one input array is required")

    # Forward kernel wrapper: simply launches the kernel
    def fwd_kernel_wrapper(*args):
        wp.launch(
            kernel,
            dim=_resolve_launch_dims(args),
            inputs=args[:num_inputs],
            outputs=args[num_inputs:],
            block_dim=_launch_block_dim,
        )

    # update forward signature and annotations so jax_callable() sees a fully annotated function
    fwd_kernel_wrapper.__signature__ = signature
    fwd_kernel_wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
    fwd_kernel_wrapper.__annotations__["return"] = None

    jax_fwd_kernel = jax_callable(
        fwd_kernel_wrapper,
        num_outputs=num_outputs,
        vmap_method=vmap_method,
        module_preload_mode=module_preload_mode,
        has_side_effect=has_side_effect,
    )

    # backward arguments only include static args once
    bwd_arg_count = 2 * parameter_count - len(static_args)

    # Backward wrapper: launches adjoint with provided output gradients
    def bwd_kernel_wrapper(*args):
        if len(args) != bwd_arg_count:
            raise RuntimeError(f"Invalid backward argument count, expected {bwd_arg_count} but got {len(args)}")

        inputs = list(args[:num_inputs])
        outputs = list(args[num_inputs:parameter_count])
        grad_out = list(args[parameter_count : parameter_count + num_outputs])
        grad_in = list(args[parameter_count + num_outputs :])

        for i in static_args:
            grad_in.insert(i, inputs[i])

        for gi in grad_in:
            if isinstance(gi, wp.array):
                try:
                    gi.zero_()
                except Exception as e:
                    log_warning(f"Failed to zero gradient array: {e}", stacklevel=2)
                    raise e

        # The same _resolve_launch_dims() is used here so that the adjoint
        # kernel launches with exactly the same iteration space as the forward
        # kernel (captured from the enclosing scope via _user_launch_dims when
        # the caller supplied an explicit value, otherwise inferred from the
        # inputs). This matches the forward path and avoids N x
        # over-accumulation in atomic_add when array.ndim > kernel.tid_ndim.
        wp.launch(
            kernel,
            dim=_resolve_launch_dims(inputs),
            inputs=inputs,
            outputs=outputs,
            adj_inputs=grad_in,
            adj_outputs=grad_out,
            adjoint=True,
            block_dim=_launch_block_dim,
        )

    # Build the backward wrapper signature expected by jax_callable
    bwd_input_params = parameters[:num_inputs]
    bwd_output_params = parameters[num_inputs:parameter_count]
    bwd_grad_output_params = [
        inspect.Parameter(
            f"adj_{p.name}",
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=p.default,
            annotation=p.annotation,
        )
        for p in bwd_output_params
    ]

    bwd_grad_input_params = [
        inspect.Parameter(
            f"adj_{p.name}",
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=p.default,
            annotation=p.annotation,
        )
        for p in bwd_input_params
    ]
    for i in reversed(static_args):
        del bwd_grad_input_params[i]

    # update backward signature and annotations so jax_callable() sees a fully annotated function
    bwd_signature = bwd_input_params + bwd_output_params + bwd_grad_output_params + bwd_grad_input_params
    bwd_kernel_wrapper.__signature__ = inspect.Signature(bwd_signature)
    bwd_annotations = {}
    for p in bwd_input_params:
        bwd_annotations[p.name] = p.annotation
    for p in bwd_output_params:
        bwd_annotations[p.name] = p.annotation
    for p in bwd_grad_output_params:
        bwd_annotations[p.name] = p.annotation
    for p in bwd_grad_input_params:
        bwd_annotations[p.name] = p.annotation
    bwd_annotations["return"] = None
    bwd_kernel_wrapper.__annotations__ = bwd_annotations

    jax_bwd_kernel = jax_callable(
        bwd_kernel_wrapper,
        num_outputs=len(bwd_input_params) - len(static_args),
        vmap_method=vmap_method,
        module_preload_mode=module_preload_mode,
        has_side_effect=has_side_effect,
    )

    differentiable_input_indices = [i for i in range(num_inputs) if i not in static_args]
    differentiable_input_names = [parameters[i].name for i in differentiable_input_indices]

    def fwd_function(*args):
        outputs = jax_fwd_kernel(*args)
        non_static_inputs = list(args)
        for i in reversed(static_args):
            del non_static_inputs[i]
        # Normalize to tuple for consistent handling
        if num_outputs == 1:
            outputs_tuple = (outputs,) if not isinstance(outputs, (list, tuple)) else (outputs[0],)
        else:
            outputs_tuple = outputs if isinstance(outputs, tuple) else tuple(outputs)
        return outputs, (tuple(non_static_inputs), outputs_tuple)

    def bwd_function(*bwd_args):
        nondiff_vals = list(bwd_args[: len(static_args)])
        residuals = bwd_args[len(static_args)]
        grad_out_args = bwd_args[len(static_args) + 1 :]

        non_static_inputs, output_vals_tuple = residuals

        input_vals = list(non_static_inputs)
        for i, v in zip(static_args, nondiff_vals, strict=True):
            input_vals.insert(i, v)

        # Normalize grad outputs and handle nested containers (e.g., single tuple for multi-output)
        if num_outputs == 1:
            go = grad_out_args[0]
            grad_out_tuple = tuple(go) if isinstance(go, (list, tuple)) else (go,)
        else:
            if len(grad_out_args) == 1 and isinstance(grad_out_args[0], (list, tuple)):
                grad_out_tuple = tuple(grad_out_args[0])
            else:
                grad_out_tuple = tuple(grad_out_args)
        bwd_call_args = list(input_vals) + list(output_vals_tuple) + list(grad_out_tuple)

        out_dims_map = {}
        param_ann = {p.name: p.annotation for p in parameters[:num_inputs]}
        for name, val in zip(differentiable_input_names, non_static_inputs, strict=True):
            ann = param_ann.get(name)
            if ann is None:
                continue
            # Check if annotation is a warp array type (annotation is an instance of wp.array)
            is_array_ann = matches_array_class(ann, wp.array)
            if not is_array_ann:
                continue
            dtype_ndim = 0
            # Extract dtype ndim if it's a vector/matrix type
            if hasattr(ann, "dtype") and hasattr(ann.dtype, "_wp_scalar_type_"):
                dtype_ndim = len(ann.dtype._shape_)
            warp_ndim = getattr(ann, "ndim", 0)
            vshape = tuple(val.shape)
            if warp_ndim == 0:
                continue
            if dtype_ndim > 0:
                core_rank = max(0, len(vshape) - dtype_ndim)
                warp_dims = vshape[max(0, core_rank - warp_ndim) : core_rank]
            else:
                warp_dims = vshape[-warp_ndim:]
            out_dims_map[f"adj_{name}"] = tuple(warp_dims)

        non_static_input_grads = jax_bwd_kernel(*bwd_call_args, output_dims=out_dims_map)
        return tuple(non_static_input_grads)

    jax_func = jax.custom_vjp(jax_fwd_kernel, nondiff_argnums=tuple(static_args))
    jax_func.defvjp(fwd_function, bwd_function)

    key = (
        kernel.func,
        kernel.sig,
        num_outputs,
        vmap_method,
        module_preload_mode,
        has_side_effect,
        # Include the normalized launch_dims so that wrapping the same kernel
        # with different launch_dims produces independent cache entries.
        # Reusing _user_launch_dims ensures int and 1-tuple forms of the same
        # value map to the same key.
        _user_launch_dims,
        block_dim,
    )

    if static_args:
        static_names = [parameters[i].name for i in static_args]
    else:
        static_names = []

    key = (*key, tuple(sorted(static_names)))

    def _user_callable(*args):
        return jax_func(*args)

    _user_callable.__signature__ = signature

    # Cache differentiable wrapper
    with _FFI_REGISTRY_LOCK:
        cached = _FFI_DIFF_KERNEL_REGISTRY.get(key)
        if cached is None:
            cached = jax.jit(_user_callable, static_argnames=tuple(static_names))
            _FFI_DIFF_KERNEL_REGISTRY[key] = cached

    # Thin Python-level wrapper that intercepts FfiKernel-style per-call kwargs
    # and raises informative errors before JAX tracing begins.
    def _checked_wrapper(*args, launch_dims=_MISSING, output_dims=_MISSING, vmap_method=_MISSING):
        if launch_dims is not _MISSING:
            raise TypeError(
                "jax_kernel(): launch_dims cannot be overridden per-call when enable_backward=True "
                f"(this wrapper was created with launch_dims={_user_launch_dims!r}). "
                "Call jax_kernel() again with a different launch_dims to create a new wrapper."
            )
        if output_dims is not _MISSING:
            raise TypeError("jax_kernel(): output_dims is not supported when enable_backward=True.")
        if vmap_method is not _MISSING:
            raise TypeError(
                "jax_kernel(): vmap_method cannot be overridden per-call when enable_backward=True; "
                "it is fixed at construction time. "
                "Call jax_kernel() again with a different vmap_method to create a new wrapper."
            )
        return cached(*args)

    _checked_wrapper.block_dim = block_dim
    return _checked_wrapper


def jax_callable(
    func: Callable,
    num_outputs: int = 1,
    graph_mode: JaxCallableGraphMode = JaxCallableGraphMode.JAX,
    vmap_method: str | None = "broadcast_all",
    output_dims=None,
    in_out_argnames=None,
    stage_in_argnames=None,
    stage_out_argnames=None,
    graph_cache_max: int | None = JAX_CALLABLE_DEFAULT_GRAPH_CACHE_MAX,
    module_preload_mode: JaxModulePreloadMode = JaxModulePreloadMode.CURRENT_DEVICE,
    has_side_effect: bool = False,
):
    """Create a JAX callback from an annotated Python function.

    The Python function arguments must have type annotations like Warp kernels.

    NOTE: This is an experimental feature under development.

    Args:
        func: The Python function to call.
        num_outputs: Specify the number of output arguments if greater than 1.
            This must include the number of ``in_out_arguments``.
        graph_mode: CUDA graph capture mode.
            ``JaxCallableGraphMode.JAX`` (default): Let JAX capture the graph,
            which may be used as a subgraph in an enclosing JAX capture.
            ``JaxCallableGraphMode.WARP``: Let Warp capture the graph. For a
            given compiled call, Warp reuses it when the input and output
            buffer addresses match those of an earlier invocation. Use this
            mode when the callable cannot be used as a subgraph, such as when
            it uses conditional graph nodes.
            ``JaxCallableGraphMode.WARP_STAGED``: Capture a Warp graph against
            stable staging buffers, with input and output copies inside the
            graph. The graph can be reused when JAX supplies different buffer
            addresses for a compiled call.
            ``JaxCallableGraphMode.WARP_STAGED_EX``: Capture against stable
            staging buffers, but submit the input and output copies outside the
            graph.
            ``JaxCallableGraphMode.NONE``: Disable graph capture. Use when the
            callable performs operations that are not legal in a graph, such
            as host synchronization.
            Staged modes use extra device memory and copy staged arguments on
            each call. Benchmark both staged modes for the target workload.
            On CPU, ``JaxCallableGraphMode.NONE`` and ``JaxCallableGraphMode.JAX``
            both execute without graph capture. The ``WARP``, ``WARP_STAGED``, and
            ``WARP_STAGED_EX`` modes require CUDA.
        vmap_method: String specifying how the callback transforms under ``vmap()``.
            This argument can also be specified for individual calls.
        output_dims: Specify the default dimensions of output arrays.
            If ``None``, output dimensions are inferred from the launch dimensions.
            This argument can also be specified for individual calls.
        in_out_argnames: Names of arguments that are both inputs and outputs (aliased buffers).
            These must be array arguments that appear before any pure output arguments in the
            function signature. The number of in-out arguments is included in ``num_outputs``.
        stage_in_argnames: Names of non-empty array inputs to copy into staging
            buffers on each call in ``WARP_STAGED`` or ``WARP_STAGED_EX`` mode.
            If ``None``, copy every non-empty array input. When specific names
            are provided, other array inputs keep the values copied during
            graph setup.
        stage_out_argnames: Names of non-empty array outputs to copy from staging
            buffers on each call in ``WARP_STAGED`` or ``WARP_STAGED_EX`` mode.
            If ``None``, copy every non-empty array output. When specific names
            are provided, other array outputs are not copied back.
        graph_cache_max: Maximum number of cached graphs captured using ``JaxCallableGraphMode.WARP``.
            If ``None``, the graph cache is unlimited.
        module_preload_mode: Specify the devices where the module should be preloaded.
            ``JaxModulePreloadMode.ALL_DEVICES`` includes the host CPU and all
            supported local CUDA devices. Preloading is best-effort: JAX devices
            that cannot be mapped to Warp are skipped, and execution loads the
            module for the callback's actual device. Module loading errors are
            not suppressed.
        has_side_effect: Whether the custom call has side effects. When True,
            the FFI call will be executed even when the outputs are not used.

    Limitations:
        - All kernel arguments must be contiguous arrays or scalars.
        - Scalars must be static arguments in JAX.
        - Input and input-output arguments must precede the output arguments in the ``func`` definition.
        - There must be at least one output or input-output argument.
        - The CPU and CUDA backends are supported. JAX selects the backend from the
          lowered computation's device.
    """

    check_jax_version()
    graph_mode = JaxCallableGraphMode(graph_mode)

    if isinstance(output_dims, dict):
        hashable_output_dims = tuple(sorted(output_dims.items()))
    elif hasattr(output_dims, "__len__"):
        hashable_output_dims = tuple(output_dims)
    else:
        hashable_output_dims = output_dims

    # Empty selections normalize to None to mirror the constructors: an empty or missing
    # in_out selection aliases nothing, and an empty or missing staging selection stages
    # every argument. Distinguishing them here would only split the cache between two
    # identically behaving wrappers.
    hashable_in_out_argnames = tuple(in_out_argnames) if in_out_argnames else None
    hashable_stage_in_argnames = tuple(stage_in_argnames) if stage_in_argnames else None
    hashable_stage_out_argnames = tuple(stage_out_argnames) if stage_out_argnames else None

    # Note: we don't include graph_cache_max in the key, it is applied below.
    key = (
        func,
        num_outputs,
        graph_mode,
        vmap_method,
        hashable_output_dims,
        hashable_in_out_argnames,
        hashable_stage_in_argnames,
        hashable_stage_out_argnames,
        module_preload_mode,
        has_side_effect,
    )

    with _FFI_REGISTRY_LOCK:
        callable = _FFI_CALLABLE_REGISTRY.get(key)
        if callable is None:
            callable = FfiCallable(
                func,
                num_outputs,
                graph_mode,
                vmap_method,
                output_dims,
                hashable_in_out_argnames,
                hashable_stage_in_argnames,
                hashable_stage_out_argnames,
                graph_cache_max,
                module_preload_mode,
                has_side_effect,
            )
            _FFI_CALLABLE_REGISTRY[key] = callable
        else:
            # make sure we're using the latest graph cache max
            callable.graph_cache_max = graph_cache_max

    return callable


def clear_jax_callable_graph_cache(callable: FfiCallable | None = None):
    """Clear the graph cache of the given callable or all callables if ``None``."""

    if callable is not None:
        callable.captures.clear()
    else:
        # apply to all callables
        with _FFI_REGISTRY_LOCK:
            for callable in _FFI_CALLABLE_REGISTRY.values():
                callable.captures.clear()


###############################################################################
#
# Generic FFI callbacks for Python functions of the form
# func(inputs, outputs, attrs, ctx)
#
###############################################################################


def register_ffi_callback(name: str, func: Callable, graph_compatible: bool = True) -> None:
    """Create a JAX callback from a Python function.

    The Python function must have the form ``func(inputs, outputs, attrs, ctx)``.

    NOTE: This is an experimental feature under development.

    Args:
        name: A unique FFI callback name.
        func: The Python function to call.
        graph_compatible: Whether the function can be called during CUDA graph capture.
    """

    check_jax_version()
    jax = _get_jax()

    # TODO check that the name is not already registered

    def ffi_callback(call_frame, platform):
        try:
            extension = call_frame.contents.extension_start
            # On the first call, XLA runtime will query the API version and traits
            # metadata using the |extension| field. Let us respond to that query
            # if the metadata extension is present.
            if extension:
                # Try to set the version metadata.
                if extension.contents.type == XLA_FFI_Extension_Type.Metadata:
                    metadata_ext = ctypes.cast(extension, ctypes.POINTER(XLA_FFI_Metadata_Extension))
                    metadata_ext.contents.metadata.contents.api_version.major_version = 0
                    metadata_ext.contents.metadata.contents.api_version.minor_version = 1
                    if graph_compatible and platform == _FFI_PLATFORM_CUDA:
                        # Turn on CUDA graphs for this handler.
                        metadata_ext.contents.metadata.contents.traits = (
                            XLA_FFI_Handler_TraitsBits.COMMAND_BUFFER_COMPATIBLE
                        )
                    return None

            # Lock is required to prevent race conditions when callback is invoked
            # from multiple threads, like with pmap.
            with _FFI_CALLBACK_LOCK:
                attrs = decode_attrs(call_frame.contents.attrs)

                input_count = call_frame.contents.args.size
                inputs = ctypes.cast(call_frame.contents.args.args, ctypes.POINTER(ctypes.POINTER(XLA_FFI_Buffer)))
                inputs = [FfiBuffer(inputs[i].contents) for i in range(input_count)]

                output_count = call_frame.contents.rets.size
                outputs = ctypes.cast(call_frame.contents.rets.rets, ctypes.POINTER(ctypes.POINTER(XLA_FFI_Buffer)))
                outputs = [FfiBuffer(outputs[i].contents) for i in range(output_count)]

                ctx = ExecutionContext(call_frame.contents)

                func(inputs, outputs, attrs, ctx)

        except Exception as e:
            print(traceback.format_exc())
            return create_ffi_error(
                call_frame.contents.api, XLA_FFI_Error_Code.UNKNOWN, f"FFI callback error: {type(e).__name__}: {e}"
            )

        return None

    callback_funcs = _register_ffi_targets(name, ffi_callback)
    with _FFI_REGISTRY_LOCK:
        _FFI_CALLBACK_REGISTRY[name] = callback_funcs


###############################################################################
#
# Utilities
#
###############################################################################

# ensure unique FFI callback names
ffi_name_counts = {}


def generate_unique_name(func) -> str:
    key = make_full_qualified_name(func)
    unique_id = ffi_name_counts.get(key, 0)
    ffi_name_counts[key] = unique_id + 1
    return f"{key}_{unique_id}"


def get_warp_shape(arg, dims):
    if arg.dtype_ndim > 0:
        # vector/matrix array
        return dims[: arg.warp_ndim]
    else:
        # scalar array
        return dims


def get_jax_output_type_metadata(input_values: Iterable[Any]) -> dict[str, Any]:
    """Build output metadata from the union of array inputs' varying manual axes."""
    jax = _get_jax()
    # Older supported JAX releases cannot expose or attach type metadata to output descriptors.
    if not hasattr(jax, "typeof") or not hasattr(jax.ShapeDtypeStruct, "update"):
        return {}

    # JAX cannot inspect FFI output dependencies, so conservatively propagate
    # every array input's varying manual axes to every output.
    varying_axes: set[Any] = set()
    uses_manual_axis_type = False
    fallback_jax_mesh = None
    for input_value in input_values:
        input_type = jax.typeof(input_value)
        manual_axis_type = getattr(input_type, "manual_axis_type", None)
        if manual_axis_type is not None:
            uses_manual_axis_type = True
            input_vma = manual_axis_type.varying
        else:
            input_vma = getattr(input_type, "vma", None)

        if input_vma:
            varying_axes.update(input_vma)
            fallback_jax_mesh = input_type.sharding.mesh

    if not varying_axes:
        return {}

    vma = frozenset(varying_axes)
    if uses_manual_axis_type:
        metadata = {"manual_axis_type": jax.sharding.ManualAxisType(varying=vma)}
    else:
        metadata = {"vma": vma}

    # JAX FFI outputs with VMA metadata also require compatible sharding for
    # the active JAX manual mesh. See https://github.com/jax-ml/jax/issues/38551.
    if hasattr(jax.sharding, "get_abstract_mesh"):
        jax_mesh = jax.sharding.get_abstract_mesh()
    else:
        jax_mesh = fallback_jax_mesh
    metadata["sharding"] = jax.sharding.NamedSharding(jax_mesh, jax.sharding.PartitionSpec())
    return metadata


def get_jax_output_type(arg, dims, metadata: dict[str, Any] | None = None):
    jax = _get_jax()

    if isinstance(dims, int):
        dims = (dims,)

    ndim = len(dims)

    if arg.dtype_ndim > 0:
        # vector/matrix array
        if ndim == arg.warp_ndim:
            dims = (*dims, *arg.dtype_shape)
        elif ndim == arg.jax_ndim:
            # make sure inner dimensions match
            inner_dims = dims[-arg.dtype_ndim :]
            for i in range(arg.dtype_ndim):
                if inner_dims[i] != arg.dtype_shape[i]:
                    raise ValueError(f"Invalid output dimensions for argument '{arg.name}': {dims}")
        else:
            raise ValueError(f"Invalid output dimensions for argument '{arg.name}': {dims}")
    else:
        # scalar array
        if ndim != arg.warp_ndim:
            raise ValueError(f"Invalid output dimensions for argument '{arg.name}': {dims}")

    output_type = jax.ShapeDtypeStruct(dims, arg.jax_scalar_type)
    if metadata:
        output_type = output_type.update(**metadata)
    return output_type
