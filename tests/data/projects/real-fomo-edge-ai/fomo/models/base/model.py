"""
Base model class for FOMO model wrappers.

Provides shared functionality for all YOLO model variants.
"""

from __future__ import annotations

import functools
import inspect
import logging
import re
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Callable, ClassVar, Dict, Generator, List, Optional, Tuple, Type, Union

import torch
import torch.nn as nn
from PIL import Image
from torchvision.ops import batched_nms

from ...tasks import (
    detect_task_suffix,
    normalize_task,
    resolve_task,
    task_suffix_pattern,
    task_to_suffix,
)
from ...training.config import TrainConfig, load_train_cfg
from ...utils.general import COCO_CLASSES
from ...utils.image_loader import ImageInput
from ...utils.logging import ensure_default_logging
from ...utils.results import Results
from ...utils.serialization import (
    REQUIRED_CHECKPOINT_METADATA_KEYS,
    load_untrusted_torch_file,
    validate_checkpoint_metadata,
)
from ...validation.preprocessors import StandardValPreprocessor

logger = logging.getLogger(__name__)


# Keys that come from the model wrapper instance (``self.size``,
# ``self.nb_classes``) and are passed explicitly to the family trainer. If a
# cfg yaml carries them too, they would collide with the explicit kwargs and
# raise ``TypeError: got multiple values``. ``TrainConfig.to_yaml()`` writes
# both, so a user-generated starter yaml hits this naturally.
_WRAPPER_OWNED_CFG_KEYS = frozenset({"size", "num_classes"})


def _wrap_train_with_cfg(train_fn: Callable) -> Callable:
    """Decorate a family ``train()`` method to accept ``cfg='path/to/yaml'``.

    Loads the yaml as a dict and merges it into kwargs with user-provided
    kwargs winning. Keys consumed by positional args (and a small set of
    wrapper-owned keys like ``size``/``num_classes``) are dropped from the
    cfg dict to avoid ``TypeError: got multiple values``.
    """
    sig = inspect.signature(train_fn)
    pos_names = [
        p.name
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if pos_names and pos_names[0] == "self":
        pos_names = pos_names[1:]

    @functools.wraps(train_fn)
    def wrapper(self, *args, cfg=None, **user_kwargs):
        if cfg is None:
            return train_fn(self, *args, **user_kwargs)
        cfg_kwargs = load_train_cfg(cfg)
        consumed = set(pos_names[: len(args)]) | _WRAPPER_OWNED_CFG_KEYS
        merged = {k: v for k, v in cfg_kwargs.items() if k not in consumed}
        merged.update(user_kwargs)
        return train_fn(self, *args, **merged)

    wrapper._fomo_cfg_wrapped = True  # type: ignore[attr-defined]
    return wrapper


class BaseModel(ABC):
    """Abstract base class for FOMO model wrappers.

    Subclasses must implement the abstract methods to provide model-specific
    behavior for initialization, forward pass, and postprocessing.

    Class constants subclasses should set:
        FAMILY: Model family identifier (e.g. "yolox").
        FILENAME_PREFIX: Prefix for weight filenames (e.g. "FOMOX").
        INPUT_SIZES: Mapping of size code to input resolution.
        TRAIN_CONFIG: TrainConfig subclass with family-specific defaults.
        val_preprocessor_class: Preprocessor class for validation.
    """

    # Class-level model metadata — subclasses override these
    FAMILY: ClassVar[str] = ""
    FILENAME_PREFIX: ClassVar[str] = ""
    WEIGHT_EXT: ClassVar[str] = ".pt"
    INPUT_SIZES: ClassVar[dict[str, int]] = {}
    SUPPORTED_TASKS: ClassVar[tuple[str, ...]] = ("point",)
    DEFAULT_TASK: ClassVar[str] = "point"
    TASK_INPUT_SIZES: ClassVar[dict[str, dict[str, int]]] = {}
    TRAIN_CONFIG: ClassVar[Optional[type[TrainConfig]]] = None
    val_preprocessor_class = StandardValPreprocessor

    # TTA policy — subclasses may override
    TTA_ENABLED: ClassVar[bool] = True
    # True for families that resize to a fixed square regardless of input size
    # (DETR-style). Multi-scale TTA is a no-op for them; only flip adds value.
    TTA_FIXED_SIZE: ClassVar[bool] = False
    # Scale factors applied to the PIL image before each TTA pass.
    # Each scale × 2 flips = N passes. Default (1.0,) is flip-only.
    # Override with e.g. (0.83, 1.0, 1.33) for 6-pass multi-scale TTA.
    # Ignored when TTA_FIXED_SIZE is True.
    TTA_SCALES: ClassVar[Tuple[float, ...]] = (1.0,)

    # Model registry — auto-populated by __init_subclass__
    _registry: ClassVar[List[Type["BaseModel"]]] = []

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if (
            hasattr(cls, "can_load")
            and not getattr(cls.can_load, "__isabstractmethod__", False)
            and cls not in BaseModel._registry
        ):
            BaseModel._registry.append(cls)

        if "train" in cls.__dict__ and not getattr(
            cls.train, "_fomo_cfg_wrapped", False
        ):
            cls.train = _wrap_train_with_cfg(cls.train)

    # =========================================================================
    # Initialization
    # =========================================================================

    def __init__(
        self,
        model_path: Union[str, dict, None],
        size: str,
        nb_classes: int = 80,
        device: str = "auto",
        task: str | None = None,
        **kwargs,
    ):
        ensure_default_logging()
        self.family = self.FAMILY
        self.task = self._resolve_task(task)
        valid_sizes = self._get_valid_sizes()
        if size not in valid_sizes:
            raise ValueError(
                f"Invalid size: {size}. Must be one of: {', '.join(valid_sizes)}"
            )

        if device == "auto":
            if torch.cuda.is_available():
                self.device = torch.device("cuda")
            elif torch.backends.mps.is_available():
                self.device = torch.device("mps")
            else:
                self.device = torch.device("cpu")
        else:
            self.device = torch.device(device)

        self.size = size
        self.nb_classes = nb_classes
        self.input_size = self._get_task_input_sizes()[size]

        if nb_classes == 80:
            self.names: Dict[int, str] = {i: n for i, n in enumerate(COCO_CLASSES)}
        else:
            self.names: Dict[int, str] = {i: f"class_{i}" for i in range(nb_classes)}

        for key, value in kwargs.items():
            setattr(self, key, value)

        # Resolve bare filenames (e.g. "FOMOXn.pt") to weights/ directory
        # so direct instantiation works the same as the factory.
        if isinstance(model_path, str):
            model_path = self._resolve_weights_path(model_path)

        # Signal _init_model that weights will be loaded immediately after, so
        # subclasses can skip pretrained backbone downloads that would be wasted.
        self._loading_from_weights = isinstance(model_path, (str, Path, dict))
        try:
            self.model = self._init_model()
        finally:
            self._loading_from_weights = False

        if model_path is None:
            self.model_path = None
        elif isinstance(model_path, dict):
            self.model_path = None
            self.model.load_state_dict(model_path, strict=self._strict_loading())
        else:
            self.model_path = model_path

        if model_path is None:
            self.model.train()
        else:
            self.model.eval()
        self.model.to(self.device)

    @staticmethod
    def _resolve_weights_path(model_path: str) -> str:
        """Resolve bare filenames (e.g. ``FOMOXn.pt``) to ``weights/`` dir."""
        path = Path(model_path)
        if path.parent == Path(".") and not model_path.startswith(("./", "../")):
            weights_path = Path("weights") / path.name
            if weights_path.exists():
                return str(weights_path)
            if path.exists():
                return str(path)
            return str(weights_path)
        return model_path

    # =========================================================================
    # Abstract interface — subclasses must implement
    # =========================================================================

    @abstractmethod
    def _init_model(self) -> nn.Module:
        """Initialize and return the neural network model."""
        pass

    @abstractmethod
    def _get_available_layers(self) -> Dict[str, nn.Module]:
        """Return mapping of layer names to module objects."""
        pass

    @staticmethod
    @abstractmethod
    def _get_preprocess_numpy():
        """Return the ``preprocess_numpy(img_rgb_hwc, input_size)`` callable for this model family."""
        pass

    @abstractmethod
    def _preprocess(
        self,
        image: ImageInput,
        color_format: str = "auto",
        input_size: Optional[int] = None,
    ) -> Tuple[torch.Tensor, Image.Image, Tuple[int, int], float]:
        """Preprocess image for inference.

        Returns:
            Tuple of (input_tensor, original_image, original_size, ratio).
        """
        pass

    @abstractmethod
    def _forward(self, input_tensor: torch.Tensor) -> Any:
        """Run model forward pass."""
        pass

    @abstractmethod
    def _postprocess(
        self,
        output: Any,
        conf_thres: float,
        iou_thres: float,
        original_size: Tuple[int, int],
        max_det: int = 300,
        ratio: float = 1.0,
        **kwargs,
    ) -> Dict:
        """Postprocess model output to detections."""
        pass

    # =========================================================================
    # Concrete defaults — subclasses may override
    # =========================================================================

    def _get_valid_sizes(self) -> List[str]:
        return list(self._get_task_input_sizes().keys())

    @classmethod
    def _supported_tasks(cls) -> tuple[str, ...]:
        return tuple(normalize_task(task) for task in cls.SUPPORTED_TASKS)

    def _resolve_task(self, task: str | None) -> str:
        return resolve_task(
            explicit_task=task,
            default_task=self.DEFAULT_TASK,
            supported_tasks=self.SUPPORTED_TASKS,
        )

    def _get_task_input_sizes(self) -> dict[str, int]:
        if self.TASK_INPUT_SIZES:
            return self.TASK_INPUT_SIZES.get(self.task, self.INPUT_SIZES)
        return self.INPUT_SIZES

    def _get_model_name(self) -> str:
        return self.FAMILY

    def _get_input_size(self) -> int:
        return self.input_size

    def _strict_loading(self) -> bool:
        """Return whether to use strict mode when loading weights."""
        return True

    def _prepare_state_dict(self, state_dict: dict) -> dict:
        """Transform state dict keys before loading.

        Override in subclasses that need to remap legacy key names.
        """
        return state_dict

    def _rebuild_for_new_classes(self, new_nb_classes: int):
        """Rebuild model with a new class count, preserving weights where shapes match."""
        old_state = self.model.state_dict()
        self.nb_classes = new_nb_classes
        self.names = {i: f"class_{i}" for i in range(new_nb_classes)}
        # Signal _init_model to skip pretrained backbone downloads — old_state
        # already holds all backbone weights which are restored below, so
        # downloading pretrained weights here is pure waste.
        self._in_rebuild = True
        try:
            self.model = self._init_model()
        finally:
            self._in_rebuild = False

        new_state = self.model.state_dict()
        for key in old_state:
            if key in new_state and old_state[key].shape == new_state[key].shape:
                new_state[key] = old_state[key]

        self.model.load_state_dict(new_state)
        self.model.to(self.device)
        self.model.eval()

    @classmethod
    def _filename_regex(cls) -> Optional[re.Pattern]:
        """Compile regex for matching weight filenames with optional task suffix."""
        if not cls.INPUT_SIZES or not cls.FILENAME_PREFIX:
            return None
        all_sizes = set(cls.INPUT_SIZES)
        for task_sizes in cls.TASK_INPUT_SIZES.values():
            all_sizes.update(task_sizes)
        sizes = sorted(all_sizes, key=len, reverse=True)
        sizes_pattern = "|".join(re.escape(size) for size in sizes)
        prefix = cls.FILENAME_PREFIX.lower()
        ext = re.escape(cls.WEIGHT_EXT)
        suffixes = task_suffix_pattern(cls.SUPPORTED_TASKS)
        suffix_group = rf"(?P<task>{suffixes})?" if suffixes else ""
        return re.compile(
            rf"{prefix}(?P<size>{sizes_pattern}){suffix_group}{ext}"
        )

    @classmethod
    def detect_size_from_filename(cls, filename: str) -> Optional[str]:
        """Extract model size from a weight filename."""
        pattern = cls._filename_regex()
        if pattern is None:
            return None
        m = pattern.search(filename.lower())
        return m.group("size") if m else None

    @classmethod
    def detect_task_from_filename(cls, filename: str) -> Optional[str]:
        """Extract canonical task from a weight filename (e.g. '-seg' -> 'segment')."""
        pattern = cls._filename_regex()
        if pattern is None:
            return detect_task_suffix(filename)
        m = pattern.search(filename.lower())
        task_suffix = m.groupdict().get("task") if m else None
        if task_suffix:
            return normalize_task(task_suffix.lstrip("-"))
        return None

    @classmethod
    def get_download_url(cls, filename: str) -> Optional[str]:
        """Return the Hugging Face download URL for the given weight filename."""
        size = cls.detect_size_from_filename(filename)
        if size is None:
            return None
        task = cls.detect_task_from_filename(filename)
        task_suffix = task_to_suffix(task)
        suffix = f"-{task_suffix}" if task_suffix else ""
        name = f"{cls.FILENAME_PREFIX}{size}{suffix}"
        return f"https://huggingface.co/fomo-edge-ai/FOMO/resolve/main/weights/{name}{cls.WEIGHT_EXT}"

    def _get_val_preprocessor(self, img_size: int | None = None):
        """Return the validation preprocessor for this model."""
        if img_size is None:
            img_size = self._get_input_size()
        return self.val_preprocessor_class(img_size=(img_size, img_size))

    # =========================================================================
    # Weight loading internals
    # =========================================================================

    @staticmethod
    def _strip_ddp_prefix(state_dict: dict) -> dict:
        """Strip 'module.' prefix from DDP-wrapped state_dict keys."""
        if any(k.startswith("module.") for k in state_dict):
            return {k.removeprefix("module."): v for k, v in state_dict.items()}
        return state_dict

    @staticmethod
    def _sanitize_names(names: dict, nc: int) -> Dict[int, str]:
        """Sanitize a class names dict: ensure int keys, fill gaps, trim to nc."""
        sanitized = {}
        for k, v in names.items():
            try:
                sanitized[int(k)] = str(v)
            except (ValueError, TypeError):
                continue

        result = {}
        for i in range(nc):
            result[i] = sanitized.get(i, f"class_{i}")
        return result

    def _load_weights(self, model_path: str):
        """Load model weights from file.

        Handles raw state_dicts and training checkpoint dicts.
        Auto-rebuilds model architecture if checkpoint has different nc.
        Also handles DDP prefix stripping and cross-family rejection.
        """
        path = Path(model_path)
        if not path.exists() and path.parent == Path("."):
            weights_path = Path("weights") / path.name
            if weights_path.exists():
                model_path = str(weights_path)
                path = weights_path

        if not path.exists():
            from ...utils.download import download_weights

            download_weights(model_path, self.size)
            path = Path(model_path)

        if not path.exists():
            raise FileNotFoundError(f"Model weights not found at {model_path}")
        try:
            loaded = load_untrusted_torch_file(
                model_path,
                map_location="cpu",
                context="model weights",
            )

            if isinstance(loaded, dict):
                metadata_keys = set(REQUIRED_CHECKPOINT_METADATA_KEYS) - {"model"}
                if metadata_keys & set(loaded):
                    metadata_errors = validate_checkpoint_metadata(
                        loaded,
                        strict=False,
                    )
                    if metadata_errors:
                        logger.warning(
                            "FOMO checkpoint metadata is missing or incomplete "
                            "for %s: %s. Loading through the legacy compatibility path.",
                            model_path,
                            "; ".join(metadata_errors),
                        )
                if "model" in loaded:
                    state_dict = loaded["model"]
                elif "state_dict" in loaded:
                    state_dict = loaded["state_dict"]
                else:
                    state_dict = loaded

                state_dict = self._strip_ddp_prefix(state_dict)

                # Reject cross-family loading
                own_family = self._get_model_name()
                ckpt_family = loaded.get("model_family", "")
                if ckpt_family and ckpt_family != own_family:
                    raise RuntimeError(
                        f"Checkpoint was trained with model_family='{ckpt_family}' "
                        f"but is being loaded into '{own_family}'. "
                        f"Use the correct model class for this checkpoint."
                    )

                ckpt_task = loaded.get("task")
                if ckpt_task is not None:
                    normalized_ckpt_task = normalize_task(ckpt_task)
                    if normalized_ckpt_task != self.task:
                        raise RuntimeError(
                            f"Checkpoint was trained for task='{normalized_ckpt_task}' "
                            f"but this model was initialized for task='{self.task}'. "
                            "Pass the matching task or use the correct checkpoint."
                        )

                ckpt_nc = loaded.get("nc")
                ckpt_names = loaded.get("names")

                # Infer nc from names if missing from checkpoint
                if ckpt_nc is None and ckpt_names is not None:
                    ckpt_nc = len(ckpt_names)

                # Infer nc from existing tensor detect_nb_classes
                if ckpt_nc is None and hasattr(self, "detect_nb_classes"):
                    ckpt_nc = self.detect_nb_classes(state_dict)

                if ckpt_nc is not None and ckpt_nc != self.nb_classes:
                    self._rebuild_for_new_classes(ckpt_nc)

                effective_nc = ckpt_nc if ckpt_nc is not None else self.nb_classes
                if ckpt_names is not None:
                    self.names = self._sanitize_names(ckpt_names, effective_nc)
            else:
                state_dict = loaded

            self.model.load_state_dict(state_dict, strict=self._strict_loading())
        except Exception as e:
            raise RuntimeError(
                f"Failed to load model weights from {model_path}: {e}"
            ) from e

    # =========================================================================
    # Public API
    # =========================================================================

    def get_available_layer_names(self) -> List[str]:
        """Get list of available layer names."""
        return sorted(self._get_available_layers().keys())

    @property
    def _runner(self):
        if not hasattr(self, "_runner_instance") or self._runner_instance is None:
            from .inference import InferenceRunner

            self._runner_instance = InferenceRunner(self)
        return self._runner_instance

    def __call__(
        self, source=None, **kwargs
    ) -> Union[Results, List[Results], Generator[Results, None, None]]:
        return self._runner(source, **kwargs)

    def predict(
        self, *args, **kwargs
    ) -> Union[Results, List[Results], Generator[Results, None, None]]:
        """Alias for __call__ method."""
        return self(*args, **kwargs)
    
    def _predict_augment(
        self,
        image,
        conf: float = 0.25,
        iou: float = 0.45,
        imgsz: Optional[int] = None,
        classes: Optional[List[int]] = None,
        max_det: int = 300,
        color_format: str = "auto",
        **kwargs,
    ) -> Results:
        """Run TTA inference and merge via per-class NMS.

        Scales are read from TTA_SCALES (class variable); each scale x 2 flips
        = one batch of passes. TTA_FIXED_SIZE models always use flip-only.
        """
        from PIL import Image as PILImage
        from ...utils.image_loader import ImageLoader

        effective_imgsz = imgsz if imgsz is not None else self._get_input_size()
        img_pil = ImageLoader.load(image, color_format=color_format)
        image_path = image if isinstance(image, (str, Path)) else None
        orig_w, orig_h = img_pil.size

        scales = (1.0,) if self.TTA_FIXED_SIZE else self.TTA_SCALES

        aug_dets = []
        for scale in scales:
            if scale == 1.0:
                scaled = img_pil
            else:
                scaled = img_pil.resize(
                    (int(orig_w * scale), int(orig_h * scale)),
                    PILImage.Resampling.BILINEAR,
                )
            for is_flipped in (False, True):
                src = scaled.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT) if is_flipped else scaled
                tensor, _, orig_size, ratio = self._preprocess(
                    src, color_format, input_size=effective_imgsz
                )
                with torch.no_grad():
                    raw = self._forward(tensor.to(self.device))
                det = self._postprocess(
                    raw, conf, iou, orig_size, max_det=max_det, ratio=ratio, **kwargs
                )
                aug_dets.append((det, orig_size, is_flipped, scale))

        return self._merge_tta(aug_dets, iou, image_path, (orig_w, orig_h), classes)

    def _merge_tta(
        self,
        aug_dets: list,
        iou_thres: float,
        image_path,
        original_size: Tuple[int, int],
        classes: Optional[List[int]] = None,
    ) -> Results:
        """Merge TTA detections from multiple augmented views via per-class NMS."""
        from ...utils.results import Boxes, Masks, Results

        orig_w, orig_h = original_size
        orig_shape = (orig_h, orig_w)

        all_boxes: List[torch.Tensor] = []
        all_scores: List[torch.Tensor] = []
        all_classes: List[torch.Tensor] = []
        all_masks: List[Optional[torch.Tensor]] = []
        has_masks = False

        for det, orig_size, is_flipped, scale in aug_dets:
            if det["num_detections"] == 0:
                continue

            w = orig_size[0]  # width of the (possibly scaled) augmented image
            boxes = torch.as_tensor(det["boxes"], dtype=torch.float32)
            scores = torch.as_tensor(det["scores"], dtype=torch.float32)
            cls = torch.as_tensor(det["classes"], dtype=torch.float32)

            if is_flipped:
                boxes = torch.stack(
                    [w - boxes[:, 2], boxes[:, 1], w - boxes[:, 0], boxes[:, 3]],
                    dim=1,
                )

            if scale != 1.0:
                boxes = boxes / scale
                orig_w_val, orig_h_val = original_size
                boxes[:, 0::2].clamp_(0, orig_w_val)
                boxes[:, 1::2].clamp_(0, orig_h_val)

            raw_m = det.get("masks")
            m = None
            # Masks in scaled views are in the wrong pixel space; skip them
            if raw_m is not None and scale == 1.0:
                has_masks = True
                m = raw_m if isinstance(raw_m, torch.Tensor) else torch.as_tensor(raw_m)
                if is_flipped:
                    m = m.flip(-1)

            all_boxes.append(boxes)
            all_scores.append(scores)
            all_classes.append(cls)
            all_masks.append(m)

        def _empty_results():
            return Results(
                boxes=Boxes(
                    torch.zeros((0, 4), dtype=torch.float32),
                    torch.zeros(0, dtype=torch.float32),
                    torch.zeros(0, dtype=torch.float32),
                ),
                orig_shape=orig_shape,
                path=str(image_path) if image_path else None,
                names=self.names,
            )

        if not all_boxes:
            return _empty_results()

        masks_cat: Optional[torch.Tensor] = None
        if has_masks:
            # Drop aug views that returned boxes but no masks to keep rows aligned
            paired = [
                (b, s, c, m)
                for b, s, c, m in zip(all_boxes, all_scores, all_classes, all_masks)
                if m is not None
            ]
            if paired:
                all_boxes, all_scores, all_classes, mask_list = map(list, zip(*paired))
                masks_cat = torch.cat(mask_list, dim=0)

        boxes_cat = torch.cat(all_boxes, dim=0)
        scores_cat = torch.cat(all_scores, dim=0)
        classes_cat = torch.cat(all_classes, dim=0)

        # Drop non-finite rows — batched_nms is undefined on NaN/Inf inputs.
        finite_mask = torch.isfinite(boxes_cat).all(dim=1) & torch.isfinite(scores_cat)
        if not finite_mask.all():
            boxes_cat = boxes_cat[finite_mask]
            scores_cat = scores_cat[finite_mask]
            classes_cat = classes_cat[finite_mask]
            if masks_cat is not None:
                masks_cat = masks_cat[finite_mask]
            if boxes_cat.numel() == 0:
                return _empty_results()

        # Shift to non-negative coords — batched_nms's class-offset trick
        # uses (boxes.max() + 1), which only separates classes when all
        # coords are non-negative. Translation-invariant for IoU.
        nms_boxes = boxes_cat - boxes_cat.min().clamp(max=0)
        # Per-class NMS in a single batched dispatch (class-offset trick).
        keep = batched_nms(nms_boxes, scores_cat, classes_cat.long(), iou_thres)
        if len(keep) == 0:
            return _empty_results()
        final_boxes = boxes_cat[keep]
        final_scores = scores_cat[keep]
        final_classes = classes_cat[keep]

        if classes is not None:
            cls_mask = torch.zeros(len(final_classes), dtype=torch.bool)
            for cid in classes:
                cls_mask |= final_classes == cid
            final_boxes = final_boxes[cls_mask]
            final_scores = final_scores[cls_mask]
            final_classes = final_classes[cls_mask]
            keep = keep[cls_mask]

        masks_obj = None
        if masks_cat is not None:
            masks_obj = Masks(masks_cat[keep], orig_shape)

        return Results(
            boxes=Boxes(final_boxes, final_scores, final_classes),
            orig_shape=orig_shape,
            path=str(image_path) if image_path else None,
            names=self.names,
            masks=masks_obj,
        )



    def export(
        self,
        *,
        output_path: Optional[str] = None,
        batch: int = 1,
    ) -> str:
        """Export this model to a TFLite FP32 flatbuffer via litert-torch.

        Requires ``litert-torch`` (``pip install litert-torch``).

        Args:
            output_path: Destination ``.tflite`` file path.  When ``None``,
                defaults to ``model_fp32.tflite`` in the current directory.
            batch: Batch size for the tracing dummy input (default ``1``).

        Returns:
            Path string to the written ``.tflite`` file.

        Example::

            from fomo import FOMO

            model = FOMO("FOMOm.pt")
            fp32_path = model.export(output_path="weights/fomom_fp32.tflite")
        """
        from fomo.export import TFLiteExporter

        exporter = TFLiteExporter()
        result = exporter(self.model, self.input_size, output_path=output_path, batch=batch)
        return str(result)

    def val(
        self,
        data: str | None = None,
        batch: int = 16,
        imgsz: int | None = None,
        conf: float = 0.001,
        iou: float = 0.6,
        workers: int = 4,
        allow_download_scripts: bool = False,
        device: str | None = None,
        split: str = "val",
        augment: bool = False,
        save_json: bool = False,
        verbose: bool = True,
        **kwargs,
    ) -> Dict:
        """Run validation on a dataset.

        Args:
            data: Path to data.yaml file.
            batch: Batch size.
            imgsz: Image size (defaults to model's native input size).
            conf: Confidence threshold.
            iou: IoU threshold for NMS.
            workers: Number of dataloader workers.
            allow_download_scripts: Allow embedded Python in dataset YAML downloads.
            device: Device to use (default: same as model).
            split: Dataset split ("val", "test").
            save_json: Save predictions in COCO JSON format.
            verbose: Print detailed metrics.

        Returns:
            Dictionary with metrics/precision, metrics/recall,
            metrics/mAP50, metrics/mAP50-95.
        """
        from fomo.validation import (
            PointValidator,
            ValidationConfig,
        )

        if imgsz is None:
            imgsz = self._get_input_size()

        config = ValidationConfig(
            data=data,
            batch_size=batch,
            imgsz=imgsz,
            conf_thres=conf,
            iou_thres=iou,
            num_workers=workers,
            allow_download_scripts=allow_download_scripts,
            device=device or str(self.device),
            split=split,
            augment=augment,
            save_json=save_json,
            verbose=verbose,
            **kwargs,
        )

        if self.task != "point":
            raise ValueError(f"Task '{self.task}' is not supported by FOMO. Only 'point' task is supported.")
        validator = PointValidator(model=self, config=config)
        return validator()
