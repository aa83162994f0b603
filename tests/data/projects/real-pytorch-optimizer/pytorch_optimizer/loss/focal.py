import torch
from torch import nn
from torch.nn.functional import (
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    cross_entropy,
    normalize,
    one_hot,
)

from pytorch_optimizer.loss.cross_entropy import BCELoss
from pytorch_optimizer.loss.tversky import TverskyLoss


class FocalLoss(nn.Module):
    """Binary focal loss for logits.

    Args:
        alpha: Multiplier applied to the loss for all examples.
        gamma: Exponent that reduces the contribution of easy examples.

    """

    def __init__(self, alpha: float = 1.0, gamma: float = 2.0):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma

    def forward(self, y_pred: torch.Tensor, y_true: torch.Tensor) -> torch.Tensor:
        """Compute the loss for predictions and targets.

        Args:
            y_pred: Binary logits, with the same shape as `y_true`.
            y_true: Binary targets in `[0, 1]`.

        Returns:
            torch.Tensor: Mean focal loss over all entries.

        """
        bce_loss = binary_cross_entropy_with_logits(y_pred, y_true, reduction='none')
        pt = torch.exp(-bce_loss)
        focal_loss = self.alpha * (1 - pt) ** self.gamma * bce_loss
        return focal_loss.mean()


class FocalCosineLoss(nn.Module):
    """Combined cosine embedding and multiclass focal loss for logits.

    Args:
        alpha: Multiplier for the focal loss component.
        gamma: Focusing parameter to reduce loss contribution from easy examples.
        focal_weight: Weight of the focal loss component in the combined loss.
        reduction: Specifies the reduction to apply to the output: 'none', 'mean', or 'sum'.

    """

    def __init__(self, alpha: float = 1.0, gamma: float = 2.0, focal_weight: float = 0.1, reduction: str = 'mean'):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma
        self.focal_weight = focal_weight
        self.reduction = reduction

    def forward(self, y_pred: torch.Tensor, y_true: torch.Tensor) -> torch.Tensor:
        """Compute the loss for predictions and targets.

        Args:
            y_pred: Class logits with shape `(N, C)`.
            y_true: Class indices with shape `(N,)`.

        Returns:
            torch.Tensor: Combined cosine and focal loss with the requested reduction.

        """
        cosine_loss = cosine_embedding_loss(
            y_pred,
            one_hot(y_true, num_classes=y_pred.size(-1)),
            torch.tensor([1], device=y_true.device),
            reduction=self.reduction,
        )

        ce_loss = cross_entropy(normalize(y_pred), y_true, reduction='none')
        pt = torch.exp(-ce_loss)
        focal_loss = self.alpha * (1 - pt) ** self.gamma * ce_loss
        if self.reduction == 'mean':
            focal_loss = focal_loss.mean()
        elif self.reduction == 'sum':
            focal_loss = focal_loss.sum()

        return cosine_loss + self.focal_weight * focal_loss


class BCEFocalLoss(nn.Module):
    """Binary focal loss for probabilities, with optional label smoothing.

    Apply alpha to positive targets and 1 - alpha to negative targets.
    The focusing factor is (1 - p) ** gamma for positives and p ** gamma
    for negatives. Label smoothing applies to the underlying BCE term.

    Reference:
        https://arxiv.org/abs/1708.02002

    Args:
        alpha: Weighting factor for class imbalance, commonly set to 0.25.
        gamma: Focusing parameter to reduce loss contribution of easy examples.
        label_smooth: Smoothness constant to regularize target labels.
        eps: Small epsilon to avoid numerical instability.
        reduction: Specifies reduction type to apply to output: 'none', 'mean' or 'sum'.

    """

    def __init__(
        self,
        alpha: float = 0.25,
        gamma: float = 2.0,
        label_smooth: float = 0.0,
        eps: float = 1e-6,
        reduction: str = 'mean',
    ):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma
        self.reduction = reduction

        self.bce = BCELoss(label_smooth=label_smooth, eps=eps, reduction='none')

    def forward(self, y_pred: torch.Tensor, y_true: torch.Tensor) -> torch.Tensor:
        """Compute the loss for predictions and targets.

        Args:
            y_pred: Binary probabilities, with the same shape as `y_true`.
            y_true: Binary targets in `[0, 1]`.

        Returns:
            torch.Tensor: Elementwise loss or the requested scalar reduction.

        """
        bce_loss = self.bce(y_pred, y_true)
        pt = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
        alpha_t = y_true * self.alpha + (1.0 - y_true) * (1.0 - self.alpha)
        focal_loss = alpha_t * (1.0 - pt) ** self.gamma * bce_loss

        if self.reduction == 'none':
            return focal_loss
        return focal_loss.mean() if self.reduction == 'mean' else focal_loss.sum()


class FocalTverskyLoss(nn.Module):
    """Focal Tversky loss for binary segmentation logits.

    Args:
        alpha: Weight of false positives.
        beta: Weight of false negatives.
        gamma: Exponent applied to the Tversky loss.
        smooth: Smoothing factor to avoid division by zero.

    """

    def __init__(self, alpha: float = 0.5, beta: float = 0.5, gamma: float = 1.0, smooth: float = 1e-6):
        super().__init__()
        self.gamma = gamma

        self.tversky = TverskyLoss(alpha, beta, smooth)

    def forward(self, y_pred: torch.Tensor, y_true: torch.Tensor) -> torch.Tensor:
        """Compute the loss for predictions and targets.

        Args:
            y_pred: Binary segmentation logits.
            y_true: Binary masks with the same shape as `y_pred`.

        Returns:
            torch.Tensor: Scalar Tversky loss raised to `gamma`.

        """
        return self.tversky(y_pred, y_true) ** self.gamma
