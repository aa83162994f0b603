import logging
from typing import Literal

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader

from torch_uncertainty.post_processing import PostProcessing

from .utils import _determine_dimensionality, _extract_data


class HistogramBinningScaler(PostProcessing):
    num_classes: int
    bin_edges: Tensor
    bin_values: Tensor

    def __init__(
        self,
        model: nn.Module | None = None,
        num_bins: int = 15,
        eps: float = 1e-6,
        device: Literal["cpu", "cuda"] | torch.device | None = None,
    ) -> None:
        r"""Histogram Binning post-processing for calibrated probabilities (Zadrozny & Elkan, 2001).

        A non-parametric calibration method that partitions the uncalibrated
        probability space into :attr:`num_bins` equal-width bins. For each bin
        :math:`B_m`, the calibrated probability is the empirical frequency of the
        positive class among the calibration samples falling into the bin:

        .. math::
            \tilde{p}(\hat{p}) = \frac{\sum_{i \in B_m} \mathbf{1}[y_i = 1]}{|B_m|},
            \quad \text{where } \hat{p} \in B_m.

        For multi-class problems, a one-vs-rest binning is fit per class and the
        resulting calibrated probabilities are renormalised to sum to one.

        Args:
            model: Model to calibrate. Defaults to ``None``.
            num_bins: Number of equal-width bins. Defaults to ``15``.
            eps: Small value for stability when converting probs back to logits.
                Defaults to ``1e-6``.
            device: Device to use for tensor operations. Defaults to ``None``.

        References:
            [1] `Zadrozny, B., & Elkan, C. (2001). Obtaining calibrated probability
            estimates from decision trees and naive Bayesian classifiers. ICML 2001
            <https://cseweb.ucsd.edu/~elkan/calibrated.pdf>`_.
        """
        super().__init__(model)

        if num_bins <= 0:
            raise ValueError(f"Number of bins must be strictly positive. Got {num_bins}.")

        self.num_bins = num_bins
        self.device = device
        self.eps = eps

    def fit(
        self,
        dataloader: DataLoader,
        progress: bool = True,
    ) -> None:
        """Fit the histogram binning model to the calibration data.

        Args:
            dataloader: Dataloader providing the calibration data.
            progress: Whether to show a progress bar. Defaults to ``True``.
        """
        if self.model is None or isinstance(self.model, nn.Identity):  # coverage: ignore
            logging.warning(
                "model is None. Fitting post_processing method on the dataloader's data directly."
            )
            self.model = nn.Identity()

        all_logits, all_labels = _extract_data(
            dataloader=dataloader, model=self.model, device=self.device, progress=progress
        )
        self.num_classes, probs, labels = _determine_dimensionality(all_logits, all_labels)

        # Define equal-width bin edges and centers
        self.bin_edges = torch.linspace(0.0, 1.0, self.num_bins + 1, device=self.device)
        bin_centers = (self.bin_edges[:-1] + self.bin_edges[1:]) / 2.0

        # Extract internal boundaries for `torch.bucketize`
        boundaries = self.bin_edges[1:-1].contiguous()

        if self.num_classes == 1:
            self.bin_values = torch.zeros(self.num_bins, device=self.device)
            indices = torch.bucketize(probs, boundaries)
            for b in range(self.num_bins):
                mask = indices == b
                if mask.any():
                    self.bin_values[b] = labels[mask].mean()
                else:
                    self.bin_values[b] = bin_centers[b]
        else:
            self.bin_values = torch.zeros((self.num_classes, self.num_bins), device=self.device)
            labels_one_hot = F.one_hot(labels.long(), self.num_classes).float()

            for c in range(self.num_classes):
                class_probs = probs[:, c].contiguous()
                class_labels = labels_one_hot[:, c]
                indices = torch.bucketize(class_probs, boundaries)
                for b in range(self.num_bins):
                    mask = indices == b
                    if mask.any():
                        self.bin_values[c, b] = class_labels[mask].mean()
                    else:
                        self.bin_values[c, b] = bin_centers[b]

        self.trained = True

    @torch.no_grad()
    def forward(self, inputs: Tensor) -> Tensor:
        """Apply Histogram Binning and return calibrated logits."""
        if self.model is None:  # coverage: ignore
            raise ValueError("Provide a model before calling forward.")
        if not self.trained:
            logging.warning("Scaler not trained. Returning raw predictions.")
            return self.model(inputs)

        logits = self.model(inputs)
        boundaries = self.bin_edges[1:-1].contiguous()

        if self.num_classes == 1:
            probs = torch.sigmoid(logits)
            indices = torch.bucketize(probs, boundaries)
            calib_probs = self.bin_values[indices]
        else:  # OvR Strategy
            probs = torch.softmax(logits, dim=-1)
            indices = torch.bucketize(probs, boundaries)  # Shape: (N, K)

            # Vectorized mapping: gather bin_values for each class
            # note: bin_values is (K, B), indices is (N, K)
            expanded_bins = self.bin_values.unsqueeze(0).expand(indices.size(0), -1, -1)
            calib_probs = torch.gather(expanded_bins, 2, indices.unsqueeze(-1)).squeeze(-1)
            calib_probs /= calib_probs.sum(dim=-1, keepdim=True) + 1e-12

        # Convert back to pseudo-logit space
        calib_probs = calib_probs.clamp(self.eps, 1 - self.eps)
        if self.num_classes == 1:
            return torch.logit(calib_probs, eps=self.eps)
        return torch.log(calib_probs)
