"""
Torch wrapper for a numpy implementation of openmax.
"""

import logging
from typing import Optional

import torch
from torch import Tensor
from torch.nn import Module
from typing_extensions import Self

from ...api import (
    DetectorInfo,
    LogitsDetector,
    ModelNotSetException,
    Paper,
    RequiresFittingException,
    Task,
)
from .numpy import OpenMax as NumpyOpenMax

log = logging.getLogger(__name__)


class OpenMax(LogitsDetector):
    """
    Implementation of the OpenMax Layer as proposed in the paper *Towards Open Set Deep Networks*.

    The method determines a center :math:`\\mu_y` for each class in the logits space of a model, and then
    creates a statistical model of the distances of the training inputs of each class.
    It uses extreme value theory to detect outliers by fitting a weibull function to the tail of the distance
    distribution.

    We use the (softmax) probability of the *unknown* class as outlier score.
    """

    info = DetectorInfo(
        paper=Paper(
            title="Towards Open Set Deep Networks",
            venue="CVPR",
            year=2016,
            url="https://arxiv.org/abs/1511.06233",
            code="https://github.com/abhijitbendale/OSDN",
        ),
        tasks={Task.CLASSIFICATION},
    )

    requires_fit = True

    #: grid explored by :class:`pytorch_ood.utils.GridSearch`.
    # ``alpha``/``euclid_weight`` are anchored around the fixed values used by the OpenOOD reference
    # implementation (weibull_alpha=3, eu_weight=0.5); ``tailsize`` around the paper/OpenOOD default of
    # 20-25, since OpenOOD itself does not sweep any of these three.
    hyperparameter_space = {
        "tailsize": [10, 20, 30, 40, 50],
        "alpha": [1, 3, 5, 10, 15, 20],
        "euclid_weight": [0.0, 0.25, 0.5, 0.75, 1.0],
    }

    def __init__(
        self,
        model: Optional[Module],
        tailsize: int = 25,
        alpha: int = 10,
        euclid_weight: float = 1.0,
    ):
        """
        :param model: neural network, assumed to output logits. Can be ``None`` when using
            ``fit_logits(...)`` and ``predict_logits(...)`` directly.
        :param tailsize: length of the tail to fit the distribution to
        :param alpha: number of class activations to revise
        :param euclid_weight: weight in :math:`[0, 1]` of the Euclidean distance; the cosine distance
            gets weight ``1 - euclid_weight``.
        """
        self.model = model
        self.tailsize = tailsize
        self.alpha = alpha
        self.euclid_weight = euclid_weight
        self._openmax: Optional[NumpyOpenMax] = None

    def fit_logits(self, logits: Tensor, y: Tensor) -> Self:
        """
        Determines parameters of the weibull functions for each class.

        :param logits: logits of shape :math:`N \\times C`
        :param y: class labels of shape :math:`N`
        :return: self
        """
        # Built here (not in __init__) so that GridSearch.set_hyperparameters -- which
        # only assigns self.tailsize/alpha/euclid_weight, per hyperparameter_space --
        # takes effect: every GridSearch candidate re-fits after setting hyperparameters,
        # so a fresh, correctly-configured NumpyOpenMax is guaranteed at fit time.
        self._openmax = NumpyOpenMax(
            tailsize=self.tailsize, alpha=self.alpha, euclid_weight=self.euclid_weight
        )
        logits, y = logits.cpu().numpy(), y.cpu().numpy()
        self._openmax.fit(logits, y)
        return self

    def predict(self, x: Tensor) -> Tensor:
        """
        :param x: input batch, will be passed through the model to get logits
        :return: outlier scores of shape :math:`B`
        :raises ModelNotSetException: if the detector has no ``model``
        :raises RequiresFittingException: if the detector was not fitted
        """
        if self.model is None:
            raise ModelNotSetException

        device = self.device
        if device is not None:
            x = x.to(device)

        with torch.no_grad():
            logits = self.model(x)

        return self.predict_logits(logits)

    def predict_logits(self, logits: Tensor) -> Tensor:
        """
        :param logits: logits of shape :math:`B \\times C`
        :return: probability of the unknown class, shape :math:`B`
        :raises RequiresFittingException: if the detector was not fitted
        """
        if self._openmax is None:
            raise RequiresFittingException()

        device = self.device or logits.device
        logits = logits.detach().cpu().numpy()
        return torch.tensor(self._openmax.predict(logits)[:, 0], device=device)
