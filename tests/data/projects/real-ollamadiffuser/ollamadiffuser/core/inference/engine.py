"""
Inference Engine - Facade that delegates to model-specific strategies.

This replaces the former 1400+ line god class with a clean strategy pattern.
Each model type (SD1.5, SDXL, FLUX, SD3, ControlNet, Video, HiDream, GGUF)
has its own strategy class that handles loading and generation.
"""

import contextlib
import logging
import weakref
from typing import Any, Dict, Optional, Union

from PIL import Image

from ..config.settings import ModelConfig
from .base import InferenceStrategy

logger = logging.getLogger(__name__)

# The engines with a model loaded in this process — several when a server
# keeps more than one model in memory — for what each one holds (held_bytes).
_LOADED: "weakref.WeakSet[InferenceEngine]" = weakref.WeakSet()


def _get_strategy(model_type: str) -> InferenceStrategy:
    """Create the appropriate strategy for a model type."""
    if model_type == "sd15":
        from .strategies.sd15_strategy import SD15Strategy
        return SD15Strategy()
    elif model_type == "sdxl":
        from .strategies.sdxl_strategy import SDXLStrategy
        return SDXLStrategy()
    elif model_type == "flux":
        from .strategies.flux_strategy import FluxStrategy
        return FluxStrategy()
    elif model_type == "sd3":
        from .strategies.sd3_strategy import SD3Strategy
        return SD3Strategy()
    elif model_type in ("controlnet_sd15", "controlnet_sdxl"):
        from .strategies.controlnet_strategy import ControlNetStrategy
        return ControlNetStrategy()
    elif model_type == "video":
        from .strategies.video_strategy import VideoStrategy
        return VideoStrategy()
    elif model_type == "hidream":
        from .strategies.hidream_strategy import HiDreamStrategy
        return HiDreamStrategy()
    elif model_type == "gguf":
        from .strategies.gguf_strategy import GGUFStrategy
        return GGUFStrategy()
    elif model_type == "generic":
        from .strategies.generic_strategy import GenericPipelineStrategy
        return GenericPipelineStrategy()
    elif model_type == "mlx":
        # Apple-Silicon-native inference via mflux. See issue #7.
        from .strategies.mlx_strategy import MLXStrategy
        return MLXStrategy()
    elif model_type == "ltx-video-mlx":
        # LTX-2 video on Apple Silicon, through the ltx-2-mlx CLI.
        from .strategies.ltx_video_strategy import LTXVideoMLXStrategy
        return LTXVideoMLXStrategy()
    elif model_type == "diffusers-video":
        # Wan and LTX-2 through diffusers — the video path off Apple Silicon.
        from .strategies.diffusers_video_strategy import DiffusersVideoStrategy
        return DiffusersVideoStrategy()
    else:
        raise ValueError(f"Unsupported model type: {model_type}")


def _backend(model_type: Optional[str], device: Optional[str]) -> Optional[str]:
    """Where a model's memory is counted (see InferenceEngine._memory_backend)."""
    if model_type == "mlx":
        return "mlx"
    if model_type in ("ltx-video-mlx", "gguf"):
        # Another process, or stable-diffusion.cpp's own allocations: PyTorch
        # and MLX would count next to nothing.
        return None
    return device if device in ("cuda", "mps") else None


def _detect_device() -> str:
    """Automatically detect the best available device."""
    import torch

    if torch.cuda.is_available():
        device = "cuda"
        logger.debug(f"CUDA device count: {torch.cuda.device_count()}")
    elif torch.backends.mps.is_available():
        device = "mps"
    else:
        device = "cpu"

    logger.info(f"Using device: {device}")
    if device == "cpu":
        logger.warning("Using CPU - inference will be slower")
    return device


class InferenceEngine:
    """
    Facade engine that delegates to model-type-specific strategies.

    This class maintains backward compatibility with the previous monolithic
    InferenceEngine API while cleanly separating concerns into per-model strategies.
    """

    def __init__(self):
        self._strategy: Optional[InferenceStrategy] = None
        self.model_config: Optional[ModelConfig] = None
        self.device: Optional[str] = None
        # The memory this model holds while it stays loaded, by the backend's
        # count of what its load and its jobs left behind — what unloading it
        # gives back. None when there is no telling.
        self.held_bytes: Optional[int] = None

    # -- Backward-compatible properties --

    @property
    def pipeline(self):
        """Access the underlying pipeline (backward compat)."""
        return self._strategy.pipeline if self._strategy else None

    @property
    def current_lora(self):
        return self._strategy.current_lora if self._strategy else None

    @property
    def is_controlnet_pipeline(self) -> bool:
        return getattr(self._strategy, "is_controlnet_pipeline", False)

    # -- Core API --

    def load_model(self, model_config: ModelConfig) -> bool:
        """Load a model using the appropriate strategy."""
        try:
            if not model_config or not model_config.path:
                logger.error("Invalid model configuration")
                return False

            # Only check existence for local paths, not HuggingFace Hub IDs
            # Hub IDs look like "org/model-name", local paths start with / . or ~
            from pathlib import Path
            model_path = model_config.path
            is_local_path = model_path.startswith(("/", ".", "~")) or (len(model_path) > 1 and model_path[1] == ":")
            if is_local_path and not Path(model_path).expanduser().exists():
                logger.error(f"Model path does not exist: {model_path}")
                return False

            # Detect GGUF models by variant
            model_type = model_config.model_type
            if model_config.variant and "gguf" in model_config.variant.lower():
                model_type = "gguf"

            self.device = _detect_device()
            self._strategy = _get_strategy(model_type)

            from ..utils import memory_record
            backend = _backend(model_type, self.device)
            before = memory_record.in_use(backend)
            if self._strategy.load(model_config, self.device):
                self.model_config = model_config
                # Update device in case strategy fell back to CPU
                self.device = self._strategy.device
                after = memory_record.in_use(backend)
                if None not in (before, after):
                    self.held_bytes = max(0, after - before)
                elif model_type == "ltx-video-mlx":
                    self.held_bytes = 0  # it renders in a process of its own, per job
                _LOADED.add(self)
                logger.info(f"Model {model_config.name} loaded successfully via {type(self._strategy).__name__}")
                return True

            self._strategy = None
            return False

        except Exception as e:
            logger.error(f"Failed to load model: {e}")
            self._strategy = None
            return False

    def generate_image(
        self,
        prompt: str,
        negative_prompt: str = "low quality, bad anatomy, worst quality, low resolution",
        num_inference_steps: Optional[int] = None,
        guidance_scale: Optional[float] = None,
        width: int = 1024,
        height: int = 1024,
        seed: Optional[int] = None,
        control_image: Optional[Union[Image.Image, str]] = None,
        controlnet_conditioning_scale: float = 1.0,
        control_guidance_start: float = 0.0,
        control_guidance_end: float = 1.0,
        image: Optional[Image.Image] = None,
        mask_image: Optional[Image.Image] = None,
        strength: Optional[float] = None,
        **kwargs,
    ) -> Image.Image:
        """Generate an image using the current strategy.

        ``strength`` has no default on purpose. It used to be 0.75 and was
        forwarded whenever an image was present, so every editor got it
        whether or not the caller said anything — and a strength is a
        fraction of the step count. On FLUX.2 klein, which denoises in four
        steps, 0.75 leaves one step and the model returns confetti; the
        endpoint had already stopped sending a default when this one put it
        back. Models that want a default have their own.
        """
        if not self._strategy:
            raise RuntimeError("No model loaded")

        # Build kwargs to pass through
        gen_kwargs = dict(kwargs)

        # Pass img2img / inpainting params
        if image is not None:
            gen_kwargs["image"] = image
        if mask_image is not None:
            gen_kwargs["mask_image"] = mask_image
        if (image is not None or mask_image is not None) and strength is not None:
            gen_kwargs["strength"] = strength

        # Pass ControlNet params
        if control_image is not None:
            gen_kwargs["control_image"] = control_image
            gen_kwargs["controlnet_conditioning_scale"] = controlnet_conditioning_scale
            gen_kwargs["control_guidance_start"] = control_guidance_start
            gen_kwargs["control_guidance_end"] = control_guidance_end

        with self._metered() as meter:
            image = self._strategy.generate(
                prompt=prompt,
                negative_prompt=negative_prompt,
                num_inference_steps=num_inference_steps,
                guidance_scale=guidance_scale,
                width=width,
                height=height,
                seed=seed,
                **gen_kwargs,
            )
        # A strategy that failed returns a card with the error drawn on it
        # (base._create_error_image). Passed on, it is a success that isn't
        # one; the API, the web UI and one-off jobs all report an exception.
        error = getattr(image, "info", {}).get("ollamadiffuser_error")
        if error:
            raise RuntimeError(error)
        # What it took, for the memory check the next time it loads.
        from ..utils import memory_record
        memory_record.record(getattr(self.model_config, "name", None), meter.peak_bytes, width, height)
        return image

    def _memory_backend(self) -> Optional[str]:
        """Where this model's memory is counted: MLX for mflux models, the
        PyTorch device for the rest; None for one that renders in another
        process (LTX-2 through the ltx-2-mlx CLI) or on the CPU."""
        return _backend(getattr(self.model_config, "model_type", None), self.device)

    @contextlib.contextmanager
    def _metered(self):
        """Measure the work inside: this model's share of the peak, and what
        it holds afterwards."""
        from ..utils import memory_record

        backend = self._memory_backend()
        others = sum(e.held_bytes or 0 for e in list(_LOADED)
                     if e is not self and e._memory_backend() == backend)
        meter = memory_record.Meter(backend, held=self.held_bytes, others=others)
        try:
            with meter:
                yield meter
        finally:
            self.held_bytes = meter.held_after

    @contextlib.contextmanager
    def _tracked(self):
        """Keep held_bytes right across work that changes the weights (a LoRA
        rebuilds an mflux model)."""
        from ..utils import memory_record

        backend = self._memory_backend()
        before = memory_record.in_use(backend)
        try:
            yield
        finally:
            after = memory_record.in_use(backend)
            if None not in (self.held_bytes, before, after):
                self.held_bytes = max(0, self.held_bytes + after - before)

    def generate_video(
        self,
        prompt: str,
        output: Optional[str] = None,
        seconds: Optional[float] = None,
        **kwargs,
    ):
        """Generate a video with the current strategy, and return its path.

        Separate from ``generate_image`` rather than a flag on it: a video is
        a file with a duration and a frame rate, and the strategies that make
        one take different arguments from the ones that make a picture. A
        model that cannot do this says so here, before anything downloads.
        """
        if not self._strategy:
            raise RuntimeError("No model loaded")
        if not hasattr(self._strategy, "generate_video"):
            name = getattr(self.model_config, "name", "this model")
            raise RuntimeError(
                f"{name} is not a video model — load a video entry (model type "
                f"ltx-video-mlx on Apple Silicon, diffusers-video elsewhere; see "
                f"`ollamadiffuser registry list`) to generate video."
            )
        from ..utils import memory_record

        with self._metered() as meter:
            path = self._strategy.generate_video(
                prompt=prompt, output=output, seconds=seconds, **kwargs
            )
        memory_record.record(getattr(self.model_config, "name", None), meter.peak_bytes,
                             kwargs.get("width"), kwargs.get("height"))
        return path

    def unload(self):
        """Unload the current model and free resources."""
        _LOADED.discard(self)
        if self._strategy:
            self._strategy.unload()
            self._strategy = None
        self.model_config = None
        self.device = None
        self.held_bytes = None
        logger.info("Engine unloaded")

    def is_loaded(self) -> bool:
        """Check if a model is loaded."""
        return self._strategy is not None and self._strategy.is_loaded

    def get_model_info(self) -> Optional[Dict[str, Any]]:
        """Get information about the currently loaded model."""
        if not self._strategy:
            return None
        info = self._strategy.get_info()
        info["strategy"] = type(self._strategy).__name__
        return info

    # -- LoRA support --

    def load_lora_runtime(
        self, repo_id: str, weight_name: str = None, scale: float = 1.0
    ) -> bool:
        """Load LoRA weights at runtime."""
        if not self._strategy:
            raise RuntimeError("No model loaded")
        with self._tracked():
            return self._strategy.load_lora_runtime(repo_id, weight_name, scale)

    def unload_lora(self) -> bool:
        """Unload current LoRA weights."""
        if not self._strategy:
            return False
        with self._tracked():
            return self._strategy.unload_lora()
