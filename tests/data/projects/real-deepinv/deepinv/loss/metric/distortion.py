from __future__ import annotations
from typing import TYPE_CHECKING
from functools import partial

import torch
from torch import Tensor

from deepinv.loss.metric.metric import Metric
from deepinv.loss.metric.functional import (
    cal_mse,
    cal_psnr,
    cal_mae,
    signal_noise_ratio,
)

from deepinv.physics.functional import conv2d

if TYPE_CHECKING:
    from deepinv.physics.remote_sensing import Pansharpen
    from deepinv.utils.tensorlist import TensorList


class MAE(Metric):
    r"""deepinv.metric.MAE(complex_abs, reduction, norm_inputs, center_crop, ``kwargs``)
    Mean Absolute Error metric.

    Calculates :math:`\text{MAE}(\hat{x},x)` where :math:`\hat{x}=\inverse{y}`.

    .. note::

        By default, no reduction is performed in the batch dimension.

    .. note::

        :class:`deepinv.loss.metric.MAE` is functionally equivalent to :class:`torch.nn.L1Loss` when ``reduction='mean'`` or ``reduction='sum'``,
        but when ``reduction=None`` our MAE reduces over all dims except batch dim (same behavior as ``torchmetrics``) whereas ``L1Loss`` does not perform any reduction.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import MAE
    >>> m = MAE()
    >>> x_net = x = torch.ones(3, 2, 8, 8) # B,C,H,W
    >>> m(x_net, x)
    tensor([0., 0., 0.])

    :param bool complex_abs: perform complex magnitude before passing data to metric function. If ``True``,
        the data must either be of complex dtype or have size 2 in the channel dimension (usually the second dimension after batch).
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).
    """

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        return cal_mae(x_net, x)


class MSE(Metric):
    r"""deepinv.metric.MSE(complex_abs, reduction, norm_inputs, center_crop, ``kwargs``)
    Mean Squared Error metric.

    Calculates :math:`\|\hat{x}-x\|_2^2` where :math:`\hat{x}=\inverse{y}`.

    .. note::

        By default, no reduction is performed in the batch dimension.

    .. note::

        :class:`deepinv.loss.metric.MSE` is functionally equivalent to :class:`torch.nn.MSELoss` when ``reduction='mean'`` or ``reduction='sum'``,
        but when ``reduction=None`` our MSE reduces over all dims except batch dim (same behavior as ``torchmetrics``) whereas ``MSELoss`` does not perform any reduction.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import MSE
    >>> m = MSE()
    >>> x_net = x = torch.ones(3, 2, 8, 8) # B,C,H,W
    >>> m(x_net, x)
    tensor([0., 0., 0.])

    :param bool complex_abs: perform complex magnitude before passing data to metric function. If ``True``,
        the data must either be of complex dtype or have size 2 in the channel dimension (usually the second dimension after batch).
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).
    """

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        return cal_mse(x_net, x)


class NMSE(MSE):
    r"""
    Normalized Mean Squared Error metric.

    Calculates :math:`\|\hat{x}-x\|_2^2/\|x\|_2^2` where :math:`\hat{x}=\inverse{y}`.

    Normalizes MSE by the squared :math:`\ell_2` norm of the ground truth ``x``.

    .. note::

        By default, no reduction is performed in the batch dimension.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import NMSE
    >>> m = NMSE()
    >>> x_net = x = torch.ones(3, 2, 8, 8) # B,C,H,W
    >>> m(x_net, x)
    tensor([0., 0., 0.])

    :param str method: normalisation method. Currently only supports ``l2``.
    :param bool complex_abs: perform complex magnitude before passing data to metric function. If ``True``,
        the data must either be of complex dtype or have size 2 in the channel dimension (usually the second dimension after batch).
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).
    """

    def __init__(self, method: str = "l2", **kwargs):
        super().__init__(**kwargs)
        self.method = method
        if self.method not in ("l2",):
            raise ValueError("method must be l2.")

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        if self.method == "l2":
            norm = cal_mse(x, 0)
        return cal_mse(x_net, x) / norm


class NRMSE(NMSE):
    r"""
    Normalized Root Mean Squared Error metric.

    Calculates

    .. math::

        \operatorname{NRMSE}(\hat{x},x)
        = \frac{\|\hat{x}-x\|_2}{\|x\|_2}
        = \sqrt{\operatorname{NMSE}(\hat{x},x)},

    where :math:`\hat{x}=\inverse{y}`.

    .. note::

        By default, no reduction is performed in the batch dimension.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import NRMSE
    >>> m = NRMSE()
    >>> x_net = x = torch.ones(3, 2, 8, 8)
    >>> m(x_net, x)
    tensor([0., 0., 0.])

    :param str method: normalisation method. Currently only supports ``l2``.
    :param bool complex_abs: perform complex magnitude before passing data to metric function.
    :param str reduction: method used to reduce scores over the batch dimension.
    :param str norm_inputs: optional input normalization.
    :param int, tuple[int], None center_crop: optional spatial center crop.
    """

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        return super().metric(x_net, x, *args, **kwargs).sqrt()


class SSIM(Metric):
    r"""
    Structural Similarity Index (SSIM) metric using torchmetrics.

    Calculates :math:`\text{SSIM}(\hat{x},x)` where :math:`\hat{x}=\inverse{y}`.
    See https://en.wikipedia.org/wiki/Structural_similarity for more information.

    To set the max pixel on the fly (as is the case in `fastMRI evaluation code <https://github.com/facebookresearch/fastMRI/blob/main/banding_removal/fastmri/common/evaluate.py>`_), set ``max_pixel=None``.

    .. note::

        By default, no reduction is performed in the batch dimension.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import SSIM
    >>> m = SSIM()
    >>> x_net = x = torch.ones(3, 2, 32, 32) # B,C,H,W
    >>> m(x_net, x)
    tensor([1., 1., 1.])

    :param bool multiscale: if ``True``, computes the multi-scale SSIM. Default: ``False``.
    :param float max_pixel: maximum pixel value. If None, uses max pixel value of the ground truth image x.
    :param float min_pixel: minimum pixel value. If None, uses min pixel value of the ground truth image x.
    :param dict torchmetric_kwargs: kwargs for torchmetrics SSIM as dict. See https://lightning.ai/docs/torchmetrics/stable/image/structural_similarity.html
    :param bool complex_abs: perform complex magnitude before passing data to metric function. If ``True``,
        the data must either be of complex dtype or have size 2 in the channel dimension (usually the second dimension after batch).
    :param bool train_loss: use metric as a training loss, by returning one minus the metric.
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).
    """

    def __init__(
        self,
        multiscale: bool = False,
        max_pixel: float = 1.0,
        min_pixel: float = 0.0,
        torchmetric_kwargs: dict = None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        from torchmetrics.functional.image import (
            structural_similarity_index_measure,
            multiscale_structural_similarity_index_measure,
        )

        self.ssim = (
            multiscale_structural_similarity_index_measure
            if multiscale
            else structural_similarity_index_measure
        )
        torchmetric_kwargs = (
            torchmetric_kwargs if torchmetric_kwargs is not None else {}
        )
        self.torchmetric_kwargs = torchmetric_kwargs
        self.max_pixel = max_pixel
        self.min_pixel = min_pixel
        self.lower_better = False

    def invert_metric(self, m: Tensor) -> Tensor:
        return 1.0 - m

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        max_pixel = (
            self.max_pixel
            if self.max_pixel is not None
            else x.amax(dim=tuple(range(1, x.ndim)))
        )
        min_pixel = (
            self.min_pixel
            if self.min_pixel is not None
            else x.amin(dim=tuple(range(1, x.ndim)))
        )
        data_range = max_pixel - min_pixel
        if self.max_pixel is None or self.min_pixel is None:
            return torch.cat(
                [
                    self.ssim(
                        x_net[i : i + 1],
                        x[i : i + 1],
                        data_range=data_range[i].item(),
                        reduction="none",
                        **self.torchmetric_kwargs,
                    )
                    for i in range(x.shape[0])
                ],
                0,
            )
        return self.ssim(
            x_net,
            x,
            data_range=data_range,
            reduction="none",
            **self.torchmetric_kwargs,
        )


class PSNR(Metric):
    r"""
    Peak Signal-to-Noise Ratio (PSNR) metric.

    Calculates :math:`\text{PSNR}(\hat{x},x)` where :math:`\hat{x}=\inverse{y}`.
    If the tensors have size ``(B, C, H, W)``, then the PSNR is computed as

    .. math::
        \text{PSNR} = \frac{20}{B} \log_{10} \frac{\text{MAX}_I}{\sqrt{\|\hat{x}-x\|^2_2 / (CHW) }}

    where :math:`\text{MAX}_I` is the maximum possible pixel value of the image (e.g. 1.0 for a
    normalized image).

    To set the max pixel on the fly (as is the case in `fastMRI evaluation code <https://github.com/facebookresearch/fastMRI/blob/main/banding_removal/fastmri/common/evaluate.py>`_), set ``max_pixel=None``.

    .. note::

        By default, no reduction is performed in the batch dimension.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import PSNR
    >>> m = PSNR()
    >>> x_net = x = torch.ones(3, 2, 8, 8) # B,C,H,W
    >>> m(x_net, x)
    tensor([80., 80., 80.])

    :param float max_pixel: maximum pixel value. If None, uses max pixel value of the ground truth image x.
    :param float min_pixel: minimum pixel value. If None, uses min pixel value of the ground truth image x.
    :param bool complex_abs: perform complex magnitude before passing data to metric function. If ``True``,
        the data must either be of complex dtype or have size 2 in the channel dimension (usually the second dimension after batch).
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).
    """

    def __init__(self, max_pixel: float = 1, min_pixel: float = 0, **kwargs):
        super().__init__(**kwargs)
        self.max_pixel = max_pixel
        self.min_pixel = min_pixel
        self.lower_better = False

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        max_pixel = (
            self.max_pixel
            if self.max_pixel is not None
            else x.amax(dim=tuple(range(1, x.ndim)))
        )
        min_pixel = (
            self.min_pixel
            if self.min_pixel is not None
            else x.amin(dim=tuple(range(1, x.ndim)))
        )
        return cal_psnr(x_net, x, max_pixel=max_pixel, min_pixel=min_pixel)


class SNR(Metric):
    r"""
    Compute the signal-to-noise ratio (SNR)

    The signal-to-noise ratio (in dB) associated to a ground truth signal :math:`x` and a noisy estimate :math:`\hat{x} = \inverse{y}` is defined by

    .. math::

        \mathrm{SNR} = 10 \log_{10} \left( \frac{\|x\|_2^2}{\|x - y\|_2^2} \right).

    .. note::

        The input is assumed to be batched and the SNR is computed for each element independently.

    :param torch.Tensor x_net: The noisy signal.
    :param torch.Tensor x: The reference signal.
    :return: (torch.Tensor) The SNR value in decibels (dB).
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.lower_better = False

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        return signal_noise_ratio(x_net, x)


class L1L2(Metric):
    r"""
    Combined L2 and L1 metric.

    Calculates L2 distance (i.e. MSE) + L1 (i.e. MAE) distance,
    :math:`\alpha L_1(\hat{x},x)+(1-\alpha)L_2(\hat{x},x)` where :math:`\hat{x}=\inverse{y}`.

    .. note::

        By default, no reduction is performed in the batch dimension.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import L1L2
    >>> m = L1L2()
    >>> x_net = x = torch.ones(3, 2, 8, 8) # B,C,H,W
    >>> m(x_net, x)
    tensor([0., 0., 0.])

    :param float alpha: Weight between L2 and L1. Defaults to 0.5.
    :param bool complex_abs: perform complex magnitude before passing data to metric function. If ``True``,
        the data must either be of complex dtype or have size 2 in the channel dimension (usually the second dimension after batch).
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).
    """

    def __init__(self, alpha: float = 0.5, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha
        self.l1 = MAE().metric
        self.l2 = MSE().metric

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        l1 = self.l1(x_net, x)
        l2 = self.l2(x_net, x)
        return self.alpha * l1 + (1 - self.alpha) * l2


class LpNorm(Metric):
    r"""
    :math:`\ell_p` metric for :math:`p>0`.

    Calculates :math:`L_p(\hat{x},x)` where :math:`\hat{x}=\inverse{y}`.

    If ``onesided=False`` then the metric is defined as
    :math:`d(x,y)=\|x-y\|_p^p`.

    Otherwise, it is the one-sided error :footcite:t:`jacques2013robust`, defined as
    :math:`d(x,y)= \|\max(x\circ y) \|_p^p`. where :math:`\circ` denotes element-wise multiplication.

    .. note::

        By default, no reduction is performed in the batch dimension.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import LpNorm
    >>> m = LpNorm(p=3) # L3 norm
    >>> x_net = x = torch.ones(3, 2, 8, 8) # B,C,H,W
    >>> m(x_net, x)
    tensor([0., 0., 0.])

    :param int p: order p of the Lp norm
    :param bool onesided: whether one-sided metric.
    :param bool complex_abs: perform complex magnitude before passing data to metric function. If ``True``,
        the data must either be of complex dtype or have size 2 in the channel dimension (usually the second dimension after batch).
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).

    """

    def __init__(self, p: int = 2, onesided: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.p = p
        self.onesided = onesided

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        if self.onesided:
            diff = torch.maximum(x_net, x)
        else:
            diff = x_net - x

        return torch.linalg.norm(diff.view(diff.size(0), -1), ord=self.p, dim=1).pow(
            self.p
        )


class QNR(Metric):
    r"""
    Quality with No Reference (QNR) metric for pansharpening.

    Calculates the no-reference :math:`\text{QNR}(\hat{x})` where :math:`\hat{x}=\inverse{y}`.

    QNR was proposed in Alparone et al., "Multispectral and Panchromatic Data Fusion Assessment Without Reference".

    Note we don't use the torchmetrics implementation.

    .. note::

        By default, no reduction is performed in the batch dimension.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import QNR
    >>> from deepinv.physics import Pansharpen
    >>> m = QNR()
    >>> x = x_net = torch.rand(1, 3, 64, 64) # B,C,H,W
    >>> physics = Pansharpen((3, 64, 64))
    >>> y = physics(x) #[BCH'W', B1HW]
    >>> m(x_net=x_net, y=y, physics=physics) # doctest: +ELLIPSIS
    tensor([...])

    :param float alpha: weight for spectral quality, defaults to 1
    :param float beta: weight for structural quality, defaults to 1
    :param float p: power exponent for spectral D, defaults to 1
    :param float q: power exponent for structural D, defaults to 1
    :param bool complex_abs: perform complex magnitude before passing data to metric function. If ``True``,
        the data must either be of complex dtype or have size 2 in the channel dimension (usually the second dimension after batch).
    :param bool train_loss: use metric as a training loss, by returning one minus the metric.
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).
    """

    def __init__(
        self, alpha: float = 1, beta: float = 1, p: float = 1, q: float = 1, **kwargs
    ):
        super().__init__(**kwargs)
        self.alpha, self.beta, self.p, self.q = alpha, beta, p, q
        from torchmetrics.functional.image import (
            structural_similarity_index_measure,
        )

        self.Q = partial(
            structural_similarity_index_measure, reduction="none"
        )  # Wang-Bovik
        self.lower_better = False

    def invert_metric(self, m: Tensor) -> Tensor:
        return 1.0 - m

    def D_lambda(self, hrms: Tensor, lrms: Tensor) -> float:
        """Calculate spectral distortion index."""
        _, n_bands, _, _ = hrms.shape
        out = 0
        for b in range(n_bands):
            for c in range(n_bands):
                out += (
                    abs(
                        self.Q(hrms[:, [b], :, :], hrms[:, [c], :, :])
                        - self.Q(lrms[:, [b], :, :], lrms[:, [c], :, :])
                    )
                    ** self.p
                )
        return (out / (n_bands * (n_bands - 1))) ** (1 / self.p)

    def D_s(self, hrms: Tensor, lrms: Tensor, pan: Tensor, pan_lr: Tensor) -> float:
        """Calculate spatial (or structural) distortion index."""
        _, n_bands, _, _ = hrms.shape
        out = 0
        for b in range(n_bands):
            out += (
                abs(
                    self.Q(hrms[:, [b], :, :], pan) - self.Q(lrms[:, [b], :, :], pan_lr)
                )
                ** self.q
            )
        return (out / n_bands) ** (1 / self.q)

    def metric(
        self,
        x_net: Tensor,
        x: None,
        y: TensorList,
        physics: Pansharpen,
        *args,
        **kwargs,
    ):
        r"""Calculate QNR on data.

        .. note::

            Note this does not require knowledge of ``x``, but it is included here as a placeholder.

        :param torch.Tensor x_net: Reconstructed high-res multispectral image :math:`\inverse{y}` of shape ``(B,C,H,W)``.
        :param torch.Tensor x: Placeholder, does nothing.
        :param deepinv.utils.TensorList y: pansharpening measurements generated from
            :class:`deepinv.physics.Pansharpen`, where y[0] is the low-res multispectral image of shape ``(B,C,H',W')``
            and y[1] is the high-res noisy panchromatic image of shape ``(B,1,H,W)``
        :param deepinv.physics.Pansharpen physics: pansharpening physics, used to calculate low-res pan image for QNR calculation.

        :return torch.Tensor: calculated metric, the tensor size might be ``(1,)`` or ``(B,)``.
        """

        if y is None:
            raise ValueError("QNR requires the measurements y to be passed.")

        if physics is None:
            raise ValueError("QNR requires the pansharpening physics to be passed.")

        lrms = y[0]
        pan = y[1]

        pan_lr = physics.downsampling.A(pan)

        d_lambda = self.D_lambda(x_net, lrms)
        d_s = self.D_s(x_net, lrms, pan, pan_lr)
        qnr = (1 - d_lambda) ** self.alpha * (1 - d_s) ** self.beta

        return qnr


class SpectralAngleMapper(Metric):
    r"""deepinv.metric.SpectralAngleMapper(train_loss, reduction, norm_inputs, center_crop, ``kwargs``)
    Spectral Angle Mapper (SAM).

    Calculates spectral similarity between estimated and target multispectral images.

    Wraps the ``torchmetrics`` `Spectral Angle Mapper <https://lightning.ai/docs/torchmetrics/stable/image/spectral_angle_mapper.html>`_ function.
    Note that our ``reduction`` parameter follows our uniform convention (see below).

    .. note::

        By default, no reduction is performed in the batch dimension.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import SpectralAngleMapper
    >>> m = SpectralAngleMapper()
    >>> x_net = x = torch.ones(3, 2, 8, 8) # B,C,H,W
    >>> m(x_net, x)
    tensor([0., 0., 0.])

    :param bool train_loss: use metric as a training loss, by returning one minus the metric.
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).
    """

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        from torchmetrics.functional.image import spectral_angle_mapper

        return spectral_angle_mapper(x_net, x, reduction="none").mean(
            dim=tuple(range(1, x.ndim - 1)), keepdim=False
        )


class ERGAS(Metric):
    r"""
    Error relative global dimensionless synthesis metric.

    Calculates the ERGAS metric on a multispectral image and a target.
    ERGAS is a popular metric for pan-sharpening of multispectral images.

    Wraps the ``torchmetrics`` `ERGAS <https://lightning.ai/docs/torchmetrics/stable/image/error_relative_global_dimensionless_synthesis.html>`_ function.
    Note that our ``reduction`` parameter follows our uniform convention (see below).

    .. note::

        By default, no reduction is performed in the batch dimension.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import ERGAS
    >>> m = ERGAS(factor=4)
    >>> x_net = x = torch.ones(3, 2, 8, 8) # B,C,H,W
    >>> m(x_net, x)
    tensor([0., 0., 0.])

    :param int factor: pansharpening factor.
    :param bool train_loss: use metric as a training loss, by returning one minus the metric.
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).
    """

    def __init__(self, factor: int, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from torchmetrics.functional.image import (
            error_relative_global_dimensionless_synthesis,
        )

        self._metric = self._metric = (
            lambda x_hat, x, *args, **kwargs: error_relative_global_dimensionless_synthesis(
                x_hat, x, ratio=factor, reduction="none"
            )
        )


class HaarPSI(Metric):
    r"""HaarPSI metric with tuned parameters.

    The metric was proposed by `Reisenhofer et al. <https://arxiv.org/abs/1607.06140>`_ and the parameters are taken from `Karner et al. <https://arxiv.org/abs/2410.24098>`_.
    The metric computes similarities in the Haar wavelet domain and it is shown to closely match human evaluation. See original papers for more details.
    The metric range is :math:`[0,1]`. The higher the metric, the better.

    Code is adapted from `this implementation <https://github.com/ideal-iqa/haarpsi-pytorch>`_ by Sören Dittmer, Clemens Karner and Anna Breger, adapted from David Neumann, adapted from Rafael Reisenhofer.

    .. note::

        Images must be scaled to :math:`[0,1]`. You can use `norm_inputs = clip` or `min_max` to achieve this.

    The parameters should be set as follows depending on the image domain:

    - **Natural images**: :math:`C=30,\alpha=4.2`.
    - **Medical images**: :math:`C=5,\alpha=4.9`.

    .. note::

        By default, no reduction is performed in the batch dimension.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import HaarPSI
    >>> m = HaarPSI(norm_inputs="clip")
    >>> x_net = x = torch.ones(3, 1, 8, 8) # B,C,H,W
    >>> m(x_net, x)
    tensor([1.0000, 1.0000, 1.0000])

    :param float C: metric parameter :math:`C\in[5, 100]`.
    :param float alpha: metric parameter :math:`\alpha\in[2, 8]`.
    :param bool preprocess_with_subsampling: Determines if subsampling is performed.
    :param bool complex_abs: perform complex magnitude before passing data to metric function. If ``True``,
        the data must either be of complex dtype or have size 2 in the channel dimension (usually the second dimension after batch).
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).
    """

    def __init__(
        self,
        C: float = 5.0,
        alpha: float = 4.9,
        preprocess_with_subsampling: bool = True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.C = C
        self.alpha = alpha
        self.lower_better = False
        self.preprocess_with_subsampling = preprocess_with_subsampling

    def metric(self, x_net: Tensor = None, x: Tensor = None, *args, **kwargs) -> Tensor:

        if (
            x.shape != x_net.shape
            or x.dtype != torch.float32
            or x.dtype != x_net.dtype
            or x.shape[1] not in {1, 3}
        ):
            raise ValueError(
                "x and x_net must be of same shape, of torch.float32 dtype, and with either 1 or 3 channels."
            )

        if (
            not torch.all(x_net <= 1)
            or not torch.all(0 <= x_net)
            or not torch.all(x <= 1)
            or not torch.all(0 <= x)
        ):
            raise ValueError("x and x_net must be in the range [0, 1]")

        x = 255 * x
        x_net = 255 * x_net

        is_color_image = x_net.shape[1] == 3

        if is_color_image:
            ref_y = (
                0.299 * x[:, 0, :, :] + 0.587 * x[:, 1, :, :] + 0.114 * x[:, 2, :, :]
            )
            deg_y = (
                0.299 * x_net[:, 0, :, :]
                + 0.587 * x_net[:, 1, :, :]
                + 0.114 * x_net[:, 2, :, :]
            )
            ref_i = (
                0.596 * x[:, 0, :, :] - 0.274 * x[:, 1, :, :] - 0.322 * x[:, 2, :, :]
            )
            deg_i = (
                0.596 * x_net[:, 0, :, :]
                - 0.274 * x_net[:, 1, :, :]
                - 0.322 * x_net[:, 2, :, :]
            )
            ref_q = (
                0.211 * x[:, 0, :, :] - 0.523 * x[:, 1, :, :] + 0.312 * x[:, 2, :, :]
            )
            deg_q = (
                0.211 * x_net[:, 0, :, :]
                - 0.523 * x_net[:, 1, :, :]
                + 0.312 * x_net[:, 2, :, :]
            )
            ref_y = ref_y.unsqueeze(1)
            deg_y = deg_y.unsqueeze(1)
            ref_i = ref_i.unsqueeze(1)
            deg_i = deg_i.unsqueeze(1)
            ref_q = ref_q.unsqueeze(1)
            deg_q = deg_q.unsqueeze(1)
        else:
            ref_y = x
            deg_y = x_net

        if self.preprocess_with_subsampling:
            ref_y = self._subsample(ref_y)
            deg_y = self._subsample(deg_y)
            if is_color_image:
                ref_i = self._subsample(ref_i)
                deg_i = self._subsample(deg_i)
                ref_q = self._subsample(ref_q)
                deg_q = self._subsample(deg_q)

        n_scales = 3
        coeffs_ref_y = self._haar_wavelet_decompose(
            ref_y, n_scales
        )  # n_scales x B x 1 x H x W
        coeffs_deg_y = self._haar_wavelet_decompose(deg_y, n_scales)
        if is_color_image:
            coefficients_ref_i = torch.abs(
                self._convolve2d(
                    ref_i,
                    torch.ones((2, 2), device=ref_i.device, dtype=ref_i.dtype) / 4.0,
                )
            )
            coefficients_deg_i = torch.abs(
                self._convolve2d(
                    deg_i,
                    torch.ones((2, 2), device=deg_i.device, dtype=deg_i.dtype) / 4.0,
                )
            )
            coefficients_ref_q = torch.abs(
                self._convolve2d(
                    ref_q,
                    torch.ones((2, 2), device=ref_q.device, dtype=ref_q.dtype) / 4.0,
                )
            )
            coefficients_deg_q = torch.abs(
                self._convolve2d(
                    deg_q,
                    torch.ones((2, 2), device=deg_q.device, dtype=deg_q.dtype) / 4.0,
                )
            )

        B, _, H, W = ref_y.shape
        n_channels = 3 if is_color_image else 2

        local_similarities = torch.zeros(n_channels, B, 1, H, W, device=ref_y.device)
        weights = torch.zeros(n_channels, B, 1, H, W, device=ref_y.device)

        for orientation in [0, 1]:
            weights[orientation] = self._get_weights_for_orientation(
                coeffs_deg_y, coeffs_ref_y, n_scales, orientation
            )
            local_similarities[orientation] = (
                self._get_local_similarity_for_orientation(
                    self.C, coeffs_deg_y, coeffs_ref_y, n_scales, orientation
                )
            )

        if is_color_image:
            similarity_i = (2 * coefficients_ref_i * coefficients_deg_i + self.C) / (
                coefficients_ref_i**2 + coefficients_deg_i**2 + self.C
            )
            similarity_q = (2 * coefficients_ref_q * coefficients_deg_q + self.C) / (
                coefficients_ref_q**2 + coefficients_deg_q**2 + self.C
            )
            local_similarities[2, :, :, :, :] = (similarity_i + similarity_q) / 2
            weights[2, :, :, :, :] = (
                weights[0, :, :, :, :] + weights[1, :, :, :, :]
            ) / 2

        pre_logit = torch.sum(
            torch.sigmoid(self.alpha * local_similarities) * weights, dim=(0, 3, 4)
        ) / torch.sum(weights, dim=(0, 3, 4))

        logit = lambda value, alpha: torch.log(value / (1 - value)) / alpha
        similarity = logit(pre_logit, self.alpha) ** 2
        return similarity[:, 0]

    def _get_local_similarity_for_orientation(
        self,
        C: float,
        coeffs_deg_y: Tensor,
        coeffs_ref_y: Tensor,
        n_scales: int,
        orientation: int,
    ) -> Tensor:
        """Helper function to get local similarity.

        :param float C: C parameter
        :param Tensor coeffs_deg_y: x_net wavelet coefficients.
        :param Tensor coeffs_ref_y: x wavelet coefficients.
        :param int n_scales: number of scales
        :param int orientation: orientation, 0 or 1
        :return: torch Tensor local similarity of shape B,1,H,W
        """
        coeffs_ref_y_magnitude = coeffs_ref_y.abs()[
            (orientation * n_scales, 1 + orientation * n_scales), :, :
        ]
        coeffs_deg_y_magnitude = coeffs_deg_y.abs()[
            (orientation * n_scales, 1 + orientation * n_scales), :, :
        ]

        frac = (2 * coeffs_ref_y_magnitude * coeffs_deg_y_magnitude + C) / (
            coeffs_ref_y_magnitude**2 + coeffs_deg_y_magnitude**2 + C
        )  # 2,B,1,H,W
        return (frac[0] + frac[1]) / 2

    def _get_weights_for_orientation(
        self,
        coeffs_deg_y: Tensor,
        coeffs_ref_y: Tensor,
        n_scales: int,
        orientation: int,
    ) -> Tensor:
        """Helper function to get weights.

        :param Tensor coeffs_deg_y: x_net wavelet coefficients.
        :param Tensor coeffs_ref_y: x wavelet coefficients.
        :param int n_scales: number of scales
        :param int orientation: orientation, 0 or 1
        :return: torch Tensor weights of shape B,1,H,W
        """
        return torch.maximum(
            coeffs_ref_y[2 + orientation * n_scales].abs(),
            coeffs_deg_y[2 + orientation * n_scales].abs(),
        )

    def _subsample(self, image: Tensor, factor: int = 2) -> Tensor:
        """Helper function to subsample image.

        :param Tensor image: input image
        :param int factor: downsampling factor, defaults to 2
        :return Tensor: subsampled image
        """
        kernel = torch.ones(factor, factor, device=image.device) / (factor**2)
        return self._convolve2d(image, kernel)[:, :, ::factor, ::factor]

    def _convolve2d(self, data: Tensor, kernel: Tensor) -> Tensor:
        """Helper function to perform 2D convolution

        :param Tensor data: input data
        :param Tensor kernel: convolution kernel
        :return Tensor: output image
        """
        res = torch.nn.functional.conv2d(
            torch.rot90(data, 2, [2, 3]),
            kernel.unsqueeze(0).unsqueeze(0),
            padding=(kernel.shape[0] // 2, kernel.shape[1] // 2),
        )
        res = torch.nn.functional.interpolate(
            res, data.shape[-2:], mode="nearest", align_corners=None
        )
        res = torch.rot90(res, 2, [2, 3])
        return res

    def _get_haar_filter(self, scale: int, device: torch.device) -> Tensor:
        """Helper function to get Haar filter.

        :param int scale: filter scale
        :param torch.device device: torch device
        :return Tensor: Haar filter
        """
        haar_filter = 2**-scale * torch.ones(2**scale, 2**scale, device=device)
        haar_filter[: haar_filter.shape[0] // 2, :] = -haar_filter[
            : haar_filter.shape[0] // 2, :
        ]
        return haar_filter

    def _haar_wavelet_decompose(self, image: Tensor, number_of_scales: int) -> Tensor:
        """Decompose image in wavelet domain

        :param Tensor image: input image
        :param int number_of_scales: number of scales.
        :return Tensor: wavelet coefficients.
        """
        coefficients = torch.zeros(
            2 * number_of_scales, *image.shape, device=image.device
        )
        for scale in range(1, number_of_scales + 1):
            haar_filter = self._get_haar_filter(scale, image.device)
            coefficients[scale - 1] = self._convolve2d(image, haar_filter)
            coefficients[scale + number_of_scales - 1] = self._convolve2d(
                image, haar_filter.t()
            )
        return coefficients


class CosineSimilarity(Metric):
    r"""
    Cosine similarity metric.

    Computes cosine similarity between reconstruction :math:`\hat{x}` and ground truth :math:`x`.
    A higher value means more similar. The metric is calculated as:

    :math:`\text{CosineSim}(\hat{x}, x) =\dfrac{\langle \hat{x}, x \rangle}{\|\hat{x}\|_2 \, \|x\|_2}`,where :math:`\langle \hat{x}, x \rangle` is the Euclidean inner product.

    .. note::

        By default, no reduction is applied over the batch dimension.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import CosineSimilarity
    >>> m = CosineSimilarity()
    >>> x_net = x = torch.ones(3, 2, 8, 8) # B,C,H,W
    >>> m(x_net, x)
    tensor([1.0000, 1.0000, 1.0000])

    :param bool complex_abs: take complex magnitude before computing similarity.
    :param str reduction: reduction over batch ("mean", "sum", "none"/None).
    :param str norm_inputs: normalization for inputs ("l2", "min_max", or None).
    :param int, tuple[int], None center_crop: crop before computing metric.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # store cosine similarity function
        # we compute per-element similarities manually (not using torch metric class)
        self.cos = torch.nn.functional.cosine_similarity
        self.lower_better = False

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        # flatten everything except batch dimension
        # cosine_similarity requires feature dimension last
        B = x.shape[0]
        x_net_f = x_net.reshape(B, -1)
        x_f = x.reshape(B, -1)

        # cosine_similarity returns shape [B]
        sim = self.cos(x_net_f, x_f, dim=1)

        # our Metric base class applies reduction afterward
        return sim

    def invert_metric(self, m: Tensor) -> Tensor:
        return 1.0 - m


class GMSD(Metric):
    r"""
    Gradient Magnitude Similarity Deviation (GMSD) metric.

    Calculates :math:`\text{GMSD}(\hat{x},x)`, as proposed in :footcite:t:`xue2013gradient`.
    GMSD measures perceptual image quality from the standard deviation of the pixel-wise gradient magnitude
    similarity (GMS) map. A lower value indicates better quality.

    The reference and reconstructed gradient magnitudes :math:`m_x` and :math:`m_{\hat{x}}` are computed using the
    Prewitt operators :math:`h_x, h_y`,

    .. math::
        m_x = \sqrt{(x \ast h_x)^2 + (x \ast h_y)^2},\qquad
        m_{\hat{x}} = \sqrt{(\hat{x} \ast h_x)^2 + (\hat{x} \ast h_y)^2},

    where :math:`\ast` denotes 2D convolution. The pixel-wise GMS map is

    .. math::
        \text{GMS}(\hat{x},x) = \frac{2 m_x m_{\hat{x}} + c}{m_x^2 + m_{\hat{x}}^2 + c},

    where c is a small stability constant.
    GMSD is the spatial standard deviation of this map computed independently for each image in the batch.
    For multi-channel images, GMSD is calculated independently for each channel, then averaged across channels to produce a single scalar per image.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import GMSD
    >>> m = GMSD()
    >>> x_net = x = torch.ones(3, 1, 8, 8) # B,1,H,W
    >>> m(x_net, x)
    tensor([0., 0., 0.])

    :param float c: positive stability constant :math:`c` of the GMS map. The original paper uses :math:`c=170`
        for images in :math:`[0, 255]`. Rescale accordingly for images in :math:`[0, 1]`. Default: 0.0026.
    :param bool complex_abs: perform complex magnitude before passing data to metric function. If ``True``,
        the data must either be of complex dtype or have size 2 in the channel dimension (usually the second dimension after batch).
    :param str reduction: a method to reduce metric score over individual batch scores. ``mean``: takes the mean, ``sum`` takes the sum, ``none`` or None no reduction will be applied (default).
    :param str norm_inputs: normalize images before passing to metric. ``l2`` normalizes by :math:`\ell_2` spatial norm, ``min_max`` normalizes by min and max of each input.
    :param int, tuple[int], None center_crop: If not `None` (default), center crop the tensor(s) before computing the metrics.
        If an `int` is provided, the cropping is applied equally on all spatial dimensions (by default, all dimensions except the first two).
        If `tuple` of `int`, cropping is performed over the last `len(center_crop)` dimensions. If positive values are provided, a standard center crop is applied.
        If negative (or zero) values are passed, cropping will be done by removing `center_crop` pixels from the borders (useful when tensors vary in size across the dataset).
    """

    def __init__(self, c: float = 0.0026, **kwargs):
        super().__init__(**kwargs)
        self.c = c

    def _build_hx_hy(self, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        hx = torch.tensor(
            [[1 / 3, 0, -1 / 3], [1 / 3, 0, -1 / 3], [1 / 3, 0, -1 / 3]],
            device=device,
        ).view(1, 1, 3, 3)

        hy = torch.tensor(
            [[1 / 3, 1 / 3, 1 / 3], [0, 0, 0], [-1 / 3, -1 / 3, -1 / 3]],
            device=device,
        ).view(1, 1, 3, 3)
        return hx, hy

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        if x_net.shape != x.shape:
            raise ValueError(
                f"x_net and x must be same shape, but got {tuple(x_net.shape)} and {tuple(x.shape)}"
            )
        if x_net.device != x.device:  # pragma: no cover
            raise ValueError(
                f"GMSD requires x_net {x_net.device} and x {x.device} to be on the same device, "
            )
        if len(x_net.shape) != 4:
            raise ValueError(
                f"GMSD requires tensors of shape (B, C, H, W). Got {tuple(x_net.shape)}"
            )
        hx, hy = self._build_hx_hy(x_net.device)
        B, C, H, W = x.shape

        # Reshape to (B*C, 1, H, W) to process all channels independently
        x_bc = x.reshape(B * C, 1, H, W)
        x_net_bc = x_net.reshape(B * C, 1, H, W)

        grad_mag_x = torch.hypot(
            conv2d(x_bc, hx, padding="replicate"),
            conv2d(x_bc, hy, padding="replicate"),
        )
        grad_mag_x_net = torch.hypot(
            conv2d(x_net_bc, hx, padding="replicate"),
            conv2d(x_net_bc, hy, padding="replicate"),
        )

        gms = (2 * grad_mag_x * grad_mag_x_net + self.c) / (
            grad_mag_x**2 + grad_mag_x_net**2 + self.c
        )

        # gms shape: (B*C, 1, H, W) → reshape to (B, C, H, W)
        gms = gms.reshape(B, C, H, W)

        # Compute std (GMSD) over spatial dims for each (batch, channel): → (B, C)
        # population std (correction=0) as per original GMSD paper.
        gmsd_per_channel = gms.std(dim=(-2, -1), correction=0)

        return gmsd_per_channel.mean(dim=-1)


class RecoveryCoefficient(Metric):
    r"""
    Recovery Coefficient metric used in emission tomography.

    Computes the ratio between the total reconstructed activity and the total
    ground-truth activity inside a given region of interest, defined by a mask:

    .. math::

        RC = \frac{\sum_i \hat{x}_i m_i}
                  {\sum_i x_i m_i + \varepsilon}

    where :math:`\hat{x}` is the reconstructed image, :math:`x` is the ground-truth
    image, :math:`m` is a binary or weighted mask defining the region of interest,
    and :math:`\varepsilon` is a small constant added for numerical stability.

    A value of ``1`` indicates perfect recovery of activity within the masked region.
    Values below ``1`` indicate underestimation, while values above ``1`` indicate
    overestimation.

    .. note::

        This metric requires a ``mask`` keyword argument to be provided during
        evaluation.

    .. note::

        Higher values are better when they are closer to ``1``. Therefore,
        ``lower_better=False``.

    :Example:

    >>> import torch
    >>> from deepinv.loss.metric import RecoveryCoefficient
    >>> m = RecoveryCoefficient()
    >>> x = torch.ones(2, 1, 4, 4)
    >>> x_net = torch.ones(2, 1, 4, 4)
    >>> mask = torch.ones_like(x)
    >>> m(x_net, x, mask=mask)
    tensor([1., 1.])

    :param float eps: Small constant added to the denominator for numerical stability.
    :param kwargs: Additional keyword arguments passed to the parent
        :class:`deepinv.loss.metric.Metric` class.
    """

    def __init__(self, eps: float = None, **kwargs):
        super().__init__(**kwargs)
        self.eps = eps
        self.lower_better = False

    def metric(self, x_net: Tensor, x: Tensor, *args, **kwargs) -> Tensor:
        mask = kwargs.get("mask", None)
        if mask is None:
            raise ValueError("Recovery Coefficient requires a mask argument.")
        mask = mask.to(x.dtype)
        dims = tuple(range(1, x.ndim))
        recon_activity = (x_net * mask).sum(dim=dims)
        gt_activity = (x * mask).sum(dim=dims)

        eps_per_dtype = {torch.float16: 1e-4, torch.float32: 1e-7, torch.float64: 1e-12}
        eps = self.eps if self.eps is not None else eps_per_dtype.get(x_net.dtype, 1e-7)

        return recon_activity / (gt_activity + eps)

    def invert_metric(self, m: Tensor) -> Tensor:
        r""" "Invert metric for use as a training loss.
        Recovery Coefficient is optimal at 1 so a sign flip does not produce a valid
        loss
        :param torch.Tensor m: calculated metric
        """
        return (m - 1).abs()
