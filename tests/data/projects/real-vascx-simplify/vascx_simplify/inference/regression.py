"""Regression ensemble model."""

from typing import Any, Dict, List, Optional, Union

import torch

from ..preprocess import VASCXTransform
from .base import DEFAULT_DEVICE, EnsembleBase


class RegressionEnsemble(EnsembleBase):
    def __init__(
        self,
        fpath: str,
        transforms: VASCXTransform,
        device: Union[torch.device, str] = DEFAULT_DEVICE,
    ):
        super().__init__(fpath, transforms, device)
        self.inference_fn = None
        self.predict_batch_size = (
            1  # Default: process 1 image at a time (no speed benefit from batching)
        )

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        return self.ensemble(img)

    def proba_process(
        self,
        proba: torch.Tensor,
        bounds: Union[Optional[Dict[str, Any]], List],
        is_batch: bool = False,
    ) -> torch.Tensor:
        """Process regression output.

        Args:
            proba: Raw model output [B, M, D] or [B, D]
            bounds: Bounds dict (single) or list of dicts (batch) - unused for regression
            is_batch: Whether input was a batch

        Returns:
            Regression values [B, M, D] or [B, D]
        """
        return proba

    def predict(
        self, img: Union[torch.Tensor, Any, List], batch_size: Optional[int] = None
    ) -> torch.Tensor:
        """Predict with automatic batch splitting for regression.

        Args:
            img: Single image or batch of images
            batch_size: Maximum batch size for inference

        Returns:
            Regression outputs [B, M, D] or [B, D]
        """
        img_tensor, bounds, is_batch = self._prepare_input(img)

        # Get effective batch size
        if batch_size is None:
            batch_size = self.predict_batch_size

        current_batch_size = img_tensor.shape[0]

        # If batch size limit not set or batch fits, process all at once
        if batch_size is None or current_batch_size <= batch_size:
            with torch.no_grad():
                proba = self.forward(img_tensor)
            return self.proba_process(proba, bounds, is_batch)

        # Split into chunks and process
        all_preds = []
        for i in range(0, current_batch_size, batch_size):
            end_idx = min(i + batch_size, current_batch_size)
            chunk_img = img_tensor[i:end_idx]

            with torch.no_grad():
                chunk_proba = self.forward(chunk_img)

            chunk_bounds = bounds[i:end_idx] if isinstance(bounds, list) else bounds
            chunk_pred = self.proba_process(chunk_proba, chunk_bounds, is_batch=True)
            all_preds.append(chunk_pred)

        return torch.cat(all_preds, dim=0)
