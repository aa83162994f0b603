"""

..  autoclass:: pytorch_ood.detector.Mahalanobis
    :members:
    :inherited-members:
    :show-inheritance:
"""

import logging
import warnings
from typing import Callable, List, Optional

import torch
from torch import Tensor
from torch.autograd import Variable
from torch.utils.data import DataLoader
from typing_extensions import Self

from ..api import (
    DetectorInfo,
    FeaturesDetector,
    GradientDetector,
    ModelNotSetException,
    Paper,
    RequiresFittingException,
    Task,
)
from ..utils import (
    contains_unknown,
    extract_features,
)

log = logging.getLogger(__name__)


class Mahalanobis(FeaturesDetector):
    """
    Implements the Mahalanobis Method from the paper *A Simple Unified Framework for Detecting
    Out-of-Distribution Samples and Adversarial Attacks*.

    This method calculates a class center :math:`\\mu_k` for each class :math:`k`,
    and a shared covariance matrix :math:`\\Sigma` from the data.
    The outlier score is half the squared Mahalanobis distance to the closest class center:

    .. math :: \\frac{1}{2} \\min_k (f(x) - \\mu_k)^{\\top} \\Sigma^{-1} (f(x) - \\mu_k)

    The paper uses the negated distance as a confidence score, so the sign is flipped.
    """

    info = DetectorInfo(
        paper=Paper(
            title="A Simple Unified Framework for Detecting Out-of-Distribution Samples and Adversarial Attacks",
            venue="NeurIPS",
            year=2018,
            url="https://arxiv.org/abs/1807.03888",
            code="https://github.com/pokaxpoka/deep_Mahalanobis_detector",
        ),
        tasks={Task.CLASSIFICATION},
    )

    requires_fit = True

    def __init__(
        self,
        encoder: Optional[Callable[[Tensor], Tensor]],
    ):
        """
        :param encoder: feature encoder that maps inputs to features of shape :math:`B \\times D`. Can be
            ``None`` when using ``fit_features(...)`` and ``predict_features(...)`` directly.
        """
        super(Mahalanobis, self).__init__()
        self.encoder = encoder
        self.mu: Tensor = None  #: Centers
        self.cov: Tensor = None  #: Covariance Matrix
        self.precision: Tensor = None  #: Precision Matrix

    def fit(self, data_loader: DataLoader) -> Self:
        """
        Fit parameters of the multivariate Gaussian.

        :param data_loader: dataset to fit on. Should only contain in-distribution samples, with
            contiguous class labels :math:`0, \\ldots, C-1`, all of which have to occur.
        :return: the fitted detector
        """
        device = self.device
        if device is None:
            device = "cpu"
            log.warning(f"No device set. Will use '{device}'.")
            self.to(device)

        z, y = extract_features(data_loader, self.encoder, device)
        return self.fit_features(z, y)

    def fit_features(self, z: Tensor, y: Tensor) -> Self:
        """
        Fit parameters of the multivariate Gaussian.

        :param z: features of shape :math:`N \\times D`. Should only contain in-distribution samples.
        :param y: class labels of shape :math:`N`, contiguous :math:`0, \\ldots, C-1`; all classes have to
            occur. OOD samples (labels below zero) are not supported and raise an ``AssertionError``.
        :return: the fitted detector
        """
        device = self.device or z.device
        z = z.detach().to(device)
        y = y.to(device)

        log.debug("Calculating mahalanobis parameters.")
        classes = y.unique()

        # we assume here that all class 0 >= labels <= classes.max() exist
        assert len(classes) == classes.max().item() + 1
        assert not contains_unknown(classes)

        n_classes = len(classes)
        self.mu = torch.zeros(size=(n_classes, z.shape[-1]), device=device)
        self.cov = torch.zeros(size=(z.shape[-1], z.shape[-1]), device=device)

        for clazz in range(n_classes):
            idxs = y.eq(clazz)
            assert idxs.sum() != 0
            zs = z[idxs]
            self.mu[clazz] = zs.mean(dim=0)
            self.cov += (zs - self.mu[clazz]).T.mm(zs - self.mu[clazz])

        # the covariance is the sum of the centered outer products (not divided by N), plus a small ridge term
        self.cov += torch.eye(self.cov.shape[0], device=self.cov.device) * 1e-6
        self.precision = torch.linalg.inv(self.cov)
        return self

    def _calc_gaussian_scores(self, z: Tensor) -> Tensor:
        """ """
        features = z.view(z.size(0), z.size(1), -1)
        features = torch.mean(features, 2)
        md_k = []

        # calculate per class scores
        for clazz in range(self.n_classes):
            centered_z = features.data - self.mu[clazz]
            # the factor -0.5 (Gaussian log-density term) is taken from the reference implementation
            term_gau = -0.5 * ((centered_z @ self.precision) * centered_z).sum(dim=1)
            md_k.append(term_gau.view(-1, 1))

        return torch.cat(md_k, 1)

    @torch.no_grad()
    def predict_features(self, z: Tensor) -> Tensor:
        """
        Calculates mahalanobis distance directly on features.
        The input preprocessing of :class:`~pytorch_ood.detector.MahalanobisODIN` is not applied.

        :param z: features, as given by the model, of shape :math:`B \\times D`
        :return: outlier scores of shape :math:`B`
        :raises RequiresFittingException: if the detector was not fitted
        """
        if self.mu is None:
            raise RequiresFittingException

        md_k = self._calc_gaussian_scores(z)
        score = -torch.max(md_k, dim=1).values
        return score

    @torch.no_grad()
    def predict(self, x: Tensor) -> Tensor:
        """
        :param x: input tensor, will be passed through ``encoder``
        :return: outlier scores of shape :math:`B`
        :raises ModelNotSetException: if ``encoder`` is ``None``
        :raises RequiresFittingException: if the detector was not fitted
        """
        if self.encoder is None:
            raise ModelNotSetException

        features = self.encoder(x)
        return self.predict_features(features)

    @property
    def n_classes(self):
        """
        Number of classes the model is fitted for
        """
        if self.mu is None:
            raise RequiresFittingException

        return self.mu.shape[0]


class MahalanobisODIN(GradientDetector):
    """
    Mahalanobis distance detector with input preprocessing, as proposed in *A Simple Unified
    Framework for Detecting Out-of-Distribution Samples and Adversarial Attacks*: the input is
    perturbed in the style of :class:`ODIN <pytorch_ood.detector.ODIN>` before the Mahalanobis
    distance is computed.

    The perturbation is gradient-guided (FGSM-style), so prediction requires gradient
    computation:

    .. math:: x' = x - \\varepsilon \\cdot \\text{sign}(\\nabla_x L(x))

    where :math:`L` is half the squared Mahalanobis distance of the features of :math:`x` to the closest class
    center. The outlier score is the score of
    :class:`Mahalanobis <pytorch_ood.detector.Mahalanobis>` for :math:`x'`.
    """

    info = DetectorInfo(
        paper=Paper(
            title="A Simple Unified Framework for Detecting Out-of-Distribution Samples and Adversarial Attacks",
            venue="NeurIPS",
            year=2018,
            url="https://arxiv.org/abs/1807.03888",
            code="https://github.com/pokaxpoka/deep_Mahalanobis_detector",
        ),
        tasks={Task.CLASSIFICATION},
    )

    requires_fit = True

    def __init__(
        self,
        encoder: Callable[[Tensor], Tensor],
        eps: float = 0.002,
        norm_std: Optional[List[float]] = None,
    ):
        """
        :param encoder: feature encoder that maps inputs to features of shape :math:`B \\times D`; used to
            perturb and score the inputs in :meth:`predict <pytorch_ood.detector.MahalanobisODIN.predict>`.
            :meth:`fit_features <pytorch_ood.detector.MahalanobisODIN.fit_features>` fits on precomputed
            features.
        :param eps: step size :math:`\\varepsilon` of the gradient based input preprocessing, in units of the
            input :math:`x`
        :param norm_std: per-channel standard deviations of the input normalization, for details see
            :class:`ODIN <pytorch_ood.detector.ODIN>`
        """
        super(MahalanobisODIN, self).__init__()
        self._base = Mahalanobis(encoder)
        self.eps = eps
        self.norm_std = norm_std

    def fit(self, data_loader: DataLoader) -> Self:
        """
        Fit the underlying Mahalanobis detector.

        :param data_loader: dataset to fit on.
        :return: the fitted detector
        """
        self._base.fit(data_loader)
        return self

    def fit_features(self, z: Tensor, y: Tensor) -> Self:
        """
        Fit the underlying Mahalanobis detector on features.

        :param z: features of shape :math:`N \\times D`
        :param y: class labels of shape :math:`N`
        :return: the fitted detector
        """
        self._base.fit_features(z, y)
        return self

    def predict(self, x: Tensor) -> Tensor:
        """
        Apply ODIN input perturbation and compute Mahalanobis distance.

        :param x: input tensor
        :return: outlier scores of shape :math:`B`
        :raises RequiresFittingException: if the detector was not fitted
        """
        x = self._odin_preprocess(x, x.device)
        return self._base.predict(x)

    def _odin_preprocess(self, x: Tensor, dev: str):
        """
        ODIN input preprocessing guided by Mahalanobis distance.
        """
        if torch.is_inference_mode_enabled():
            warnings.warn("ODIN not compatible with inference mode. Will be deactivated.")

        with torch.inference_mode(False):
            if torch.is_inference(x):
                x = x.clone()

            with torch.enable_grad():
                x = Variable(x, requires_grad=True)
                features = self._base.encoder(x)
                features = features.view(features.shape[0], -1)
                score = None

                for clazz in range(self._base.n_classes):
                    centered_features = features.data - self._base.mu[clazz]
                    term_gau = -0.5 * (
                        (centered_features @ self._base.precision) * centered_features
                    ).sum(dim=1)

                    if clazz == 0:
                        score = term_gau.view(-1, 1)
                    else:
                        score = torch.cat((score, term_gau.view(-1, 1)), dim=1)

                sample_pred = score.max(dim=1).indices
                batch_sample_mean = self._base.mu.index_select(0, sample_pred)
                centered_features = features - Variable(batch_sample_mean)
                pure_gau = -0.5 * (
                    (centered_features @ Variable(self._base.precision)) * centered_features
                ).sum(dim=1)
                loss = torch.mean(-pure_gau)
                loss.backward()

                gradient = torch.sign(x.grad.data)

        if self.norm_std:
            for i, std in enumerate(self.norm_std):
                gradient.index_copy_(
                    1,
                    torch.LongTensor([i]).to(dev),
                    gradient.index_select(1, torch.LongTensor([i]).to(dev)) / std,
                )
        perturbed_x = x.data - self.eps * gradient

        return perturbed_x
