from typing import cast

import torch
from torch import nn


def log_t(u: torch.Tensor, t: float) -> torch.Tensor:
    """Compute the tempered logarithm of `u`."""
    return u.log() if t == 1.0 else (u.pow(1.0 - t) - 1.0) / (1.0 - t)


def exp_t(u: torch.Tensor, t: float) -> torch.Tensor:
    """Compute the tempered exponential of `u`."""
    return u.exp() if t == 1 else (1.0 + (1.0 - t) * u).relu().pow(1.0 / (1.0 - t))


def compute_normalization_fixed_point(activations: torch.Tensor, t: float, num_iters: int) -> torch.Tensor:
    """Return the normalization value for each example (t > 1.0).

    Args:
        activations: A multidimensional tensor with the last dimension representing classes.
        t: Temperature value (> 1.0 for tail heaviness).
        num_iters: Number of iterations to run the method.

    """
    mu, _ = torch.max(activations, dim=-1, keepdim=True)

    normalized_activations_step_0 = activations - mu

    normalized_activations = normalized_activations_step_0

    for _ in range(num_iters):
        logt_partition = torch.sum(exp_t(normalized_activations, t), dim=-1, keepdim=True)
        normalized_activations = normalized_activations_step_0 * logt_partition.pow(1.0 - t)

    logt_partition = torch.sum(exp_t(normalized_activations, t), dim=-1, keepdim=True)

    return -log_t(1.0 / logt_partition, t) + mu


def compute_normalization_binary_search(activations: torch.Tensor, t: float, num_iters: int) -> torch.Tensor:
    """Compute normalization value for each example (t < 1.0).

    Args:
        activations: A multidimensional tensor with the last dimension `num_classes`.
        t: Temperature parameter (< 1.0 for peak sharpening).
        num_iters: Number of iterations to run the normalization.

    """
    mu, _ = torch.max(activations, dim=-1, keepdim=True)
    normalized_activations = activations - mu

    effective_dim = torch.sum((normalized_activations > -1.0 / (1.0 - t)).to(torch.int32), dim=-1, keepdim=True).to(
        activations.dtype
    )

    shape_partition: tuple[int, ...] = (*activations.shape[:-1], 1)

    lower = torch.zeros(shape_partition, dtype=activations.dtype, device=activations.device)
    upper = -log_t(1.0 / effective_dim, t) * torch.ones_like(lower)

    for _ in range(num_iters):
        logt_partition = (upper + lower) / 2.0
        sum_probs = torch.sum(exp_t(normalized_activations - logt_partition, t), dim=-1, keepdim=True)
        update = (sum_probs < 1.0).to(activations.dtype)
        lower = torch.reshape(lower * update + (1.0 - update) * logt_partition, shape_partition)
        upper = torch.reshape(upper * (1.0 - update) + update * logt_partition, shape_partition)

    logt_partition = (upper + lower) / 2.0

    return logt_partition + mu


class ComputeNormalization(torch.autograd.Function):
    """Compute tempered normalization with a custom backward pass."""

    @staticmethod
    def forward(ctx, activations: torch.Tensor, t: float, num_iters: int) -> torch.Tensor:
        normalization_constants = (
            compute_normalization_binary_search(activations, t, num_iters)
            if t < 1.0
            else compute_normalization_fixed_point(activations, t, num_iters)
        )

        ctx.save_for_backward(activations, normalization_constants)
        ctx.t = t

        return normalization_constants

    @staticmethod
    def backward(ctx, grad_output):
        activations, normalization_constants = ctx.saved_tensors
        t = ctx.t

        normalized_activations = activations - normalization_constants
        probabilities = exp_t(normalized_activations, t)
        escorts = probabilities.pow(t)
        escorts = escorts / escorts.sum(dim=-1, keepdim=True)
        grad_input = escorts * grad_output

        return grad_input, None, None


def compute_normalization(activations: torch.Tensor, t: float, num_iters: int = 5) -> torch.Tensor:
    """Compute the normalization constant for each example.

    Args:
        activations: A multidimensional tensor with the last dimension `num_classes`.
        t: Temperature. Values above 1 give heavy tails. Values below 1 give finite support.
        num_iters: Number of iterations to run the method.

    """
    return cast(torch.Tensor, ComputeNormalization.apply(activations, t, num_iters))


def tempered_softmax(activations: torch.Tensor, t: float, num_iters: int = 5) -> torch.Tensor:
    """Compute tempered softmax probabilities along the last dimension.

    Args:
        activations: A multidimensional tensor with last dimension `num_classes`.
        t: Temperature. `1` gives standard softmax. Other values use tempered normalization.
        num_iters: Number of iterations to run the method.

    """
    if t == 1.0:
        return activations.softmax(dim=-1)

    normalization_constants: torch.Tensor = compute_normalization(activations, t, num_iters)

    return exp_t(activations - normalization_constants, t)


def bi_tempered_logistic_loss(
    activations: torch.Tensor,
    labels: torch.Tensor,
    t1: float,
    t2: float,
    label_smooth: float = 0.0,
    num_iters: int = 5,
    reduction: str = 'mean',
) -> torch.Tensor:
    """Compute bi-tempered logistic loss from logits and labels.

    Args:
        activations: A multidimensional tensor with last dimension `num_classes`.
        labels: Tensor with the same shape and dtype as activations (one-hot encoded), or a long tensor with one
            dimension less (class indices).
        t1: Temperature 1 (< 1.0 for boundedness of loss).
        t2: Temperature 2 (> 1.0 for tail heaviness, < 1.0 for finite support).
        label_smooth: Label smoothing parameter, between 0 and 1.
        num_iters: Number of iterations to run the normalization method.
        reduction: Specifies reduction method to apply to output: 'none', 'mean', or 'sum'.

    Returns:
        torch.Tensor: Loss with the class dimension reduced, followed by the requested reduction.

    """
    if len(labels.shape) < len(activations.shape):
        labels_onehot = torch.zeros_like(activations)
        labels_onehot.scatter_(-1, labels[..., None], 1)
    else:
        labels_onehot = labels

    if label_smooth > 0:
        num_classes: int = labels_onehot.shape[-1]
        labels_onehot = (1.0 - label_smooth * num_classes / (num_classes - 1)) * labels_onehot + label_smooth / (
            num_classes - 1
        )

    probabilities = tempered_softmax(activations, t2, num_iters)

    loss_values = (
        labels_onehot * log_t(labels_onehot + 1e-10, t1)
        - labels_onehot * log_t(probabilities, t1)
        - labels_onehot.pow(2.0 - t1) / (2.0 - t1)
        + probabilities.pow(2.0 - t1) / (2.0 - t1)
    )
    loss_values = loss_values.sum(dim=-1)

    if reduction == 'sum':
        return loss_values.sum()
    if reduction == 'mean':
        return loss_values.mean()
    return loss_values


class BiTemperedLogisticLoss(nn.Module):
    """Bi-tempered logistic loss for multiclass predictions.

    Reference:
        https://github.com/BloodAxe/pytorch-toolbelt/blob/develop/pytorch_toolbelt/losses/bitempered_loss.py

    Args:
        t1: Temperature 1 (< 1.0 for boundedness).
        t2: Temperature 2 (> 1.0 for tail heaviness, < 1.0 for finite support).
        label_smooth: Label smoothing parameter between 0 and 1.
        ignore_index: Index to ignore during loss calculation.
        reduction: Type of reduction to apply to output, e.g. 'mean', 'sum', or 'none'.

    """

    def __init__(
        self,
        t1: float,
        t2: float,
        label_smooth: float = 0.0,
        ignore_index: int | None = None,
        reduction: str = 'mean',
    ):
        super().__init__()
        self.t1 = t1
        self.t2 = t2
        self.label_smooth = label_smooth
        self.ignore_index = ignore_index
        self.reduction = reduction

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Compute bi-tempered logistic loss for multiclass predictions.

        Args:
            predictions: Logits with classes along the last dimension.
            targets: Class indices or one-hot labels. Use class indices with `ignore_index`.

        Returns:
            torch.Tensor: Per example loss or the requested scalar reduction.

        """
        mask = (
            ~targets.eq(self.ignore_index)
            if self.ignore_index is not None
            else torch.ones_like(targets, dtype=torch.bool)
        )
        labels = targets.masked_fill(~mask, 0) if self.ignore_index is not None else targets
        loss = bi_tempered_logistic_loss(
            predictions, labels, t1=self.t1, t2=self.t2, label_smooth=self.label_smooth, reduction='none'
        )

        if self.ignore_index is not None:
            loss *= mask

        if self.reduction == 'mean':
            loss = loss.sum() / mask.sum().clamp_min(1) if self.ignore_index is not None else loss.mean()
        elif self.reduction == 'sum':
            loss = loss.sum()
        return loss


class BinaryBiTemperedLogisticLoss(nn.Module):
    """Bi-tempered logistic loss for binary predictions.

    Args:
        t1: Temperature 1 (< 1.0 for boundedness of the loss).
        t2: Temperature 2 (> 1.0 for tail heaviness, < 1.0 for finite support).
        label_smooth: Label smoothing parameter between 0 and 1.
        ignore_index: Specifies a target value that is ignored and does not contribute to the input gradient.
        reduction: Specifies the reduction to apply to the output: 'none', 'mean', or 'sum'.

    """

    def __init__(
        self,
        t1: float,
        t2: float,
        label_smooth: float = 0.0,
        ignore_index: int | None = None,
        reduction: str = 'mean',
    ):
        super().__init__()
        self.t1 = t1
        self.t2 = t2
        self.label_smooth = label_smooth
        self.ignore_index = ignore_index
        self.reduction = reduction

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Compute bi-tempered logistic loss for binary predictions.

        Args:
            predictions: Logits with shape `(N, 1, ...)`.
            targets: Binary labels with the same shape as `predictions`.

        Returns:
            torch.Tensor: Per entry loss or the requested scalar reduction.

        Raises:
            ValueError: Predictions or targets do not have exactly one channel.

        """
        if predictions.size(1) != 1 or targets.size(1) != 1:
            raise ValueError('Channel dimension for predictions and targets must be equal to 1')

        loss = bi_tempered_logistic_loss(
            torch.cat((-predictions, predictions), dim=1).moveaxis(1, -1),
            torch.cat((1.0 - targets, targets), dim=1).moveaxis(1, -1),
            t1=self.t1,
            t2=self.t2,
            label_smooth=self.label_smooth,
            reduction='none',
        ).unsqueeze(dim=1)

        if self.ignore_index is not None:
            mask = targets.eq(self.ignore_index)
            loss = torch.masked_fill(loss, mask, value=0)

        if self.reduction == 'mean':
            loss = loss.mean()
        elif self.reduction == 'sum':
            loss = loss.sum()
        return loss
