from __future__ import annotations

from dataclasses import dataclass
import json
import os
from pathlib import Path
from typing import Sequence

from huggingface_hub import hf_hub_download
import numpy as np
from PIL import Image
from safetensors.torch import load_file
import torch
import torch.nn.functional as F

from .model import CervicalSegModel


ImageInput = str | Path | Image.Image | np.ndarray
DEFAULT_REPO_ID = "PlanetSMH/CervicalSeg"
DEFAULT_REVISION = "v0.2.0"
WEIGHTS_FILENAME = "model.safetensors"
CONFIG_FILENAME = "config.json"


@dataclass(slots=True)
class SegmentationResult:
    image: np.ndarray
    mask: np.ndarray
    class_names: tuple[str, ...]
    probabilities: np.ndarray | None = None
    overlay_alpha: float = 0.55

    @property
    def binary_mask(self) -> np.ndarray:
        """Return a display-ready binary mask with values 0 and 255."""
        return (self.mask != 0).astype(np.uint8) * 255

    @property
    def overlay(self) -> np.ndarray:
        result = self.image.copy()
        foreground = self.mask != 0
        lesion_colour = np.asarray((0, 255, 0), dtype=np.uint8)
        blended = (
            (1.0 - self.overlay_alpha) * result[foreground]
            + self.overlay_alpha * lesion_colour
        )
        result[foreground] = np.rint(blended).astype(np.uint8)
        return result

    def save_mask(self, path: str | Path) -> None:
        _save_image(Image.fromarray(self.binary_mask, mode="L"), path)

    def save_overlay(self, path: str | Path) -> None:
        _save_image(Image.fromarray(self.overlay, mode="RGB"), path)


@dataclass(slots=True)
class _PreparedImage:
    original: np.ndarray
    tensor: torch.Tensor
    resized_height: int
    resized_width: int
    top: int
    left: int


def _save_image(image: Image.Image, path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() in {".jpg", ".jpeg"}:
        image.save(path, quality=95, subsampling=0)
    else:
        image.save(path)


def _as_rgb_image(value: ImageInput) -> Image.Image:
    if isinstance(value, (str, Path)):
        with Image.open(value) as image:
            return image.convert("RGB")
    if isinstance(value, Image.Image):
        return value.convert("RGB")
    if not isinstance(value, np.ndarray):
        raise TypeError("image must be a path, PIL image, or RGB NumPy array")

    array = np.asarray(value)
    if array.ndim == 2:
        array = np.repeat(array[:, :, None], 3, axis=2)
    elif array.ndim == 3 and array.shape[2] == 1:
        array = np.repeat(array, 3, axis=2)
    elif array.ndim == 3 and array.shape[2] == 4:
        array = array[:, :, :3]
    if array.ndim != 3 or array.shape[2] != 3:
        raise ValueError(f"Expected HxWx3 RGB image, got shape {array.shape}")
    if np.issubdtype(array.dtype, np.floating):
        if not np.isfinite(array).all():
            raise ValueError("Image contains NaN or infinity")
        if array.size and float(array.max()) <= 1.0:
            array = array * 255.0
    array = np.clip(array, 0, 255).astype(np.uint8)
    return Image.fromarray(array, mode="RGB")


class CervicalSeg:
    """Ready-to-use binary cervical lesion segmentation inference API."""

    def __init__(
        self,
        *,
        weights_path: str | Path | None = None,
        config_path: str | Path | None = None,
        repo_id: str | None = None,
        revision: str = DEFAULT_REVISION,
        cache_dir: str | Path | None = None,
        local_files_only: bool = False,
        token: str | bool | None = None,
        device: str | torch.device = "auto",
        use_amp: bool = True,
    ) -> None:
        weights_path, config_path = self._resolve_assets(
            weights_path=weights_path,
            config_path=config_path,
            repo_id=repo_id,
            revision=revision,
            cache_dir=cache_dir,
            local_files_only=local_files_only,
            token=token,
        )
        payload = json.loads(config_path.read_text(encoding="utf-8"))
        if int(payload.get("format_version", 0)) != 2:
            raise ValueError(f"Unsupported config format: {payload.get('format_version')}")
        self.config = payload["model"]
        self.class_names = tuple(self.config["class_names"])
        if self.class_names != ("background", "lesion"):
            raise ValueError(f"Unexpected class names: {self.class_names}")

        self.device = self._resolve_device(device)
        self.use_amp = bool(use_amp and self.device.type == "cuda")
        self.amp_dtype = (
            torch.bfloat16
            if self.device.type == "cuda" and torch.cuda.is_bf16_supported()
            else torch.float16
        )
        self.model = CervicalSegModel(self.config)
        state = load_file(weights_path.as_posix(), device="cpu")
        state = self._normalize_backbone_keys(state, set(self.model.state_dict()))
        self.model.load_state_dict(state, strict=True)
        self.model.to(self.device).eval()
        self.weights_path = weights_path
        self.config_path = config_path

    @staticmethod
    def _normalize_backbone_keys(
        state: dict[str, torch.Tensor],
        expected_keys: set[str],
    ) -> dict[str, torch.Tensor]:
        """Handle the DINOv3 module rename across Transformers 4.x and 5.x."""
        weight_prefix = "backbone.model.layer."
        legacy_prefix = "backbone.layer."
        weights_use_model = any(key.startswith(weight_prefix) for key in state)
        weights_use_legacy = any(key.startswith(legacy_prefix) for key in state)
        runtime_uses_model = any(key.startswith(weight_prefix) for key in expected_keys)
        runtime_uses_legacy = any(key.startswith(legacy_prefix) for key in expected_keys)

        if weights_use_model and runtime_uses_legacy and not runtime_uses_model:
            return {
                (legacy_prefix + key.removeprefix(weight_prefix))
                if key.startswith(weight_prefix)
                else key: value
                for key, value in state.items()
            }
        if weights_use_legacy and runtime_uses_model and not runtime_uses_legacy:
            return {
                (weight_prefix + key.removeprefix(legacy_prefix))
                if key.startswith(legacy_prefix)
                else key: value
                for key, value in state.items()
            }
        return state

    @staticmethod
    def _resolve_device(device: str | torch.device) -> torch.device:
        if str(device) == "auto":
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        resolved = torch.device(device)
        if resolved.type == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("CUDA was requested but is not available")
        return resolved

    @staticmethod
    def _resolve_assets(
        *,
        weights_path: str | Path | None,
        config_path: str | Path | None,
        repo_id: str | None,
        revision: str,
        cache_dir: str | Path | None,
        local_files_only: bool,
        token: str | bool | None,
    ) -> tuple[Path, Path]:
        environment_path = os.environ.get("CERVICALSEG_WEIGHTS")
        if weights_path is None and environment_path:
            weights_path = environment_path
        if weights_path is not None:
            resolved_weights = Path(weights_path).expanduser().resolve()
            resolved_config = (
                Path(config_path).expanduser().resolve()
                if config_path is not None
                else resolved_weights.with_name(CONFIG_FILENAME)
            )
            if not resolved_weights.is_file():
                raise FileNotFoundError(resolved_weights)
            if not resolved_config.is_file():
                raise FileNotFoundError(resolved_config)
            return resolved_weights, resolved_config

        source_assets = Path(__file__).resolve().parents[2] / "weights"
        source_weights = source_assets / WEIGHTS_FILENAME
        source_config = source_assets / CONFIG_FILENAME
        if repo_id is None and source_weights.is_file() and source_config.is_file():
            return source_weights, source_config

        selected_repo = repo_id or os.environ.get("CERVICALSEG_REPO_ID") or DEFAULT_REPO_ID
        if not selected_repo:
            raise FileNotFoundError(
                "No local CervicalSeg weights were found. Pass weights_path=... or repo_id=..."
            )
        download_options = {
            "repo_id": selected_repo,
            "revision": revision,
            "cache_dir": None if cache_dir is None else str(cache_dir),
            "local_files_only": local_files_only,
            "token": token,
        }
        resolved_weights = Path(
            hf_hub_download(filename=WEIGHTS_FILENAME, **download_options)
        )
        resolved_config = Path(
            hf_hub_download(filename=CONFIG_FILENAME, **download_options)
        )
        return resolved_weights, resolved_config

    def _prepare(self, image: ImageInput) -> _PreparedImage:
        pil_image = _as_rgb_image(image)
        original = np.asarray(pil_image, dtype=np.uint8).copy()
        original_width, original_height = pil_image.size
        target_height, target_width = map(int, self.config["image_size"])
        scale = min(target_width / original_width, target_height / original_height)
        resized_width = max(1, round(original_width * scale))
        resized_height = max(1, round(original_height * scale))
        resized = pil_image.resize((resized_width, resized_height), Image.Resampling.BILINEAR)
        left = (target_width - resized_width) // 2
        top = (target_height - resized_height) // 2
        canvas = Image.new(
            "RGB",
            (target_width, target_height),
            tuple(map(int, self.config["padding_color"])),
        )
        canvas.paste(resized, (left, top))

        array = np.asarray(canvas, dtype=np.float32) / 255.0
        mean = np.asarray(self.config["image_mean"], dtype=np.float32)
        std = np.asarray(self.config["image_std"], dtype=np.float32)
        array = (array - mean) / std
        tensor = torch.from_numpy(array.transpose(2, 0, 1).copy()).float()
        return _PreparedImage(
            original=original,
            tensor=tensor,
            resized_height=resized_height,
            resized_width=resized_width,
            top=top,
            left=left,
        )

    def predict(
        self,
        image: ImageInput,
        *,
        return_probabilities: bool = False,
        overlay_alpha: float = 0.55,
    ) -> SegmentationResult:
        return self.predict_batch(
            [image],
            batch_size=1,
            return_probabilities=return_probabilities,
            overlay_alpha=overlay_alpha,
        )[0]

    def predict_batch(
        self,
        images: Sequence[ImageInput],
        *,
        batch_size: int = 4,
        return_probabilities: bool = False,
        overlay_alpha: float = 0.55,
    ) -> list[SegmentationResult]:
        if not images:
            return []
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if not 0.0 <= overlay_alpha <= 1.0:
            raise ValueError("overlay_alpha must be between 0 and 1")

        results: list[SegmentationResult] = []
        for start in range(0, len(images), batch_size):
            prepared = [self._prepare(image) for image in images[start : start + batch_size]]
            inputs = torch.stack([item.tensor for item in prepared]).to(
                self.device,
                non_blocking=self.device.type == "cuda",
            )
            with torch.inference_mode(), torch.autocast(
                device_type=self.device.type,
                dtype=self.amp_dtype,
                enabled=self.use_amp,
            ):
                logits = self.model(inputs)
            logits = logits.float().cpu()
            predictions = logits.argmax(dim=1)
            probabilities = logits.softmax(dim=1) if return_probabilities else None

            for index, item in enumerate(prepared):
                original_height, original_width = item.original.shape[:2]
                prediction = predictions[
                    index,
                    item.top : item.top + item.resized_height,
                    item.left : item.left + item.resized_width,
                ].numpy().astype(np.uint8)
                prediction = np.asarray(
                    Image.fromarray(prediction, mode="L").resize(
                        (original_width, original_height),
                        Image.Resampling.NEAREST,
                    ),
                    dtype=np.uint8,
                ).copy()

                restored_probabilities: np.ndarray | None = None
                if probabilities is not None:
                    probability = probabilities[
                        index : index + 1,
                        :,
                        item.top : item.top + item.resized_height,
                        item.left : item.left + item.resized_width,
                    ]
                    probability = F.interpolate(
                        probability,
                        size=(original_height, original_width),
                        mode="bilinear",
                        align_corners=False,
                    )
                    restored_probabilities = probability[0].numpy()

                results.append(
                    SegmentationResult(
                        image=item.original,
                        mask=prediction,
                        class_names=self.class_names,
                        probabilities=restored_probabilities,
                        overlay_alpha=overlay_alpha,
                    )
                )
        return results
