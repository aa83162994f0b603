"""

..  autoclass:: pytorch_ood.detector.ReAct
    :members:
    :inherited-members:
    :show-inheritance:

"""

import logging
from typing import Callable, Optional

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import DataLoader
from typing_extensions import Self

from ..api import (
    DetectorInfo,
    FeatureMapsDetector,
    ModelNotSetException,
    Paper,
    RequiresFittingException,
    Task,
)
from ..utils import is_known
from ..utils.utils import _check_fraction
from .energy import EnergyBased

log = logging.getLogger(__name__)


class ReAct(FeatureMapsDetector):
    """
    Implements ReAct from the paper
    *ReAct: Out-of-distribution Detection With Rectified Activations*.

    ReAct clips the activations in some layer of the network (backbone) and forward propagates the
    result through the remainder of the model (head).
    In the paper, ReAct is applied to the penultimate layer of the network.

    The clipping threshold is the :math:`p`-th percentile of the activations measured on
    in-distribution training data, where :math:`p` is the parameter ``percentile`` (default ``0.9``,
    i.e. the 90th percentile). Call :meth:`fit <pytorch_ood.detector.ReAct.fit>`
    (or :meth:`fit_feature_maps <pytorch_ood.detector.ReAct.fit_feature_maps>`) to estimate it,
    or pass an explicit ``threshold``.

    The output of the network is then passed to an outlier detector that maps the output of
    the model to outlier scores. By default, this is :meth:`EnergyBased.score <pytorch_ood.detector.EnergyBased.score>`.

    .. rubric:: Examples

    .. code-block:: python

        model = WideResNet()
        detector = ReAct(
            backbone = model.feature_maps,
            head = model.forward_feature_maps,
            detector = EnergyBased.score
        )
        detector.fit(train_loader)
        scores = detector(images)
    """

    info = DetectorInfo(
        paper=Paper(
            title="ReAct: Out-of-distribution Detection With Rectified Activations",
            venue="NeurIPS",
            year=2021,
            url="https://arxiv.org/abs/2111.12797",
            code=None,
        ),
        tasks={Task.CLASSIFICATION, Task.SEGMENTATION},
    )

    requires_fit = True

    #: Default search space for :class:`pytorch_ood.utils.GridSearch`, with fractions in :math:`[0, 1]`.
    #: Tuning re-fits the detector so the threshold is re-estimated for each percentile.
    # This matches the percentile sweep used by OpenOOD.
    hyperparameter_space = {"percentile": [0.85, 0.90, 0.95, 0.99]}

    def __init__(
        self,
        backbone: Callable[[Tensor], Tensor],
        head: Callable[[Tensor], Tensor],
        threshold: Optional[float] = None,
        percentile: float = 0.9,
        detector: Optional[Callable[[Tensor], Tensor]] = None,
    ):
        """
        :param backbone: first part of model to use, should output feature maps of shape
            :math:`B \\times C \\times H \\times W`
        :param head: second part of model used after clipping, should output logits
        :param threshold: cutoff for activations. If ``None`` (default), it is estimated
            from training data by :func:`fit`; if given, it is used directly and fitting
            is optional.
        :param percentile: fraction in :math:`[0, 1]` used as the activation percentile :math:`p`
            when estimating the threshold during fitting.
        :param detector: callable that maps logits of shape :math:`B \\times C` to outlier scores of
            shape :math:`B`. Defaults to :meth:`EnergyBased.score <pytorch_ood.detector.EnergyBased.score>`.
        """
        # the default percentile of 0.9 is the value used in the paper
        self.backbone = backbone
        self.head = head
        self.percentile = _check_fraction("percentile", percentile)
        self.threshold = threshold
        self._is_fitted = threshold is not None
        self.detector = detector or EnergyBased.score

    @torch.no_grad()
    def fit(self, data_loader: DataLoader) -> Self:
        """
        Estimate the clipping threshold from the activations of in-distribution data.
        The loader has to yield ``(x, y)`` batches. All ID activations are kept flattened in
        CPU memory before the percentile is computed, which is memory intensive for large datasets.

        :param data_loader: training data; OOD samples (label ``< 0``) are ignored
        :return: self
        :raise ValueError: if the loader contains no ID samples
        """
        device = self.device
        if device is None:
            device = "cpu"
            log.warning(f"No device set. Will use '{device}'.")
            self.to(device)

        activations = []
        for x, y in data_loader:
            known = is_known(y)
            if not known.any():
                continue
            z = self.backbone(x[known].to(device))
            activations.append(z.detach().flatten().cpu())

        if not activations:
            raise ValueError("No ID samples")

        self._set_threshold_from_activations(torch.cat(activations))
        return self

    def fit_feature_maps(self, feature_maps: Tensor, y: Tensor) -> Self:
        """
        Estimate the clipping threshold directly from in-distribution feature maps.

        :param feature_maps: training feature maps of shape :math:`N \\times C \\times H \\times W`
        :param y: corresponding labels of shape :math:`N`; OOD samples (label ``< 0``) are ignored
        :return: self
        :raise ValueError: if there are no ID samples
        """
        known = is_known(y)
        if not known.any():
            raise ValueError("No ID samples")

        self._set_threshold_from_activations(feature_maps[known].detach().flatten().cpu())
        return self

    def _set_threshold_from_activations(self, activations: Tensor) -> None:
        self.threshold = float(np.percentile(activations.numpy(), self.percentile * 100))
        self._is_fitted = True

    def predict(self, x: Tensor) -> Tensor:
        """
        :param x: input batch, will be passed through the backbone and head
        :return: outlier scores of shape :math:`B`
        """
        device = self.device
        if device is not None:
            x = x.to(device)
        x = self.backbone(x)
        return self.predict_feature_maps(x)

    @torch.no_grad()
    def predict_feature_maps(self, feature_maps: Tensor) -> Tensor:
        """
        Clips the feature maps at the threshold and scores the resulting logits.

        :param feature_maps: feature maps of shape :math:`B \\times C \\times H \\times W`
        :return: outlier scores of shape :math:`B`
        :raise ModelNotSetException: if no head was set
        :raise RequiresFittingException: if no threshold was set or estimated
        """
        if self.head is None:
            raise ModelNotSetException

        if self.threshold is None:
            raise RequiresFittingException()

        x = feature_maps.clip(max=self.threshold)
        x = self.head(x)
        return self.detector(x)
