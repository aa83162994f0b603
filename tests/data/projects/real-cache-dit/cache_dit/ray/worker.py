from __future__ import annotations

import copy
import importlib
import json
import os
from typing import Any

import torch
from diffusers import DiffusionPipeline
from diffusers.models.modeling_utils import ModelMixin

from ..distributed import ParallelismConfig
from ..logger import init_logger
from ..quantization import QuantizeConfig
from ._tree import cpu_tensor_tree
from ._tree import device_tensor_tree
from .dist import destroy_worker_process_group
from .dist import init_worker_process_group

logger = init_logger(__name__)


def _resolve_class(class_ref: str) -> type:
  """Resolve a ``module:qualname`` string returned by :func:`_qualified_class_name`.

  The format mirrors what ``copyreg._reduce_ex`` stores for a class, so it is
  round-trip-safe for standard and nested classes alike.

  :param class_ref: Encoded class reference produced by ``_qualified_class_name``.
  :returns: The resolved Python class object.
  :raises ModuleNotFoundError: The module portion of *class_ref* cannot be imported.
  :raises AttributeError: The qualname portion of *class_ref* is missing from the module.
  :raises TypeError: *class_ref* is not a string (e.g. a raw class object from an
    older cache-dit that did not use ``_qualified_class_name``).
  """

  if not isinstance(class_ref, str):
    raise TypeError(f"_resolve_class expected a 'module:qualname' string, got "
                    f"{type(class_ref).__name__} ({class_ref!r}).  This usually means "
                    f"the calling code passed a raw class object instead of using "
                    f"_qualified_class_name().")

  module_name, _, qualname = class_ref.rpartition(":")
  module = importlib.import_module(module_name)
  # qualname may contain dots for nested classes, e.g. "Outer.Inner"
  obj = module
  for part in qualname.split("."):
    obj = getattr(obj, part)
  return obj


def _maybe_compile_transformer(
  transformer: torch.nn.Module | ModelMixin,
  parallelism_config: ParallelismConfig,
) -> torch.nn.Module | ModelMixin:
  """Compile a Ray-owned transformer when requested by the parallelism config.

  :param transformer: Transformer copy already moved to the actor device and parallelized.
  :param parallelism_config: Ray-enabled parallelism configuration.
  :returns: The same transformer object after any in-place compile step.
  """

  if not parallelism_config.ray_use_compile:
    return transformer

  compile_repeated_blocks = getattr(transformer, "compile_repeated_blocks", None)
  if callable(compile_repeated_blocks):
    logger.info("Compiling Ray-owned transformer with compile_repeated_blocks().")
    transformer.compile_repeated_blocks()
    return transformer

  compile_module = getattr(transformer, "compile", None)
  if callable(compile_module):
    logger.info("Compiling Ray-owned transformer with nn.Module.compile().")
    transformer.compile()
    return transformer

  logger.warning("ray_use_compile=True, but transformer does not support "
                 "compile_repeated_blocks() or nn.Module.compile(); skipping compile.")
  return transformer


class RayTransformerWorker:
  """Ray actor body that owns one rank of a cache-dit parallel transformer.

  :param rank: Global rank assigned by the Ray engine.
  :param world_size: Number of Ray actors in the model-parallel group.
  :param parallelism_config: Parallelism configuration to apply inside the actor.
  :param master_port: TCPStore port shared by all actors.
  """

  def __init__(
    self,
    rank: int,
    world_size: int,
    parallelism_config: ParallelismConfig,
    cache_context_kwargs: dict[str, Any] | None,
    quantize_config: QuantizeConfig | None,
    master_port: int,
  ):
    self.rank = rank
    self.world_size = world_size
    self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if self.device.type == "cuda":
      torch.cuda.set_device(torch.cuda.current_device())

    init_worker_process_group(
      rank=rank,
      world_size=world_size,
      master_port=master_port,
    )

    self.parallelism_config = copy.deepcopy(parallelism_config)
    self.cache_context_kwargs = copy.deepcopy(cache_context_kwargs)
    self.quantize_config = copy.deepcopy(quantize_config)
    self.parallelism_config.ray_num_workers = world_size
    if self.parallelism_config.hybrid_enabled():
      self.parallelism_config._maybe_init_hybrid_meshes()

    self.transformer: torch.nn.Module | ModelMixin | None = None

  def load_transformer(self, transformer: torch.nn.Module | ModelMixin) -> dict[str, Any]:
    """Load and parallelize the transformer copy owned by this actor.

    :param transformer: CPU transformer copy from the Ray object store.
    :returns: Device placement and memory information after loading.
    """

    self.transformer = transformer.to(self.device)
    self.transformer.eval()
    par_config = (self.parallelism_config
                  if not self.parallelism_config._ray_skip_native_parallelism else None)
    if self.cache_context_kwargs or par_config is not None or self.quantize_config is not None:
      from ..caching.cache_interface import _enable_cache_impl
      self.transformer = _enable_cache_impl(
        self.transformer,
        parallelism_config=par_config,
        quantize_config=self.quantize_config,
        attention_backend=self.parallelism_config.attention_backend,
        **(self.cache_context_kwargs or {}),
      )
    self.transformer = _maybe_compile_transformer(self.transformer, self.parallelism_config)
    return self.device_info()

  def load_transformer_from_file(self, path: str) -> dict[str, Any]:
    """Load and parallelize a transformer serialized on the local filesystem.

    :param path: Path to a CPU transformer checkpoint written by the Ray engine.
    :returns: Device placement and memory information after loading.
    """

    transformer = torch.load(path, map_location="cpu", weights_only=False)
    return self.load_transformer(transformer)

  def load_transformer_from_safetensors(
    self,
    transformer_cls_ref: str,
    transformer_config: dict[str, Any],
    path: str,
  ) -> dict[str, Any]:
    """Load a diffusers transformer from a safetensors state dict.

    :param transformer_cls_ref: ``module:qualname`` string encoding the transformer class.
    :param transformer_config: Serialized transformer config passed to ``from_config``.
    :param path: Path to a safetensors state dict written by the Ray engine.
    :returns: Device placement and memory information after loading.
    """

    try:
      from safetensors.torch import load_file
    except ImportError as exc:
      raise ImportError(
        "Ray safetensors transfer requires `safetensors`. Install with "
        "`pip install cache-dit[ray,parallelism]` or `pip install safetensors`.") from exc

    transformer_cls = _resolve_class(transformer_cls_ref)
    with torch.device("meta"):
      transformer = transformer_cls.from_config(transformer_config)
    state_dict = load_file(path, device=str(self.device))
    transformer.load_state_dict(state_dict, assign=True)
    self.transformer = transformer.eval()
    par_config = (self.parallelism_config
                  if not self.parallelism_config._ray_skip_native_parallelism else None)
    if self.cache_context_kwargs or par_config is not None or self.quantize_config is not None:
      from ..caching.cache_interface import _enable_cache_impl
      self.transformer = _enable_cache_impl(
        self.transformer,
        parallelism_config=par_config,
        quantize_config=self.quantize_config,
        attention_backend=self.parallelism_config.attention_backend,
        **(self.cache_context_kwargs or {}),
      )
    self.transformer = _maybe_compile_transformer(self.transformer, self.parallelism_config)
    return self.device_info()

  def load_transformer_from_pretrained(
    self,
    transformer_cls_ref: str,
    model_path: str,
    torch_dtype: torch.dtype | None,
    use_flashpack: bool,
  ) -> dict[str, Any]:
    """Load a diffusers transformer snapshot inside this actor.

    :param transformer_cls_ref: ``module:qualname`` string encoding the transformer class.
    :param model_path: Local snapshot directory written by the Ray engine.
    :param torch_dtype: Optional dtype for model loading.
    :param use_flashpack: Whether to prefer FlashPack weights during loading.
    :returns: Device placement and memory information after loading.
    """

    transformer_cls = _resolve_class(transformer_cls_ref)
    load_kwargs = {
      "use_safetensors": True,
      "use_flashpack": use_flashpack,
    }
    if torch_dtype is not None:
      load_kwargs["torch_dtype"] = torch_dtype
    transformer = transformer_cls.from_pretrained(model_path, **load_kwargs)
    return self.load_transformer(transformer)

  def ready(self) -> int:
    """Return the rank after actor initialization has completed.

    :returns: The actor rank.
    """

    return self.rank

  def device_info(self) -> dict[str, Any]:
    """Return actor device placement details for diagnostics.

    :returns: Rank, torch device, and visible accelerator ids for this actor.
    """

    info = {
      "rank": self.rank,
      "device": str(self.device),
      "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }
    if self.device.type == "cuda":
      info["memory_allocated_mib"] = torch.cuda.memory_allocated() // 1024 // 1024
      info["memory_reserved_mib"] = torch.cuda.memory_reserved() // 1024 // 1024
    return info

  def forward(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any | None:
    """Run a transformer forward on this Ray rank.

    :param args: CPU-staged positional arguments from the main process.
    :param kwargs: CPU-staged keyword arguments from the main process.
    :returns: CPU-staged output on rank 0 and ``None`` on other ranks.
    """

    device_args = device_tensor_tree(args, self.device)
    device_kwargs = device_tensor_tree(kwargs, self.device)
    if self.transformer is None:
      raise RuntimeError("RayTransformerWorker.forward called before load_transformer.")
    with torch.no_grad():
      output = self.transformer(*device_args, **device_kwargs)
    if self.rank != 0:
      return None
    return cpu_tensor_tree(output)

  def shutdown(self) -> None:
    """Release actor-local distributed state."""

    destroy_worker_process_group()


class RayPipelineWorker:
  """Ray actor body that owns one full pipeline and one distributed rank.

  :param rank: Global rank assigned by the Ray engine.
  :param world_size: Number of Ray actors in the model-parallel group.
  :param parallelism_config: Parallelism configuration to apply inside the actor.
  :param master_port: TCPStore port shared by all actors.
  """

  def __init__(
    self,
    rank: int,
    world_size: int,
    parallelism_config: ParallelismConfig,
    cache_context_kwargs: dict[str, Any] | None,
    quantize_config: QuantizeConfig | None,
    master_port: int,
  ):
    self.rank = rank
    self.world_size = world_size
    self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if self.device.type == "cuda":
      torch.cuda.set_device(torch.cuda.current_device())

    init_worker_process_group(
      rank=rank,
      world_size=world_size,
      master_port=master_port,
    )

    self.parallelism_config = copy.deepcopy(parallelism_config)
    self.cache_context_kwargs = copy.deepcopy(cache_context_kwargs)
    self.quantize_config = copy.deepcopy(quantize_config)
    self.parallelism_config.ray_num_workers = world_size
    if self.parallelism_config.hybrid_enabled():
      self.parallelism_config._maybe_init_hybrid_meshes()

    self.pipe: DiffusionPipeline | None = None

  def load_pipeline(self, pipe: DiffusionPipeline) -> dict[str, Any]:
    """Load a pipeline copy and parallelize its transformer inside this actor.

    :param pipe: CPU pipeline copy from the Ray object store.
    :returns: Device placement and memory information after loading.
    """

    for component in pipe.components.values():
      if isinstance(component, torch.nn.Module):
        component.to(self.device)
    self.pipe = pipe
    self.pipe.set_progress_bar_config(disable=True)
    self.pipe.transformer.eval()
    par_config = (self.parallelism_config
                  if not self.parallelism_config._ray_skip_native_parallelism else None)
    if self.cache_context_kwargs or par_config is not None or self.quantize_config is not None:
      from ..caching.cache_interface import _enable_cache_impl
      self.pipe = _enable_cache_impl(
        self.pipe,
        parallelism_config=par_config,
        quantize_config=self.quantize_config,
        attention_backend=self.parallelism_config.attention_backend,
        **(self.cache_context_kwargs or {}),
      )
    self.pipe.transformer = _maybe_compile_transformer(
      self.pipe.transformer,
      self.parallelism_config,
    )
    return self.device_info()

  def load_pipeline_from_pretrained(
    self,
    pipe_cls_ref: str,
    model_path: str,
    torch_dtype: torch.dtype | None,
    use_flashpack: bool,
    custom_class_map: dict[str, str] | None = None,
  ) -> dict[str, Any]:
    """Load a pipeline from its pretrained directory inside this actor.

    :param pipe_cls_ref: ``module:qualname`` string encoding the pipeline class.
    :param model_path: Local path or model id passed to ``from_pretrained``.
    :param torch_dtype: Optional dtype for model loading.
    :param use_flashpack: Whether to prefer FlashPack weights during loading.
    :param custom_class_map: Optional ``{class_name: module:qualname}`` registry
      for custom components whose classes diffusers cannot resolve via its normal
      module-lookup heuristics.  Missing classes are monkey-patched into the
      appropriate ``diffusers.pipelines`` submodule before ``from_pretrained``
      runs, and cleaned up afterwards.
    :returns: Device placement and memory information after loading.
    """

    pipe_cls = _resolve_class(pipe_cls_ref)

    # Detect and monkey-patch custom component classes that diffusers will not
    # be able to resolve through its normal pipeline-module lookup.
    patched_attrs: list[tuple[Any, str]] = []
    if custom_class_map:
      try:
        from diffusers import pipelines as diffusers_pipelines
      except ImportError:
        diffusers_pipelines = None

      if diffusers_pipelines is not None:
        model_index_path = os.path.join(model_path, "model_index.json")
        try:
          with open(model_index_path, "r") as f:
            model_index = json.load(f)
        except (FileNotFoundError, json.JSONDecodeError):
          model_index = {}

        for component_name, entry in model_index.items():
          if component_name.startswith("_"):
            continue
          if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            continue
          library_name, class_name = entry
          if not hasattr(diffusers_pipelines, library_name):
            continue
          pipeline_module = getattr(diffusers_pipelines, library_name)
          if hasattr(pipeline_module, class_name):
            # Class already exists in that pipelines submodule — nothing to do
            continue
          # Class missing — look it up in the custom class map
          if class_name not in custom_class_map:
            logger.warning(f"Component '{component_name}' references class '{class_name}' "
                           f"in pipelines submodule '{library_name}', but the class is not "
                           f"exported there and no entry exists in custom_class_map. "
                           f"from_pretrained may fail.")
            continue
          try:
            actual_class = _resolve_class(custom_class_map[class_name])
          except Exception as exc:
            logger.warning(f"Failed to resolve custom class '{class_name}' via "
                           f"'{custom_class_map[class_name]}': {exc}. "
                           f"from_pretrained may fail.")
            continue
          setattr(pipeline_module, class_name, actual_class)
          patched_attrs.append((pipeline_module, class_name))
          logger.info(f"Monkey-patched custom class '{class_name}' into "
                      f"diffusers.pipelines.{library_name} for from_pretrained.")

    try:
      load_kwargs = {}
      if torch_dtype is not None:
        load_kwargs["torch_dtype"] = torch_dtype
      load_kwargs["use_safetensors"] = True
      load_kwargs["use_flashpack"] = use_flashpack
      pipe = pipe_cls.from_pretrained(model_path, **load_kwargs)
    finally:
      # Clean up monkey-patches so other callers see the original module state
      for pipeline_module, class_name in patched_attrs:
        try:
          delattr(pipeline_module, class_name)
        except AttributeError:
          pass

    return self.load_pipeline(pipe)

  def load_pipeline_with_init_fn(
    self,
    fn,
    cache_context_kwargs: dict[str, Any] | None,
    quantize_config: QuantizeConfig | None,
  ) -> dict[str, Any]:
    """Load a pipeline by calling a user-provided initialize function on this actor.

    :param fn: A zero-argument callable that returns a ``DiffusionPipeline`` instance.
    :param cache_context_kwargs: Optional cache context keyword arguments to pass to
      ``_enable_cache_impl`` after the pipeline is created.
    :param quantize_config: Optional quantization configuration to apply.
    :returns: Device placement and memory information after loading.
    """

    pipe = fn()
    if not isinstance(pipe, DiffusionPipeline):
      raise TypeError(
        f"ray_transfer_fn must return a DiffusionPipeline, got {type(pipe).__name__}.")
    for component in pipe.components.values():
      if isinstance(component, torch.nn.Module):
        component.to(self.device)
    self.pipe = pipe
    self.pipe.set_progress_bar_config(disable=True)
    self.pipe.transformer.eval()
    par_config = (self.parallelism_config
                  if not self.parallelism_config._ray_skip_native_parallelism else None)
    if self.cache_context_kwargs or par_config is not None or self.quantize_config is not None:
      from ..caching.cache_interface import _enable_cache_impl
      self.pipe = _enable_cache_impl(
        self.pipe,
        parallelism_config=par_config,
        quantize_config=self.quantize_config,
        attention_backend=self.parallelism_config.attention_backend,
        **(self.cache_context_kwargs or {}),
      )
    self.pipe.transformer = _maybe_compile_transformer(
      self.pipe.transformer,
      self.parallelism_config,
    )
    return self.device_info()

  def ready(self) -> int:
    """Return the rank after actor initialization has completed.

    :returns: The actor rank.
    """

    return self.rank

  def device_info(self) -> dict[str, Any]:
    """Return actor device placement details for diagnostics.

    :returns: Rank, torch device, and visible accelerator ids for this actor.
    """

    info = {
      "rank": self.rank,
      "device": str(self.device),
      "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }
    if self.device.type == "cuda":
      info["memory_allocated_mib"] = torch.cuda.memory_allocated() // 1024 // 1024
      info["memory_reserved_mib"] = torch.cuda.memory_reserved() // 1024 // 1024
    return info

  def call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any | None:
    """Run a full pipeline call on this Ray rank.

    :param args: Positional arguments from the main process.
    :param kwargs: Keyword arguments from the main process.
    :returns: Pipeline output on rank 0 and ``None`` on other ranks.
    """

    if self.pipe is None:
      raise RuntimeError("RayPipelineWorker.call called before load_pipeline.")
    device_args = device_tensor_tree(args, self.device)
    device_kwargs = device_tensor_tree(kwargs, self.device)
    with torch.no_grad():
      output = self.pipe(*device_args, **device_kwargs)
    if self.rank != 0:
      return None
    return cpu_tensor_tree(output)

  def shutdown(self) -> None:
    """Release actor-local distributed state."""

    destroy_worker_process_group()
