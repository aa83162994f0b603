import logging
from typing import Optional

import torch
from torch import nn

from ..api import LossInfo, Paper, Representation, Task
from ..utils import apply_reduction, contains_unknown, is_unknown
from .crossentropy import cross_entropy

log = logging.getLogger(__name__)


class OutlierExposureLoss(nn.Module):
    """
    Loss from the paper *Deep Anomaly Detection With Outlier Exposure*.
    While the formulation in the original paper is very general, this module implements the exact loss that
    was used in the corresponding experiments.

    The loss is defined as

    .. math::
        \\mathcal{L}(x, y)
       =
       \\Biggl \\lbrace
       {
       -\\log \\sigma_y(f(x)) \\quad \\quad \\quad  \\quad   \\quad \\quad \\quad  \\quad  \\quad \\quad  \\text{if } y \\geq 0
        \\atop
       \\alpha \\Bigl(\\log \\sum_{c=1}^C e^{f(x)_c} - \\frac{1}{C} \\sum_{c=1}^C f(x)_c\\Bigr) \\quad \\text{ otherwise }
       }


    where :math:`C` is the number of classes, :math:`\\alpha` is a hyperparameter, and :math:`\\sigma_y`
    denotes the :math:`y^{th}` softmax output.
    """

    info = LossInfo(
        paper=Paper(
            title="Deep Anomaly Detection with Outlier Exposure",
            venue="ICLR",
            year=2019,
            url="https://arxiv.org/abs/1812.04606",
            code="https://github.com/hendrycks/outlier-exposure",
        ),
        tasks={Task.CLASSIFICATION, Task.SEGMENTATION},
        inputs={Representation.LOGITS},
        supervised=True,
    )

    def __init__(self, alpha: float = 0.5, reduction: Optional[str] = "mean"):
        """
        :param alpha: weighting coefficient :math:`\\alpha`
        :param reduction: reduction method, one of ``mean``, ``sum`` or ``none``
        """
        super(OutlierExposureLoss, self).__init__()
        self.alpha = alpha
        self.reduction = reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """
        :param logits: class logits of shape :math:`B \\times C` or :math:`B \\times C \\times H \\times W`
        :param target: labels of shape :math:`B` or :math:`B \\times H \\times W`; labels :math:`< 0` are OOD
        :return: loss; if the reduction is ``none``, one value per sample (or per pixel)
        :raises ValueError: if ``logits`` are neither two- nor four-dimensional
        """

        # for classification
        if len(logits.shape) == 2:
            loss_oe = torch.zeros(logits.shape[0], device=logits.device)
            loss_ce = cross_entropy(logits, target, reduction=None)

            if contains_unknown(target):
                unknown = is_unknown(target)
                loss_oe[unknown] = -(
                    logits[unknown].mean(dim=1) - torch.logsumexp(logits[unknown], dim=1)
                )

            return apply_reduction(loss_ce + self.alpha * loss_oe, reduction=self.reduction)

        # for segmentation
        elif len(logits.shape) == 4:
            loss_ce = cross_entropy(logits, target, reduction=None)
            # move class axis to the back
            logits = logits.permute(0, 2, 3, 1)

            if contains_unknown(target):
                unknown = is_unknown(target)
                # mean over class axis
                loss_oe = -(logits.mean(dim=-1) - torch.logsumexp(logits, dim=-1))

                fp32zero = torch.zeros((1,), dtype=torch.float, device=logits.device)
                loss_oe = torch.where(target.float() < 0, loss_oe, fp32zero)

            else:
                loss_oe = torch.zeros(logits.shape[:3], device=logits.device)

            return apply_reduction(loss_ce + self.alpha * loss_oe, reduction=self.reduction)
        else:
            raise ValueError(f"Unsupported input shape: {logits.shape}")
