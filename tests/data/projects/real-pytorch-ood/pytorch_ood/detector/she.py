"""

..  autoclass:: pytorch_ood.detector.SHE
    :members:
    :inherited-members:
    :show-inheritance:
"""

import logging
from typing import Callable, Optional

import torch
from torch import Tensor
from torch.utils.data import DataLoader
from typing_extensions import Self

from pytorch_ood.api import RequiresFittingException
from pytorch_ood.utils import TensorBuffer, extract_features, is_known

from ..api import DetectorInfo, FeaturesDetector, ModelNotSetException, Paper, Task

log = logging.getLogger(__name__)


class SHE(FeaturesDetector):
    """
    Implements Simplified Hopfield Energy from the paper
    *Out-of-Distribution Detection based on In-Distribution Data Patterns Memorization with modern Hopfield Energy*

    For each class :math:`i`, SHE estimates the mean feature vector :math:`S_i` of the correctly classified
    training samples. For a new sample with predicted class :math:`\\hat{y}`, the outlier score is the negated
    inner product

    .. math :: -f(x)^{\\top} S_{\\hat{y}}

    where :math:`f(x)` are the features ``z`` and :math:`S_i` is stored in
    :attr:`patterns <pytorch_ood.detector.SHE.patterns>`. The paper uses the inner product as an
    in-distribution score, so the sign is flipped.
    """

    info = DetectorInfo(
        paper=Paper(
            title="Out-of-Distribution Detection based on In-Distribution Data Patterns Memorization with Modern Hopfield Energy",
            venue="ICLR",
            year=2023,
            url="https://openreview.net/pdf?id=KkazG4lgKL",
            code=None,
        ),
        tasks={Task.CLASSIFICATION},
    )

    requires_fit = True

    def __init__(self, encoder: Callable[[Tensor], Tensor], head: Callable[[Tensor], Tensor]):
        """
        :param encoder: feature encoder that maps inputs to features of shape :math:`B \\times D`
        :param head: maps features to logits; determines the predicted class :math:`\\hat{y}`
        """
        super(SHE, self).__init__()
        self.encoder = encoder
        self.head = head
        #: patterns :math:`S_i`, the mean features of the correctly classified training samples of each
        #: class, of shape :math:`K \times D`; ``None`` before fitting
        self.patterns: Optional[Tensor] = None

    def predict(self, x: Tensor) -> Tensor:
        """
        :param x: model inputs, will be passed through ``encoder``
        :return: outlier scores of shape :math:`B`
        :raises ModelNotSetException: if ``encoder`` or ``head`` is ``None``
        :raises RequiresFittingException: if the detector was not fitted
        """
        if self.encoder is None:
            raise ModelNotSetException()

        z = self.encoder(x)
        return self.predict_features(z)

    def predict_features(self, z: Tensor) -> Tensor:
        """
        :param z: features of shape :math:`B \\times D`
        :return: outlier scores of shape :math:`B`
        :raises ModelNotSetException: if ``head`` is ``None``
        :raises RequiresFittingException: if the detector was not fitted
        """
        if self.head is None:
            raise ModelNotSetException(msg="When using predict_features(), head must not be None")

        if self.patterns is None:
            raise RequiresFittingException()

        y_hat = self.head(z).argmax(dim=1)
        self.patterns = self.patterns.to(y_hat.device)

        scores = torch.sum(torch.mul(z, self.patterns[y_hat]), dim=1)
        return -scores

    def fit(self, data_loader: DataLoader) -> Self:
        """
        Extracts features and calculates mean patterns.

        :param data_loader: data to fit
        :return: self
        :raises ModelNotSetException: if ``encoder`` is ``None``
        :raises ValueError: if there are no ID samples, or a class has no correctly classified sample
        :raises AssertionError: if the labels of the ID samples do not cover the classes :math:`0, ..., K-1`
        """
        if self.encoder is None:
            raise ModelNotSetException()

        device = self.device
        if device is None:
            device = "cpu"
            log.warning(f"No device set. Will use '{device}'.")
            self.to(device)

        x, y = extract_features(data_loader, self.encoder, device=device)
        return self.fit_features(x, y)

    @torch.no_grad()
    def _filter_correct_predictions(self, z: Tensor, y: Tensor, batch_size: int = 1024):
        """
        :param z: a tensor of shape (N, D) or similar
        :param y: labels of shape (N,)
        :param batch_size: how many samples we process at a time
        """
        device = self.device or z.device
        buffer = TensorBuffer()

        for start_idx in range(0, z.size(0), batch_size):
            end_idx = start_idx + batch_size

            z_batch = z[start_idx:end_idx].to(device)
            y_batch = y[start_idx:end_idx].to(device)

            y_hat_batch = self.head(z_batch).argmax(dim=1)

            mask = y_hat_batch == y_batch
            buffer.append("z", z_batch[mask])
            buffer.append("y", y_hat_batch[mask])

        return buffer["z"], buffer["y"]

    def fit_features(self, z: Tensor, y: Tensor, batch_size: int = 1024) -> Self:
        """
        Calculates mean patterns per class.

        :param z: features to fit, of shape :math:`N \\times D`
        :param y: labels of shape :math:`N`; OOD samples (label below zero) are ignored. The remaining
            labels have to cover the classes :math:`0, ..., K-1`.
        :param batch_size: how many samples we process at a time
        :return: self
        :raises ValueError: if there are no ID samples, or a class has no correctly classified sample
        :raises AssertionError: if the labels of the ID samples do not cover the classes :math:`0, ..., K-1`
        """
        device = self.device or z.device

        known = is_known(y)

        if not known.any():
            raise ValueError("No ID samples")

        y = y[known].to(device)
        z = z[known].to(device)
        classes = y.unique()

        # make sure all classes are present
        assert len(classes) == classes.max().item() + 1

        z, y = self._filter_correct_predictions(z, y, batch_size=batch_size)
        z = z.to(device)
        y = y.to(device)

        m = []
        for clazz in classes:
            idx = y == clazz
            if not idx.any():
                raise ValueError(f"No correct predictions for class {clazz.item()}")

            mav = z[idx].to(device).mean(dim=0)
            m.append(mav)

        self.patterns = torch.stack(m)
        return self
