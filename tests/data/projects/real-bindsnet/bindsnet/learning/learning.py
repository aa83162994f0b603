import warnings
from abc import ABC
from typing import Optional, Sequence, Union

import numpy as np
import torch
import torch.nn.functional as F
import torch.nn.grad as conv_grad
from torch.nn.modules.utils import _pair

from bindsnet.utils import im2col_indices
from ..network.nodes import SRM0Nodes
from ..network.topology import (
    AbstractConnection,
    Connection,
    Conv1dConnection,
    Conv2dConnection,
    Conv3dConnection,
    LocalConnection,
    LocalConnection1D,
    LocalConnection2D,
    LocalConnection3D,
)

_CONV_WEIGHT_GRAD = {
    1: conv_grad.conv1d_weight,
    2: conv_grad.conv2d_weight,
    3: conv_grad.conv3d_weight,
}


def _conv_point_eligibility(connection, p_plus, p_minus, source_s, target_s, dim):
    # language=rst
    """
    Florian (2007) point eligibility for a convolutional connection, computed as
    the convolution weight-gradient so it matches the forward weight layout for
    any number of channels / stride / padding / dilation. Returned batch-summed
    with shape ``connection.w.shape``.

    ``eligibility[o, i, *k] = sum_b sum_p  P+[b, i, rf(p,k)] * post[b, o, p]``
    ``                              + pre[b, i, rf(p,k)] * P-[b, o, p]``
    """
    grad_fn = _CONV_WEIGHT_GRAD[dim]
    kw = dict(
        stride=connection.stride,
        padding=connection.padding,
        dilation=connection.dilation,
    )
    return grad_fn(p_plus, connection.w.shape, target_s, **kw) + grad_fn(
        source_s, connection.w.shape, p_minus, **kw
    )


def _dense_outer_update_ok(rule, w: torch.Tensor) -> bool:
    # language=rst
    """
    Whether a rule's ``[batch, source.n] x [batch, target.n]`` outer-product
    update can be applied with a single fused ``w.addmm_`` call.

    This requires a dense float32 weight matrix, scalar learning rates (a
    per-synapse ``nu`` tensor cannot be folded into ``alpha``), and one of the
    two default batch reductions (``torch.squeeze`` for batch size 1,
    ``torch.sum`` otherwise), both of which equal the matrix product's
    contraction over the batch dimension.
    """
    return (
        not w.is_sparse
        and w.dtype == torch.float32
        and rule.nu.dim() == 1
        and rule.reduction in (torch.squeeze, torch.sum)
    )


def _row_scale(vec: torch.Tensor, mat: torch.Tensor) -> torch.Tensor:
    # language=rst
    """
    ``torch.bmm(torch.diag_embed(vec), mat)`` without building the
    ``[batch, n, n]`` diagonal matrix: scales row ``i`` of ``mat`` by
    ``vec[:, i]``. Bit-identical for finite values (the dropped terms are exact
    zeros).

    :param vec: Tensor of shape ``[batch, n, 1]`` or ``[batch, n]``.
    :param mat: Tensor of shape ``[batch, n, k]``.
    """
    if vec.dim() == 2:
        vec = vec.unsqueeze(2)
    return vec * mat


def _cached_decay(rule, name: str) -> torch.Tensor:
    # language=rst
    """
    ``exp(-dt / rule.<name>)`` computed once per ``(name, dt)`` and reused on
    every timestep instead of re-evaluating the exponential each call.
    """
    dt = float(rule.connection.dt)
    tc = getattr(rule, name)
    cache = rule.__dict__.setdefault("_decay_cache", {})
    # Keyed on the time constant's value too, so a later change to it is honoured.
    key = (name, dt, float(tc))
    if key not in cache:
        cache[key] = torch.exp(-dt / tc)
    return cache[key]


def _reward_rates(rule, kwargs: dict, device: torch.device):
    # language=rst
    """
    Return the ``(a_plus, a_minus)`` learning-rate tensors for the reward-modulated
    rules. The defaults (``1.0`` / ``-1.0``) are allocated once on ``device`` and
    reused, so a run that does not pass ``a_plus``/``a_minus`` no longer copies a
    fresh scalar to the device on every timestep.
    """
    cache = rule.__dict__.setdefault("_rate_cache", {})
    if cache.get("device") != device:
        cache["device"] = device
        cache["a_plus"] = torch.tensor(1.0, device=device)
        cache["a_minus"] = torch.tensor(-1.0, device=device)
    a_plus = kwargs.get("a_plus", None)
    a_minus = kwargs.get("a_minus", None)
    a_plus = (
        cache["a_plus"] if a_plus is None else torch.as_tensor(a_plus, device=device)
    )
    a_minus = (
        cache["a_minus"] if a_minus is None else torch.as_tensor(a_minus, device=device)
    )
    return a_plus, a_minus


class LearningRule(ABC):
    # language=rst
    """
    Abstract base class for learning rules.
    """

    def __init__(
        self,
        connection: AbstractConnection,
        nu: Optional[Union[float, Sequence[float], Sequence[torch.Tensor]]] = None,
        reduction: Optional[callable] = None,
        weight_decay: float = 0.0,
        **kwargs,
    ) -> None:
        # language=rst
        """
        Abstract constructor for the ``LearningRule`` object.

        :param connection: An ``AbstractConnection`` object.
        :param nu: Single or pair of learning rates for pre- and post-synaptic events. It also
            accepts a pair of tensors to individualize learning rates of each neuron.
            In this case, their shape should be the same size as the connection weights.
        :param reduction: Method for reducing parameter updates along the batch
            dimension.
        :param weight_decay: Coefficient controlling rate of decay of the weights each iteration.
        """
        # Connection parameters.
        self.connection = connection
        self.source = connection.source
        self.target = connection.target

        self.wmin = connection.wmin
        self.wmax = connection.wmax

        # Learning rate(s).
        if nu is None:
            self.nu = torch.tensor([0.0, 0.0], dtype=torch.float)
        elif isinstance(nu, (float, int)):
            self.nu = torch.tensor([nu, nu], dtype=torch.float)
        elif all(isinstance(element, (float, int)) for element in nu):
            self.nu = torch.tensor(nu, dtype=torch.float)
        else:
            self.nu = torch.stack(nu, dim=0).to(dtype=torch.float)

        if not self.nu.any() and not isinstance(self, NoOp):
            warnings.warn(
                f"nu is set to zeros for {type(self).__name__} learning rule. "
                + "It will disable the learning process."
            )

        # Parameter update reduction across minibatch dimension.
        if reduction is None:
            if self.source.batch_size == 1:
                self.reduction = torch.squeeze
            else:
                self.reduction = torch.sum
        else:
            self.reduction = reduction

        # Weight decay.
        self.weight_decay = 1.0 - weight_decay if weight_decay else 1.0

    def update(self) -> None:
        # language=rst
        """
        Abstract method for a learning rule update.
        """
        # Implement weight decay (1.0 is the no-decay default; skip the
        # full-matrix multiply in that case).
        if self.weight_decay != 1.0:
            self.connection.w *= self.weight_decay

        # Bound weights.
        if (
            (self.connection.wmin != -np.inf).any()
            or (self.connection.wmax != np.inf).any()
        ) and not isinstance(self, NoOp):
            if self.connection.w.is_sparse:
                raise Exception("SparseConnection isn't supported for wmin\\wmax")
            else:
                self.connection.w.clamp_(self.connection.wmin, self.connection.wmax)


class NoOp(LearningRule):
    # language=rst
    """
    Learning rule with no effect.
    """

    def __init__(
        self,
        connection: AbstractConnection,
        nu: Optional[Union[float, Sequence[float], Sequence[torch.Tensor]]] = None,
        reduction: Optional[callable] = None,
        weight_decay: float = 0.0,
        **kwargs,
    ) -> None:
        # language=rst
        """
        Abstract constructor for the ``LearningRule`` object.

        :param connection: An ``AbstractConnection`` object.
        :param nu: Single or pair of learning rates for pre- and post-synaptic events. It also
            accepts a pair of tensors to individualize learning rates of each neuron.
            In this case, their shape should be the same size as the connection weights.
        :param reduction: Method for reducing parameter updates along the batch
            dimension.
        :param weight_decay: Coefficient controlling rate of decay of the weights each iteration.
        """
        super().__init__(
            connection=connection,
            nu=nu,
            reduction=reduction,
            weight_decay=weight_decay,
            **kwargs,
        )

    def update(self, **kwargs) -> None:
        # language=rst
        """
        Abstract method for a learning rule update.
        """
        super().update()


class PostPre(LearningRule):
    # language=rst
    """
    Simple STDP rule involving both pre- and post-synaptic spiking activity. By default,
    pre-synaptic update is negative and the post-synaptic update is positive.
    """

    def __init__(
        self,
        connection: AbstractConnection,
        nu: Optional[Union[float, Sequence[float], Sequence[torch.Tensor]]] = None,
        reduction: Optional[callable] = None,
        weight_decay: float = 0.0,
        **kwargs,
    ) -> None:
        # language=rst
        """
        Constructor for ``PostPre`` learning rule.

        :param connection: An ``AbstractConnection`` object whose weights the
            ``PostPre`` learning rule will modify.
        :param nu: Single or pair of learning rates for pre- and post-synaptic events. It also
            accepts a pair of tensors to individualize learning rates of each neuron.
            In this case, their shape should be the same size as the connection weights.
        :param reduction: Method for reducing parameter updates along the batch
            dimension.
        :param weight_decay: Coefficient controlling rate of decay of the weights each iteration.
        """
        super().__init__(
            connection=connection,
            nu=nu,
            reduction=reduction,
            weight_decay=weight_decay,
            **kwargs,
        )

        assert (
            self.source.traces and self.target.traces
        ), "Both pre- and post-synaptic nodes must record spike traces."

        if isinstance(connection, (Connection, LocalConnection)):
            self.update = self._connection_update
        elif isinstance(connection, LocalConnection1D):
            self.update = self._local_connection1d_update
        elif isinstance(connection, LocalConnection2D):
            self.update = self._local_connection2d_update
        elif isinstance(connection, LocalConnection3D):
            self.update = self._local_connection3d_update
        elif isinstance(connection, Conv1dConnection):
            self.update = self._conv1d_connection_update
        elif isinstance(connection, Conv2dConnection):
            self.update = self._conv2d_connection_update
        elif isinstance(connection, Conv3dConnection):
            self.update = self._conv3d_connection_update
        else:
            raise NotImplementedError(
                "This learning rule is not supported for this Connection type."
            )

    def _local_connection1d_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``LocalConnection1D`` subclass of
        ``AbstractConnection`` class.
        """
        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size
        in_channels = self.connection.source.shape[0]
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size

        target_x = self.target.x.reshape(batch_size, out_channels * height_out, 1)
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-1, kernel_height, stride)
            .reshape(batch_size, height_out, in_channels * kernel_height)
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out, 1
        )
        source_x = (
            self.source.x.unfold(-1, kernel_height, stride)
            .reshape(batch_size, height_out, in_channels * kernel_height)
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(_row_scale(target_x, source_s), dim=0)
            self.connection.w -= self.nu[0] * pre.view(self.connection.w.size())
        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(_row_scale(target_s, source_x), dim=0)
            self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()

    def _local_connection2d_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``LocalConnection2D`` subclass of
        ``AbstractConnection`` class.
        """
        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size[0]
        kernel_width = self.connection.kernel_size[1]
        in_channels = self.connection.source.shape[0]
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size[0]
        width_out = self.connection.conv_size[1]

        target_x = self.target.x.reshape(
            batch_size, out_channels * height_out * width_out, 1
        )
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-2, kernel_height, stride[0])
            .unfold(-2, kernel_width, stride[1])
            .reshape(
                batch_size,
                height_out * width_out,
                in_channels * kernel_height * kernel_width,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out * width_out, 1
        )
        source_x = (
            self.source.x.unfold(-2, kernel_height, stride[0])
            .unfold(-2, kernel_width, stride[1])
            .reshape(
                batch_size,
                height_out * width_out,
                in_channels * kernel_height * kernel_width,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(_row_scale(target_x, source_s), dim=0)
            self.connection.w -= self.nu[0] * pre.view(self.connection.w.size())
        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(_row_scale(target_s, source_x), dim=0)
            self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()

    def _local_connection3d_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``LocalConnection3D`` subclass of
        ``AbstractConnection`` class.
        """
        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size[0]
        kernel_width = self.connection.kernel_size[1]
        kernel_depth = self.connection.kernel_size[2]
        in_channels = self.connection.source.shape[0]
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size[0]
        width_out = self.connection.conv_size[1]
        depth_out = self.connection.conv_size[2]

        target_x = self.target.x.reshape(
            batch_size, out_channels * height_out * width_out * depth_out, 1
        )
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-3, kernel_height, stride[0])
            .unfold(-3, kernel_width, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                height_out * width_out * depth_out,
                in_channels * kernel_height * kernel_width * kernel_depth,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out * width_out * depth_out, 1
        )
        source_x = (
            self.source.x.unfold(-3, kernel_height, stride[0])
            .unfold(-3, kernel_width, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                height_out * width_out * depth_out,
                in_channels * kernel_height * kernel_width * kernel_depth,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(_row_scale(target_x, source_s), dim=0)
            self.connection.w -= self.nu[0] * pre.view(self.connection.w.size())
        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(_row_scale(target_s, source_x), dim=0)
            self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()

    def _connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``Connection`` subclass of ``AbstractConnection``
        class.
        """
        batch_size = self.source.batch_size
        w = self.connection.w

        if _dense_outer_update_ok(self, w):
            # Fused path: ``w += alpha * s^T @ x`` folds the outer product, the
            # batch reduction and the in-place update into one ``addmm_`` call,
            # so no ``[batch, source.n, target.n]`` temporary is allocated.
            # Spikes are exactly 0/1, so the products are bit-identical to the
            # un-fused formula for batch size 1.
            if self.nu[0].any():
                source_s = self.source.s.view(batch_size, -1).float()
                target_x = self.target.x.view(batch_size, -1) * self.nu[0]
                w.addmm_(source_s.t(), target_x, alpha=-1.0)
            if self.nu[1].any():
                target_s = self.target.s.view(batch_size, -1).float() * self.nu[1]
                source_x = self.source.x.view(batch_size, -1)
                w.addmm_(source_x.t(), target_s, alpha=1.0)
            super().update()
            return

        # Pre-synaptic update.
        if self.nu[0].any():
            source_s = self.source.s.view(batch_size, -1).unsqueeze(2).float()
            target_x = self.target.x.view(batch_size, -1).unsqueeze(1) * self.nu[0]
            update = self.reduction(torch.bmm(source_s, target_x), dim=0)
            if self.connection.w.is_sparse:
                update = update.to_sparse()
            self.connection.w -= update
            del source_s, target_x

        # Post-synaptic update.
        if self.nu[1].any():
            target_s = (
                self.target.s.view(batch_size, -1).unsqueeze(1).float() * self.nu[1]
            )
            source_x = self.source.x.view(batch_size, -1).unsqueeze(2)
            update = self.reduction(torch.bmm(source_x, target_s), dim=0)
            if self.connection.w.is_sparse:
                update = update.to_sparse()
            self.connection.w += update
            del source_x, target_s

        super().update()

    def _conv1d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``Conv1dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        # Get convolutional layer parameters.
        out_channels, in_channels, kernel_size = self.connection.w.size()
        padding, stride = self.connection.padding, self.connection.stride
        batch_size = self.source.batch_size

        # Reshaping spike traces and spike occurrences.
        source_x = F.pad(self.source.x, _pair(padding))
        source_x = source_x.unfold(-1, kernel_size, stride).reshape(
            batch_size, -1, in_channels * kernel_size
        )
        target_x = self.target.x.view(batch_size, out_channels, -1)
        source_s = F.pad(self.source.s.float(), _pair(padding))
        source_s = source_s.unfold(-1, kernel_size, stride).reshape(
            batch_size, -1, in_channels * kernel_size
        )
        target_s = self.target.s.view(batch_size, out_channels, -1).float()

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(torch.bmm(target_x, source_s), dim=0)
            self.connection.w -= self.nu[0] * pre.view(self.connection.w.size())

        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(torch.bmm(target_s, source_x), dim=0)
            self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()

    def _conv2d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``Conv2dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        # Get convolutional layer parameters.
        out_channels, _, kernel_height, kernel_width = self.connection.w.size()
        padding, stride = self.connection.padding, self.connection.stride
        batch_size = self.source.batch_size

        # Reshaping spike traces and spike occurrences.
        source_x = im2col_indices(
            self.source.x, kernel_height, kernel_width, padding=padding, stride=stride
        )
        target_x = self.target.x.view(batch_size, out_channels, -1)
        source_s = im2col_indices(
            self.source.s.float(),
            kernel_height,
            kernel_width,
            padding=padding,
            stride=stride,
        )
        target_s = self.target.s.view(batch_size, out_channels, -1).float()

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(
                torch.bmm(target_x, source_s.permute((0, 2, 1))), dim=0
            )
            # print(self.nu[0].shape, self.connection.w.size())
            self.connection.w -= self.nu[0] * pre.view(self.connection.w.size())

        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(
                torch.bmm(target_s, source_x.permute((0, 2, 1))), dim=0
            )
            self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()

    def _conv3d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``Conv3dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        # Get convolutional layer parameters.
        (
            out_channels,
            in_channels,
            kernel_depth,
            kernel_height,
            kernel_width,
        ) = self.connection.w.size()
        padding, stride = self.connection.padding, self.connection.stride
        batch_size = self.source.batch_size

        # Reshaping spike traces and spike occurrences.
        source_x = F.pad(
            self.source.x,
            (padding[0], padding[0], padding[1], padding[1], padding[2], padding[2]),
        )
        source_x = (
            source_x.unfold(-3, kernel_width, stride[0])
            .unfold(-3, kernel_height, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                -1,
                in_channels * kernel_width * kernel_height * kernel_depth,
            )
        )
        target_x = self.target.x.view(batch_size, out_channels, -1)
        source_s = F.pad(
            self.source.s.float(),
            (padding[0], padding[0], padding[1], padding[1], padding[2], padding[2]),
        )
        source_s = (
            source_s.unfold(-3, kernel_width, stride[0])
            .unfold(-3, kernel_height, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                -1,
                in_channels * kernel_width * kernel_height * kernel_depth,
            )
        )
        target_s = self.target.s.view(batch_size, out_channels, -1).float()
        # print(target_x.shape, source_s.shape, self.connection.w.shape)

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(torch.bmm(target_x, source_s), dim=0)
            self.connection.w -= self.nu[0] * pre.view(self.connection.w.size())

        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(torch.bmm(target_s, source_x), dim=0)
            self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()


class WeightDependentPostPre(LearningRule):
    # language=rst
    """
    STDP rule involving both pre- and post-synaptic spiking activity. The post-synaptic
    update is positive and the pre- synaptic update is negative, and both are dependent
    on the magnitude of the synaptic weights.
    """

    def __init__(
        self,
        connection: AbstractConnection,
        nu: Optional[Union[float, Sequence[float], Sequence[torch.Tensor]]] = None,
        reduction: Optional[callable] = None,
        weight_decay: float = 0.0,
        **kwargs,
    ) -> None:
        # language=rst
        """
        Constructor for ``WeightDependentPostPre`` learning rule.

        :param connection: An ``AbstractConnection`` object whose weights the
            ``WeightDependentPostPre`` learning rule will modify.
        :param nu: Single or pair of learning rates for pre- and post-synaptic events. It also
            accepts a pair of tensors to individualize learning rates of each neuron.
            In this case, their shape should be the same size as the connection weights.
        :param reduction: Method for reducing parameter updates along the batch
            dimension.
        :param weight_decay: Coefficient controlling rate of decay of the weights each iteration.
        """
        super().__init__(
            connection=connection,
            nu=nu,
            reduction=reduction,
            weight_decay=weight_decay,
            **kwargs,
        )

        assert self.source.traces, "Pre-synaptic nodes must record spike traces."
        assert (connection.wmin != -np.inf).any() and (
            connection.wmax != np.inf
        ).any(), "Connection must define finite wmin and wmax."

        self.wmin = connection.wmin
        self.wmax = connection.wmax

        if isinstance(connection, (Connection, LocalConnection)):
            self.update = self._connection_update
        elif isinstance(connection, LocalConnection1D):
            self.update = self._local_connection1d_update
        elif isinstance(connection, LocalConnection2D):
            self.update = self._local_connection2d_update
        elif isinstance(connection, LocalConnection3D):
            self.update = self._local_connection3d_update
        elif isinstance(connection, Conv1dConnection):
            self.update = self._conv1d_connection_update
        elif isinstance(connection, Conv2dConnection):
            self.update = self._conv2d_connection_update
        elif isinstance(connection, Conv3dConnection):
            self.update = self._conv3d_connection_update
        else:
            raise NotImplementedError(
                "This learning rule is not supported for this Connection type."
            )

    def _connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``Connection`` subclass of ``AbstractConnection``
        class.
        """
        batch_size = self.source.batch_size

        source_s = self.source.s.view(batch_size, -1).unsqueeze(2).float()
        source_x = self.source.x.view(batch_size, -1).unsqueeze(2)
        target_s = self.target.s.view(batch_size, -1).unsqueeze(1).float()
        target_x = self.target.x.view(batch_size, -1).unsqueeze(1)

        update = 0

        # Pre-synaptic update.
        if self.nu[0].any():
            outer_product = self.reduction(torch.bmm(source_s, target_x), dim=0)
            update -= self.nu[0] * outer_product * (self.connection.w - self.wmin)

        # Post-synaptic update.
        if self.nu[1].any():
            outer_product = self.reduction(torch.bmm(source_x, target_s), dim=0)
            update += self.nu[1] * outer_product * (self.wmax - self.connection.w)

        self.connection.w += update

        super().update()

    def _local_connection1d_update(self, **kwargs) -> None:
        # language=rst
        """
        Weight-dependent post-pre learning rule for ``LocalConnection1D`` subclass of
        ``AbstractConnection`` class.
        """
        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size
        in_channels = self.connection.source.shape[0]
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size

        target_x = self.target.x.reshape(batch_size, out_channels * height_out, 1)
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-1, kernel_height, stride)
            .reshape(batch_size, height_out, in_channels * kernel_height)
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out, 1
        )
        source_x = (
            self.source.x.unfold(-1, kernel_height, stride)
            .reshape(batch_size, height_out, in_channels * kernel_height)
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        update = 0

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(_row_scale(target_x, source_s), dim=0)
            update -= (
                self.nu[0]
                * pre.view(self.connection.w.size())
                * (self.connection.w - self.wmin)
            )
        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(_row_scale(target_s, source_x), dim=0)
            update += (
                self.nu[1]
                * post.view(self.connection.w.size())
                * (self.wmax - self.connection.w)
            )

        self.connection.w += update

        super().update()

    def _local_connection2d_update(self, **kwargs) -> None:
        # language=rst
        """
        Weight-dependent post-pre learning rule for ``LocalConnection2D`` subclass of
        ``AbstractConnection`` class.
        """
        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size[0]
        kernel_width = self.connection.kernel_size[1]
        in_channels = self.connection.source.shape[0]
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size[0]
        width_out = self.connection.conv_size[1]

        target_x = self.target.x.reshape(
            batch_size, out_channels * height_out * width_out, 1
        )
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-2, kernel_height, stride[0])
            .unfold(-2, kernel_width, stride[1])
            .reshape(
                batch_size,
                height_out * width_out,
                in_channels * kernel_height * kernel_width,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out * width_out, 1
        )
        source_x = (
            self.source.x.unfold(-2, kernel_height, stride[0])
            .unfold(-2, kernel_width, stride[1])
            .reshape(
                batch_size,
                height_out * width_out,
                in_channels * kernel_height * kernel_width,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        update = 0

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(_row_scale(target_x, source_s), dim=0)
            update -= (
                self.nu[0]
                * pre.view(self.connection.w.size())
                * (self.connection.w - self.wmin)
            )
        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(_row_scale(target_s, source_x), dim=0)
            update += (
                self.nu[1]
                * post.view(self.connection.w.size())
                * (self.wmax - self.connection.w)
            )

        self.connection.w += update

        super().update()

    def _local_connection3d_update(self, **kwargs) -> None:
        # language=rst
        """
        Weight-dependent post-pre learning rule for ``LocalConnection3D`` subclass of
        ``AbstractConnection`` class.
        """
        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size[0]
        kernel_width = self.connection.kernel_size[1]
        kernel_depth = self.connection.kernel_size[2]
        in_channels = self.connection.source.shape[0]
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size[0]
        width_out = self.connection.conv_size[1]
        depth_out = self.connection.conv_size[2]

        target_x = self.target.x.reshape(
            batch_size, out_channels * height_out * width_out * depth_out, 1
        )
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-3, kernel_height, stride[0])
            .unfold(-3, kernel_width, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                height_out * width_out * depth_out,
                in_channels * kernel_height * kernel_width * kernel_depth,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out * width_out * depth_out, 1
        )
        source_x = (
            self.source.x.unfold(-3, kernel_height, stride[0])
            .unfold(-3, kernel_width, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                height_out * width_out * depth_out,
                in_channels * kernel_height * kernel_width * kernel_depth,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        update = 0

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(_row_scale(target_x, source_s), dim=0)
            update -= (
                self.nu[0]
                * pre.view(self.connection.w.size())
                * (self.connection.w - self.wmin)
            )
        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(_row_scale(target_s, source_x), dim=0)
            update += (
                self.nu[1]
                * post.view(self.connection.w.size())
                * (self.wmax - self.connection.w)
            )

        self.connection.w += update

        super().update()

    def _conv1d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``Conv1dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        # Get convolutional layer parameters.
        out_channels, in_channels, kernel_size = self.connection.w.size()
        padding, stride = self.connection.padding, self.connection.stride
        batch_size = self.source.batch_size

        # Reshaping spike traces and spike occurrences.
        source_x = F.pad(self.source.x, _pair(padding))
        source_x = source_x.unfold(-1, kernel_size, stride).reshape(
            batch_size, -1, in_channels * kernel_size
        )
        target_x = self.target.x.view(batch_size, out_channels, -1)
        source_s = F.pad(self.source.s.float(), _pair(padding))
        source_s = source_s.unfold(-1, kernel_size, stride).reshape(
            batch_size, -1, in_channels * kernel_size
        )
        target_s = self.target.s.view(batch_size, out_channels, -1).float()

        update = 0

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(torch.bmm(target_x, source_s), dim=0)
            update -= (
                self.nu[0]
                * pre.view(self.connection.w.size())
                * (self.connection.w - self.wmin)
            )

        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(torch.bmm(target_s, source_x), dim=0)
            update += (
                self.nu[1]
                * post.view(self.connection.w.size())
                * (self.wmax - self.connection.w)
            )

        self.connection.w += update

        super().update()

    def _conv2d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``Conv2dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        # Get convolutional layer parameters.
        (
            out_channels,
            in_channels,
            kernel_height,
            kernel_width,
        ) = self.connection.w.size()
        padding, stride = self.connection.padding, self.connection.stride
        batch_size = self.source.batch_size

        # Reshaping spike traces and spike occurrences.
        source_x = im2col_indices(
            self.source.x, kernel_height, kernel_width, padding=padding, stride=stride
        )
        target_x = self.target.x.view(batch_size, out_channels, -1)
        source_s = im2col_indices(
            self.source.s.float(),
            kernel_height,
            kernel_width,
            padding=padding,
            stride=stride,
        )
        target_s = self.target.s.view(batch_size, out_channels, -1).float()

        update = 0

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(
                torch.bmm(target_x, source_s.permute((0, 2, 1))), dim=0
            )
            update -= (
                self.nu[0]
                * pre.view(self.connection.w.size())
                * (self.connection.w - self.wmin)
            )

        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(
                torch.bmm(target_s, source_x.permute((0, 2, 1))), dim=0
            )
            update += (
                self.nu[1]
                * post.view(self.connection.w.size())
                * (self.wmax - self.connection.w)
            )

        self.connection.w += update

        super().update()

    def _conv3d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``Conv3dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        # Get convolutional layer parameters.
        (
            out_channels,
            in_channels,
            kernel_depth,
            kernel_height,
            kernel_width,
        ) = self.connection.w.size()
        padding, stride = self.connection.padding, self.connection.stride
        batch_size = self.source.batch_size

        # Reshaping spike traces and spike occurrences.
        source_x = F.pad(
            self.source.x,
            (padding[0], padding[0], padding[1], padding[1], padding[2], padding[2]),
        )
        source_x = (
            source_x.unfold(-3, kernel_width, stride[0])
            .unfold(-3, kernel_height, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                -1,
                in_channels * kernel_width * kernel_height * kernel_depth,
            )
        )
        target_x = self.target.x.view(batch_size, out_channels, -1)
        source_s = F.pad(
            self.source.s.float(),
            (padding[0], padding[0], padding[1], padding[1], padding[2], padding[2]),
        )
        source_s = (
            source_s.unfold(-3, kernel_width, stride[0])
            .unfold(-3, kernel_height, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                -1,
                in_channels * kernel_width * kernel_height * kernel_depth,
            )
        )
        target_s = self.target.s.view(batch_size, out_channels, -1).float()

        update = 0

        # Pre-synaptic update.
        if self.nu[0].any():
            pre = self.reduction(torch.bmm(target_x, source_s), dim=0)
            update -= (
                self.nu[0]
                * pre.view(self.connection.w.size())
                * (self.connection.w - self.wmin)
            )

        # Post-synaptic update.
        if self.nu[1].any():
            post = self.reduction(torch.bmm(target_s, source_x), dim=0)
            update += (
                self.nu[1]
                * post.view(self.connection.w.size())
                * (self.wmax - self.connection.w)
            )

        self.connection.w += update

        super().update()


class Hebbian(LearningRule):
    # language=rst
    """
    Simple Hebbian learning rule. Pre- and post-synaptic updates are both positive.
    """

    def __init__(
        self,
        connection: AbstractConnection,
        nu: Optional[Union[float, Sequence[float], Sequence[torch.Tensor]]] = None,
        reduction: Optional[callable] = None,
        weight_decay: float = 0.0,
        **kwargs,
    ) -> None:
        # language=rst
        """
        Constructor for ``Hebbian`` learning rule.

        :param connection: An ``AbstractConnection`` object whose weights the
            ``Hebbian`` learning rule will modify.
        :param nu: Single or pair of learning rates for pre- and post-synaptic events. It also
            accepts a pair of tensors to individualize learning rates of each neuron.
            In this case, their shape should be the same size as the connection weights.
        :param reduction: Method for reducing parameter updates along the batch
            dimension.
        :param weight_decay: Coefficient controlling rate of decay of the weights each iteration.
        """
        super().__init__(
            connection=connection,
            nu=nu,
            reduction=reduction,
            weight_decay=weight_decay,
            **kwargs,
        )

        assert (
            self.source.traces and self.target.traces
        ), "Both pre- and post-synaptic nodes must record spike traces."

        if isinstance(connection, (Connection, LocalConnection)):
            self.update = self._connection_update
        elif isinstance(connection, LocalConnection1D):
            self.update = self._local_connection1d_update
        elif isinstance(connection, LocalConnection2D):
            self.update = self._local_connection2d_update
        elif isinstance(connection, LocalConnection3D):
            self.update = self._local_connection3d_update
        elif isinstance(connection, Conv1dConnection):
            self.update = self._conv1d_connection_update
        elif isinstance(connection, Conv2dConnection):
            self.update = self._conv2d_connection_update
        elif isinstance(connection, Conv3dConnection):
            self.update = self._conv3d_connection_update
        else:
            raise NotImplementedError(
                "This learning rule is not supported for this Connection type."
            )

    def _connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Hebbian learning rule for ``Connection`` subclass of ``AbstractConnection``
        class.
        """
        batch_size = self.source.batch_size
        w = self.connection.w

        if _dense_outer_update_ok(self, w):
            # Fused path (see ``PostPre._connection_update``): the learning rate
            # is applied to the [batch, n] factor first, so the per-synapse
            # product matches the un-fused ``nu * (s * x)`` bit for bit.
            source_s = self.source.s.view(batch_size, -1).float()
            source_x = self.source.x.view(batch_size, -1)
            target_s = self.target.s.view(batch_size, -1).float()
            target_x = self.target.x.view(batch_size, -1)
            w.addmm_(source_s.t(), target_x * self.nu[0], alpha=1.0)
            w.addmm_(source_x.t(), target_s * self.nu[1], alpha=1.0)
            super().update()
            return

        source_s = self.source.s.view(batch_size, -1).unsqueeze(2).float()
        source_x = self.source.x.view(batch_size, -1).unsqueeze(2)
        target_s = self.target.s.view(batch_size, -1).unsqueeze(1).float()
        target_x = self.target.x.view(batch_size, -1).unsqueeze(1)

        # Pre-synaptic update.
        update = self.reduction(torch.bmm(source_s, target_x), dim=0)
        if self.connection.w.is_sparse:
            update = update.to_sparse()
        self.connection.w += self.nu[0] * update

        # Post-synaptic update.
        update = self.reduction(torch.bmm(source_x, target_s), dim=0)
        if self.connection.w.is_sparse:
            update = update.to_sparse()
        self.connection.w += self.nu[1] * update

        super().update()

    def _local_connection1d_update(self, **kwargs) -> None:
        # language=rst
        """
        Hebbian learning rule for ``LocalConnection1D`` subclass of
        ``AbstractConnection`` class.
        """
        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size
        in_channels = self.connection.source.shape[0]
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size

        target_x = self.target.x.reshape(batch_size, out_channels * height_out, 1)
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-1, kernel_height, stride)
            .reshape(batch_size, height_out, in_channels * kernel_height)
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out, 1
        )
        source_x = (
            self.source.x.unfold(-1, kernel_height, stride)
            .reshape(batch_size, height_out, in_channels * kernel_height)
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        # Pre-synaptic update.
        pre = self.reduction(_row_scale(target_x, source_s), dim=0)
        self.connection.w += self.nu[0] * pre.view(self.connection.w.size())

        # Post-synaptic update.
        post = self.reduction(_row_scale(target_s, source_x), dim=0)
        self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()

    def _local_connection2d_update(self, **kwargs) -> None:
        # language=rst
        """
        Hebbian learning rule for ``LocalConnection2D`` subclass of
        ``AbstractConnection`` class.
        """
        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size[0]
        kernel_width = self.connection.kernel_size[1]
        in_channels = self.connection.source.shape[0]
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size[0]
        width_out = self.connection.conv_size[1]

        target_x = self.target.x.reshape(
            batch_size, out_channels * height_out * width_out, 1
        )
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-2, kernel_height, stride[0])
            .unfold(-2, kernel_width, stride[1])
            .reshape(
                batch_size,
                height_out * width_out,
                in_channels * kernel_height * kernel_width,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out * width_out, 1
        )
        source_x = (
            self.source.x.unfold(-2, kernel_height, stride[0])
            .unfold(-2, kernel_width, stride[1])
            .reshape(
                batch_size,
                height_out * width_out,
                in_channels * kernel_height * kernel_width,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        # Pre-synaptic update.
        pre = self.reduction(_row_scale(target_x, source_s), dim=0)
        self.connection.w += self.nu[0] * pre.view(self.connection.w.size())

        # Post-synaptic update.
        post = self.reduction(_row_scale(target_s, source_x), dim=0)
        self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()

    def _local_connection3d_update(self, **kwargs) -> None:
        # language=rst
        """
        Post-pre learning rule for ``LocalConnection3D`` subclass of
        ``AbstractConnection`` class.
        """
        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size[0]
        kernel_width = self.connection.kernel_size[1]
        kernel_depth = self.connection.kernel_size[2]
        in_channels = self.connection.source.shape[0]
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size[0]
        width_out = self.connection.conv_size[1]
        depth_out = self.connection.conv_size[2]

        target_x = self.target.x.reshape(
            batch_size, out_channels * height_out * width_out * depth_out, 1
        )
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-3, kernel_height, stride[0])
            .unfold(-3, kernel_width, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                height_out * width_out * depth_out,
                in_channels * kernel_height * kernel_width * kernel_depth,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out * width_out * depth_out, 1
        )
        source_x = (
            self.source.x.unfold(-3, kernel_height, stride[0])
            .unfold(-3, kernel_width, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                height_out * width_out * depth_out,
                in_channels * kernel_height * kernel_width * kernel_depth,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        # Pre-synaptic update.
        pre = self.reduction(_row_scale(target_x, source_s), dim=0)
        self.connection.w += self.nu[0] * pre.view(self.connection.w.size())

        # Post-synaptic update.
        post = self.reduction(_row_scale(target_s, source_x), dim=0)
        self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()

    def _conv1d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Hebbian learning rule for ``Conv1dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        out_channels, in_channels, kernel_size = self.connection.w.size()
        padding, stride = self.connection.padding, self.connection.stride
        batch_size = self.source.batch_size

        # Reshaping spike traces and spike occurrences.
        source_x = F.pad(self.source.x, _pair(padding))
        source_x = source_x.unfold(-1, kernel_size, stride).reshape(
            batch_size, -1, in_channels * kernel_size
        )
        target_x = self.target.x.view(batch_size, out_channels, -1)
        source_s = F.pad(self.source.s.float(), _pair(padding))
        source_s = source_s.unfold(-1, kernel_size, stride).reshape(
            batch_size, -1, in_channels * kernel_size
        )
        target_s = self.target.s.view(batch_size, out_channels, -1).float()

        # Pre-synaptic update.
        pre = self.reduction(torch.bmm(target_x, source_s), dim=0)
        self.connection.w += self.nu[0] * pre.view(self.connection.w.size())

        # Post-synaptic update.
        post = self.reduction(torch.bmm(target_s, source_x), dim=0)
        self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()

    def _conv2d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Hebbian learning rule for ``Conv2dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        out_channels, _, kernel_height, kernel_width = self.connection.w.size()
        padding, stride = self.connection.padding, self.connection.stride
        batch_size = self.source.batch_size

        # Reshaping spike traces and spike occurrences.
        source_x = im2col_indices(
            self.source.x, kernel_height, kernel_width, padding=padding, stride=stride
        )
        target_x = self.target.x.view(batch_size, out_channels, -1)
        source_s = im2col_indices(
            self.source.s.float(),
            kernel_height,
            kernel_width,
            padding=padding,
            stride=stride,
        )
        target_s = self.target.s.view(batch_size, out_channels, -1).float()

        # Pre-synaptic update.
        pre = self.reduction(torch.bmm(target_x, source_s.permute((0, 2, 1))), dim=0)
        self.connection.w += self.nu[0] * pre.view(self.connection.w.size())

        # Post-synaptic update.
        post = self.reduction(torch.bmm(target_s, source_x.permute((0, 2, 1))), dim=0)
        self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()

    def _conv3d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        Hebbian learning rule for ``Conv2dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        (
            out_channels,
            in_channels,
            kernel_depth,
            kernel_height,
            kernel_width,
        ) = self.connection.w.size()
        padding, stride = self.connection.padding, self.connection.stride
        batch_size = self.source.batch_size

        # Reshaping spike traces and spike occurrences.
        source_x = F.pad(
            self.source.x,
            (padding[0], padding[0], padding[1], padding[1], padding[2], padding[2]),
        )
        source_x = (
            source_x.unfold(-3, kernel_width, stride[0])
            .unfold(-3, kernel_height, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                -1,
                in_channels * kernel_width * kernel_height * kernel_depth,
            )
        )
        target_x = self.target.x.view(batch_size, out_channels, -1)
        source_s = F.pad(
            self.source.s.float(),
            (padding[0], padding[0], padding[1], padding[1], padding[2], padding[2]),
        )
        source_s = (
            source_s.unfold(-3, kernel_width, stride[0])
            .unfold(-3, kernel_height, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                -1,
                in_channels * kernel_width * kernel_height * kernel_depth,
            )
        )
        target_s = self.target.s.view(batch_size, out_channels, -1).float()

        # Pre-synaptic update.
        pre = self.reduction(torch.bmm(target_x, source_s), dim=0)
        self.connection.w += self.nu[0] * pre.view(self.connection.w.size())

        # Post-synaptic update.
        post = self.reduction(torch.bmm(target_s, source_x), dim=0)
        self.connection.w += self.nu[1] * post.view(self.connection.w.size())

        super().update()


class DiehlAndCook(LearningRule):
    # language=rst
    """
    Post-synaptic-spike-only STDP of `Diehl & Cook (2015)
    <https://www.frontiersin.org/articles/10.3389/fncom.2015.00099/full>`_, Sect. 2.3:

    .. math::

        \\Delta w = \\eta\\,(x_\\text{pre} - x_\\text{tar})\\,(w_\\max - w)^\\mu

    applied on every post-synaptic spike. :math:`x_\\text{pre}` is the source layer's
    spike trace (the paper's trace adds 1 per spike, i.e. ``traces_additive=True``);
    :math:`x_\\text{tar}` is the target trace value ("the higher the target value, the
    lower the synaptic weight will be"); :math:`w_\\max` is the connection's ``wmax``;
    :math:`\\mu` sets the weight dependence. Pre-synaptic spikes do not change the
    weight, unlike ``PostPre``. The paper gives no numeric values for
    :math:`x_\\text{tar}` and :math:`\\mu`; the defaults here (0 and 1) are BindsNET's.
    """

    def __init__(
        self,
        connection: AbstractConnection,
        nu: Optional[Union[float, Sequence[float], Sequence[torch.Tensor]]] = None,
        reduction: Optional[callable] = None,
        weight_decay: float = 0.0,
        **kwargs,
    ) -> None:
        # language=rst
        """
        Constructor for the ``DiehlAndCook`` learning rule.

        :param connection: A ``Connection`` or ``LocalConnection`` whose weights the
            rule will modify. It must have a finite ``wmax``.
        :param nu: Learning rate :math:`\\eta`. A pair is accepted for API symmetry
            with the other rules; only the second (post-synaptic) entry is used.
        :param reduction: Method for reducing parameter updates along the batch
            dimension.
        :param weight_decay: Coefficient controlling rate of decay of the weights each
            iteration.

        Keyword arguments:

        :param float x_tar: Target pre-synaptic trace :math:`x_\\text{tar}` (default 0).
        :param float mu: Weight-dependence exponent :math:`\\mu` (default 1).
        """
        super().__init__(
            connection=connection,
            nu=nu,
            reduction=reduction,
            weight_decay=weight_decay,
            **kwargs,
        )

        assert self.source.traces, "Pre-synaptic nodes must record spike traces."
        assert (
            connection.wmax != np.inf
        ).all(), "DiehlAndCook needs a finite wmax (the paper's w_max)."

        if isinstance(connection, (Connection, LocalConnection)):
            self.update = self._connection_update
        else:
            raise NotImplementedError(
                "This learning rule is not supported for this Connection type."
            )

        self.x_tar = float(kwargs.get("x_tar", 0.0))
        self.mu = float(kwargs.get("mu", 1.0))

    def _connection_update(self, **kwargs) -> None:
        # language=rst
        """
        ``w += eta * ((x_pre - x_tar) outer s_post) * (wmax - w) ** mu`` reduced
        over the batch.
        """
        if not self.nu[1].any():
            super().update()
            return
        batch_size = self.source.batch_size
        w = self.connection.w
        source_x = self.source.x.view(batch_size, -1) - self.x_tar
        target_s = self.target.s.view(batch_size, -1).float()
        if self.reduction in (torch.squeeze, torch.sum):
            outer = source_x.t() @ target_s
        else:
            outer = self.reduction(
                torch.bmm(source_x.unsqueeze(2), target_s.unsqueeze(1)), dim=0
            )
        factor = self.connection.wmax - w
        if self.mu != 1.0:
            factor = factor.clamp(min=0.0) ** self.mu
        update = self.nu[1] * outer * factor
        if w.is_sparse:
            update = update.to_sparse()
        self.connection.w += update
        super().update()


class MSTDP(LearningRule):
    # language=rst
    """
    Reward-modulated STDP. Adapted from `(Florian 2007)
    <https://florian.io/papers/2007_Florian_Modulated_STDP.pdf>`_.
    """

    def __init__(
        self,
        connection: AbstractConnection,
        nu: Optional[Union[float, Sequence[float], Sequence[torch.Tensor]]] = None,
        reduction: Optional[callable] = None,
        weight_decay: float = 0.0,
        **kwargs,
    ) -> None:
        # language=rst
        """
        Constructor for ``MSTDP`` learning rule.

        :param connection: An ``AbstractConnection`` object whose weights the ``MSTDP``
            learning rule will modify.
        :param nu: Single or pair of learning rates for pre- and post-synaptic events, respectively. It also
            accepts a pair of tensors to individualize learning rates of each neuron.
            In this case, their shape should be the same size as the connection weights.
        :param reduction: Method for reducing parameter updates along the minibatch
            dimension.
        :param weight_decay: Coefficient controlling rate of decay of the weights each iteration.

        Keyword arguments:

        :param tc_plus: Time constant for pre-synaptic firing trace.
        :param tc_minus: Time constant for post-synaptic firing trace.
        """
        super().__init__(
            connection=connection,
            nu=nu,
            reduction=reduction,
            weight_decay=weight_decay,
            **kwargs,
        )

        if isinstance(connection, (Connection, LocalConnection)):
            self.update = self._connection_update
        elif isinstance(connection, Conv1dConnection):
            self.update = self._conv1d_connection_update
        elif isinstance(connection, Conv2dConnection):
            self.update = self._conv2d_connection_update
        elif isinstance(connection, Conv3dConnection):
            self.update = self._conv3d_connection_update
        elif isinstance(connection, LocalConnection1D):
            self.update = self._local_connection1d_update
        elif isinstance(connection, LocalConnection2D):
            self.update = self._local_connection2d_update
        elif isinstance(connection, LocalConnection3D):
            self.update = self._local_connection3d_update
        else:
            raise NotImplementedError(
                "This learning rule is not supported for this Connection type."
            )

        self.tc_plus = torch.tensor(kwargs.get("tc_plus", 20.0))
        self.tc_minus = torch.tensor(kwargs.get("tc_minus", 20.0))
        # Timing of reward vs. eligibility. Default (False) is Florian (2007)
        # eq. 3.9, w(t+dt) = w(t) + gamma r(t+dt) zeta(t): the reward supplied
        # at a step multiplies the eligibility built from the previous step's
        # spikes. ``zero_lag=True`` instead multiplies the reward by the
        # eligibility that already includes this step's spikes (a direct
        # discretisation of the continuous-time eq. 3.4). Currently honoured by
        # the ``Connection`` path.
        self.zero_lag = kwargs.get("zero_lag", False)

    def _connection_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDP learning rule for ``Connection`` subclass of ``AbstractConnection`` class.

        Keyword arguments:

        :param Union[float, torch.Tensor] reward: Reward signal from reinforcement
            learning task.
        :param float a_plus: Learning rate (post-synaptic).
        :param float a_minus: Learning rate (pre-synaptic).
        """
        batch_size = self.source.batch_size

        # Initialize eligibility, P^+, and P^-.
        if not hasattr(self, "p_plus"):
            self.p_plus = torch.zeros(
                # batch_size, *self.source.shape, device=self.source.s.device
                batch_size,
                self.source.n,
                device=self.source.s.device,
            )
        if not hasattr(self, "p_minus"):
            self.p_minus = torch.zeros(
                # batch_size, *self.target.shape, device=self.target.s.device
                batch_size,
                self.target.n,
                device=self.target.s.device,
            )
        if not hasattr(self, "eligibility"):
            self.eligibility = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )

        # Reshape pre- and post-synaptic spikes.
        source_s = self.source.s.view(batch_size, -1).float()
        target_s = self.target.s.view(batch_size, -1).float()

        # Parse keyword arguments.
        reward = kwargs["reward"]
        a_plus = kwargs.get("a_plus", None)
        a_minus = kwargs.get("a_minus", None)
        if isinstance(a_plus, dict) or isinstance(a_minus, dict):
            if isinstance(a_plus, dict):
                for k, v in a_plus.items():
                    a_plus[k] = torch.tensor(v, device=self.connection.w.device)
            elif a_plus is None:
                a_plus = 1.0
            if isinstance(a_minus, dict):
                for k, v in a_minus.items():
                    a_minus[k] = torch.tensor(v, device=self.connection.w.device)
            elif a_minus is None:
                a_minus = -1.0
        else:
            a_plus, a_minus = _reward_rates(self, kwargs, self.connection.w.device)

        # Update P^+/P^- traces and the point eligibility for this timestep.
        def _update_traces_and_eligibility():
            self.p_plus *= _cached_decay(self, "tc_plus")
            self.p_plus += a_plus * source_s
            self.p_minus *= _cached_decay(self, "tc_minus")
            self.p_minus += a_minus * target_s
            self.eligibility = torch.bmm(
                self.p_plus.unsqueeze(2), target_s.unsqueeze(1)
            ) + torch.bmm(source_s.unsqueeze(2), self.p_minus.unsqueeze(1))

        # With zero_lag, fold in the current spikes before applying the update,
        # so reward(t) multiplies eligibility(t) (un-lagged variant; the default
        # below is Florian 2007 eq. 3.9).
        if self.zero_lag:
            _update_traces_and_eligibility()

        # Compute weight update based on the (current or previous) eligibility.
        update = self.reduction(reward * self.eligibility, dim=0)
        if self.connection.w.is_sparse:
            update = update.to_sparse()
        self.connection.w += self.nu[0] * update

        # Default: the eligibility computed here is applied on the next
        # timestep, as in Florian (2007) eq. 3.9 / eqs. 2.7-2.8.
        if not self.zero_lag:
            _update_traces_and_eligibility()

        super().update()

    def _local_connection1d_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDP learning rule for ``LocalConnection1D`` subclass of
        ``AbstractConnection`` class.
        """

        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size
        in_channels = self.connection.in_channels
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size

        # Initialize eligibility.
        if not hasattr(self, "eligibility"):
            self.eligibility = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )

        # Parse keyword arguments.
        reward = kwargs["reward"]
        a_plus, a_minus = _reward_rates(self, kwargs, self.connection.w.device)

        # Compute weight update based on the eligibility value of the past timestep.
        update = reward * self.eligibility
        self.connection.w += self.nu[0] * self.reduction(update, dim=0)

        # Initialize P^+ and P^-.
        if not hasattr(self, "p_plus"):
            self.p_plus = torch.zeros(
                batch_size, *self.source.shape, device=self.connection.w.device
            )
            self.p_plus = (
                self.p_plus.unfold(-1, kernel_height, stride)
                .reshape(batch_size, height_out, in_channels * kernel_height)
                .repeat(1, out_channels, 1)
                .to(self.connection.w.device)
            )

        if not hasattr(self, "p_minus"):
            self.p_minus = torch.zeros(
                batch_size, *self.target.shape, device=self.connection.w.device
            )
            self.p_minus = self.p_minus.reshape(
                batch_size, out_channels * height_out, 1
            )

        # Reshaping spike occurrences.
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-1, kernel_height, stride)
            .reshape(batch_size, height_out, in_channels * kernel_height)
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out, 1
        )

        # Update P^+ and P^- values.
        self.p_plus *= _cached_decay(self, "tc_plus")
        self.p_plus += a_plus * source_s
        self.p_minus *= _cached_decay(self, "tc_minus")
        self.p_minus += a_minus * target_s

        # Calculate point eligibility value.
        self.eligibility = _row_scale(target_s, self.p_plus) + _row_scale(
            self.p_minus, source_s
        )

        self.eligibility = self.eligibility.view(batch_size, *self.connection.w.shape)

        super().update()

    def _local_connection2d_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDP learning rule for ``LocalConnection2D`` subclass of
        ``AbstractConnection`` class.
        """
        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size[0]
        kernel_width = self.connection.kernel_size[1]
        in_channels = self.connection.in_channels
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size[0]
        width_out = self.connection.conv_size[1]

        # Initialize eligibility.
        if not hasattr(self, "eligibility"):
            self.eligibility = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )

        # Parse keyword arguments.
        reward = kwargs["reward"]
        a_plus, a_minus = _reward_rates(self, kwargs, self.connection.w.device)

        # Compute weight update based on the eligibility value of the past timestep.
        update = reward * self.eligibility

        self.connection.w += self.nu[0] * self.reduction(update, dim=0)

        # Initialize P^+ and P^-.
        if not hasattr(self, "p_plus"):
            self.p_plus = torch.zeros(
                batch_size, *self.source.shape, device=self.connection.w.device
            )
            self.p_plus = (
                self.p_plus.unfold(-2, kernel_height, stride[0])
                .unfold(-2, kernel_width, stride[1])
                .reshape(
                    batch_size,
                    height_out * width_out,
                    in_channels * kernel_height * kernel_width,
                )
                .repeat(1, out_channels, 1)
                .to(self.connection.w.device)
            )

        if not hasattr(self, "p_minus"):
            self.p_minus = torch.zeros(
                batch_size, *self.target.shape, device=self.connection.w.device
            )
            self.p_minus = self.p_minus.reshape(
                batch_size, out_channels * height_out * width_out, 1
            )

        # Reshaping spike occurrences.
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-2, kernel_height, stride[0])
            .unfold(-2, kernel_width, stride[1])
            .reshape(
                batch_size,
                height_out * width_out,
                in_channels * kernel_height * kernel_width,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out * width_out, 1
        )

        # Update P^+ and P^- values.
        self.p_plus *= _cached_decay(self, "tc_plus")
        self.p_plus += a_plus * source_s
        self.p_minus *= _cached_decay(self, "tc_minus")
        self.p_minus += a_minus * target_s

        # Calculate point eligibility value.
        self.eligibility = _row_scale(target_s, self.p_plus) + _row_scale(
            self.p_minus, source_s
        )

        self.eligibility = self.eligibility.view(batch_size, *self.connection.w.shape)

        super().update()

    def _local_connection3d_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDP learning rule for ``LocalConnection3D`` subclass of
        ``AbstractConnection`` class.
        """

        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size[0]
        kernel_width = self.connection.kernel_size[1]
        kernel_depth = self.connection.kernel_size[2]
        in_channels = self.connection.in_channels
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size[0]
        width_out = self.connection.conv_size[1]
        depth_out = self.connection.conv_size[2]

        # Initialize eligibility.
        if not hasattr(self, "eligibility"):
            self.eligibility = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )

        # Parse keyword arguments.
        reward = kwargs["reward"]
        a_plus, a_minus = _reward_rates(self, kwargs, self.connection.w.device)

        # Compute weight update based on the eligibility value of the past timestep.
        update = reward * self.eligibility
        self.connection.w += self.nu[0] * self.reduction(update, dim=0)

        # Initialize P^+ and P^-.
        if not hasattr(self, "p_plus"):
            self.p_plus = torch.zeros(
                batch_size, *self.source.shape, device=self.connection.w.device
            )
            self.p_plus = (
                self.p_plus.unfold(-3, kernel_height, stride[0])
                .unfold(-3, kernel_width, stride[1])
                .unfold(-3, kernel_depth, stride[2])
                .reshape(
                    batch_size,
                    height_out * width_out * depth_out,
                    in_channels * kernel_height * kernel_width * kernel_depth,
                )
                .repeat(1, out_channels, 1)
                .to(self.connection.w.device)
            )

        if not hasattr(self, "p_minus"):
            self.p_minus = torch.zeros(
                batch_size, *self.target.shape, device=self.connection.w.device
            )
            self.p_minus = self.p_minus.reshape(
                batch_size, out_channels * height_out * width_out * depth_out, 1
            )

        # Reshaping spike occurrences.
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-3, kernel_height, stride[0])
            .unfold(-3, kernel_width, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                height_out * width_out * depth_out,
                in_channels * kernel_height * kernel_width * kernel_depth,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out * width_out * depth_out, 1
        )

        # Update P^+ and P^- values.
        self.p_plus *= _cached_decay(self, "tc_plus")
        self.p_plus += a_plus * source_s
        self.p_minus *= _cached_decay(self, "tc_minus")
        self.p_minus += a_minus * target_s

        # Calculate point eligibility value.
        self.eligibility = _row_scale(target_s, self.p_plus) + _row_scale(
            self.p_minus, source_s
        )

        self.eligibility = self.eligibility.view(batch_size, *self.connection.w.shape)

        super().update()

    def _conv1d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDP learning rule for ``Conv1dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        self._conv_connection_update(1, **kwargs)

    def _conv2d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDP learning rule for ``Conv2dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        self._conv_connection_update(2, **kwargs)

    def _conv3d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDP learning rule for ``Conv3dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        self._conv_connection_update(3, **kwargs)

    def _conv_connection_update(self, dim: int, **kwargs) -> None:
        # language=rst
        """
        Shared MSTDP update for 1D/2D/3D convolutional connections.

        Traces are kept in neuron space and the point eligibility is computed as
        a convolution weight-gradient (see ``_conv_point_eligibility``), so it
        matches the forward weight layout and supports batches. Storing traces in
        im2col space previously aliased overlapping kernel positions and
        double-counted them.

        Keyword arguments:

        :param Union[float, torch.Tensor] reward: Reward signal from reinforcement
            learning task.
        :param float a_plus: Learning rate (post-synaptic).
        :param float a_minus: Learning rate (pre-synaptic).
        """
        batch_size = self.source.batch_size

        if not hasattr(self, "p_plus"):
            self.p_plus = torch.zeros(
                batch_size, *self.source.shape, device=self.connection.w.device
            )
        if not hasattr(self, "p_minus"):
            self.p_minus = torch.zeros(
                batch_size, *self.target.shape, device=self.connection.w.device
            )
        if not hasattr(self, "eligibility"):
            self.eligibility = torch.zeros(
                *self.connection.w.shape, device=self.connection.w.device
            )

        # Parse keyword arguments.
        reward = kwargs["reward"]
        a_plus, a_minus = _reward_rates(self, kwargs, self.connection.w.device)

        source_s = self.source.s.float()
        target_s = self.target.s.float()

        def _update_traces_and_eligibility():
            self.p_plus *= _cached_decay(self, "tc_plus")
            self.p_plus += a_plus * source_s
            self.p_minus *= _cached_decay(self, "tc_minus")
            self.p_minus += a_minus * target_s
            self.eligibility = _conv_point_eligibility(
                self.connection, self.p_plus, self.p_minus, source_s, target_s, dim
            )

        # With zero_lag, fold in the current spikes before the weight update.
        if self.zero_lag:
            _update_traces_and_eligibility()

        # Weight update from the (current or previous) batch-summed eligibility.
        self.connection.w += self.nu[0] * reward * self.eligibility

        if not self.zero_lag:
            _update_traces_and_eligibility()

        super().update()


class MSTDPET(LearningRule):
    # language=rst
    """
    Reward-modulated STDP with eligibility trace. Adapted from
    `(Florian 2007) <https://florian.io/papers/2007_Florian_Modulated_STDP.pdf>`_.
    """

    def __init__(
        self,
        connection: AbstractConnection,
        nu: Optional[Union[float, Sequence[float], Sequence[torch.Tensor]]] = None,
        reduction: Optional[callable] = None,
        weight_decay: float = 0.0,
        **kwargs,
    ) -> None:
        # language=rst
        """
        Constructor for ``MSTDPET`` learning rule.

        :param connection: An ``AbstractConnection`` object whose weights the
            ``MSTDPET`` learning rule will modify.
        :param nu: Single or pair of learning rates for pre- and post-synaptic events, respectively. It also
            accepts a pair of tensors to individualize learning rates of each neuron.
            In this case, their shape should be the same size as the connection weights.
        :param reduction: Method for reducing parameter updates along the minibatch
            dimension.
        :param weight_decay: Coefficient controlling rate of decay of the weights each iteration.
        Keyword arguments:
        :param float tc_plus: Time constant for pre-synaptic firing trace.
        :param float tc_minus: Time constant for post-synaptic firing trace.
        :param float tc_e_trace: Time constant for the eligibility trace.
        """
        super().__init__(
            connection=connection,
            nu=nu,
            reduction=reduction,
            weight_decay=weight_decay,
            **kwargs,
        )

        if isinstance(connection, (Connection, LocalConnection)):
            self.update = self._connection_update
        elif isinstance(connection, LocalConnection1D):
            self.update = self._local_connection1d_update
        elif isinstance(connection, LocalConnection2D):
            self.update = self._local_connection2d_update
        elif isinstance(connection, LocalConnection3D):
            self.update = self._local_connection3d_update
        elif isinstance(connection, Conv1dConnection):
            self.update = self._conv1d_connection_update
        elif isinstance(connection, Conv2dConnection):
            self.update = self._conv2d_connection_update
        elif isinstance(connection, Conv3dConnection):
            self.update = self._conv3d_connection_update
        else:
            raise NotImplementedError(
                "This learning rule is not supported for this Connection type."
            )

        self.tc_plus = torch.tensor(kwargs.get("tc_plus", 20.0))
        self.tc_minus = torch.tensor(kwargs.get("tc_minus", 20.0))
        self.tc_e_trace = torch.tensor(kwargs.get("tc_e_trace", 25.0))
        # Timing of eligibility vs. trace integration. Default (False) is
        # Florian (2007) eqs. 2.7-2.8, z(t+dt) = beta z(t) + zeta(t)/tau_z and
        # w(t+dt) = w(t) + gamma dt r(t+dt) z(t+dt): the trace integrated at a
        # step uses the eligibility built from the previous step's spikes.
        # ``zero_lag=True`` folds this step's spikes into the eligibility
        # before integrating (continuous-time eqs. 3.1-3.2 discretised without
        # the lag). Currently honoured by the ``Connection`` path.
        self.zero_lag = kwargs.get("zero_lag", False)

    def _connection_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDPET learning rule for ``Connection`` subclass of ``AbstractConnection``
        class.

        Keyword arguments:

        :param Union[float, torch.Tensor] reward: Reward signal from reinforcement
            learning task.
        :param float a_plus: Learning rate (post-synaptic).
        :param float a_minus: Learning rate (pre-synaptic).
        """
        batch_size = self.source.batch_size

        # Initialize eligibility, eligibility trace, P^+, and P^- (batch-aware).
        if not hasattr(self, "p_plus"):
            self.p_plus = torch.zeros(
                batch_size, self.source.n, device=self.source.s.device
            )
        if not hasattr(self, "p_minus"):
            self.p_minus = torch.zeros(
                batch_size, self.target.n, device=self.target.s.device
            )
        if not hasattr(self, "eligibility"):
            self.eligibility = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )
        if not hasattr(self, "eligibility_trace"):
            self.eligibility_trace = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )

        # Reshape pre- and post-synaptic spikes.
        source_s = self.source.s.view(batch_size, -1).float()
        target_s = self.target.s.view(batch_size, -1).float()

        # Parse keyword arguments.
        reward = kwargs["reward"]
        a_plus, a_minus = _reward_rates(self, kwargs, self.connection.w.device)

        # Update P^+/P^- traces and the point eligibility for this timestep.
        def _update_traces_and_eligibility():
            self.p_plus *= _cached_decay(self, "tc_plus")
            self.p_plus += a_plus * source_s
            self.p_minus *= _cached_decay(self, "tc_minus")
            self.p_minus += a_minus * target_s
            self.eligibility = torch.bmm(
                self.p_plus.unsqueeze(2), target_s.unsqueeze(1)
            ) + torch.bmm(source_s.unsqueeze(2), self.p_minus.unsqueeze(1))

        # With zero_lag, fold in the current spikes before integrating the
        # eligibility trace (un-lagged variant; the default is eqs. 2.7-2.8).
        if self.zero_lag:
            _update_traces_and_eligibility()

        # Calculate value of eligibility trace based on the value
        # of the point eligibility value of the past timestep.
        self.eligibility_trace *= _cached_decay(self, "tc_e_trace")
        self.eligibility_trace += self.eligibility / self.tc_e_trace

        # Compute weight update, reducing over the minibatch dimension.
        update = self.reduction(
            self.nu[0] * self.connection.dt * reward * self.eligibility_trace, dim=0
        )
        if self.connection.w.is_sparse:
            update = update.to_sparse()
        self.connection.w += update

        # Default: the eligibility computed here is applied on the next
        # timestep, as in Florian (2007) eq. 3.9 / eqs. 2.7-2.8.
        if not self.zero_lag:
            _update_traces_and_eligibility()

        super().update()

    def _local_connection1d_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDPET learning rule for ``LocalConnection1D`` subclass of
        ``AbstractConnection`` class.
        """

        # Get LC layer parameters.

        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_height = self.connection.kernel_size
        in_channels = self.connection.in_channels
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size

        # Initialize eligibility.
        if not hasattr(self, "eligibility"):
            self.eligibility = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )

        if not hasattr(self, "eligibility_trace"):
            self.eligibility_trace = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )

        # Parse keyword arguments.
        reward = kwargs["reward"]
        a_plus, a_minus = _reward_rates(self, kwargs, self.connection.w.device)

        # Integrate the eligibility trace from the point eligibility of the
        # previous timestep (decay then accumulate).
        self.eligibility_trace *= _cached_decay(self, "tc_e_trace")
        self.eligibility_trace += self.eligibility / self.tc_e_trace

        # Compute weight update, reducing over the minibatch dimension.
        update = reward * self.eligibility_trace
        self.connection.w += self.nu[0] * self.connection.dt * torch.sum(update, dim=0)

        # Initialize P^+ and P^-.
        if not hasattr(self, "p_plus"):
            self.p_plus = torch.zeros(
                batch_size, *self.source.shape, device=self.connection.w.device
            )
            self.p_plus = (
                self.p_plus.unfold(-1, kernel_height, stride)
                .reshape(batch_size, height_out, in_channels * kernel_height)
                .repeat(1, out_channels, 1)
                .to(self.connection.w.device)
            )

        if not hasattr(self, "p_minus"):
            self.p_minus = torch.zeros(
                batch_size, *self.target.shape, device=self.connection.w.device
            )
            self.p_minus = self.p_minus.reshape(
                batch_size, out_channels * height_out, 1
            )

        # Reshaping spike occurrences.
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-1, kernel_height, stride)
            .reshape(batch_size, height_out, in_channels * kernel_height)
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        # print(target_x.shape, source_s.shape)
        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out, 1
        )

        # Update P^+ and P^- values.
        self.p_plus *= _cached_decay(self, "tc_plus")
        self.p_plus += a_plus * source_s
        self.p_minus *= _cached_decay(self, "tc_minus")
        self.p_minus += a_minus * target_s

        # Calculate point eligibility value.
        self.eligibility = _row_scale(target_s, self.p_plus) + _row_scale(
            self.p_minus, source_s
        )
        self.eligibility = self.eligibility.view(batch_size, *self.connection.w.shape)

        super().update()

    def _local_connection2d_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDPET learning rule for ``LocalConnection2D`` subclass of
        ``AbstractConnection`` class.
        """
        # Get LC layer parameters.

        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_width = self.connection.kernel_size[0]
        kernel_height = self.connection.kernel_size[1]
        in_channels = self.connection.in_channels
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size[0]
        width_out = self.connection.conv_size[1]

        # Initialize eligibility.
        if not hasattr(self, "eligibility"):
            self.eligibility = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )

        if not hasattr(self, "eligibility_trace"):
            self.eligibility_trace = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )

        # Parse keyword arguments.
        reward = kwargs["reward"]
        a_plus, a_minus = _reward_rates(self, kwargs, self.connection.w.device)

        # Integrate the eligibility trace from the point eligibility of the
        # previous timestep (decay then accumulate).
        self.eligibility_trace *= _cached_decay(self, "tc_e_trace")
        self.eligibility_trace += self.eligibility / self.tc_e_trace

        # Compute weight update, reducing over the minibatch dimension.
        update = reward * self.eligibility_trace
        self.connection.w += self.nu[0] * self.connection.dt * torch.sum(update, dim=0)

        # Initialize P^+ and P^-.
        if not hasattr(self, "p_plus"):
            self.p_plus = torch.zeros(
                batch_size, *self.source.shape, device=self.connection.w.device
            )
            self.p_plus = (
                self.p_plus.unfold(-2, kernel_height, stride[0])
                .unfold(-2, kernel_width, stride[1])
                .reshape(
                    batch_size,
                    height_out * width_out,
                    in_channels * kernel_height * kernel_width,
                )
                .repeat(1, out_channels, 1)
                .to(self.connection.w.device)
            )

        if not hasattr(self, "p_minus"):
            self.p_minus = torch.zeros(
                batch_size, *self.target.shape, device=self.connection.w.device
            )
            self.p_minus = self.p_minus.reshape(
                batch_size, out_channels * height_out * width_out, 1
            )

        # Reshaping spike occurrences.
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-2, kernel_height, stride[0])
            .unfold(-2, kernel_width, stride[1])
            .reshape(
                batch_size,
                height_out * width_out,
                in_channels * kernel_height * kernel_width,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        # print(target_x.shape, source_s.shape)
        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out * width_out, 1
        )

        # Update P^+ and P^- values.
        self.p_plus *= _cached_decay(self, "tc_plus")
        self.p_plus += a_plus * source_s
        self.p_minus *= _cached_decay(self, "tc_minus")
        self.p_minus += a_minus * target_s

        # Calculate point eligibility value.
        self.eligibility = _row_scale(target_s, self.p_plus) + _row_scale(
            self.p_minus, source_s
        )
        self.eligibility = self.eligibility.view(batch_size, *self.connection.w.shape)

        super().update()

    def _local_connection3d_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDPET learning rule for ``LocalConnection3D`` subclass of
        ``AbstractConnection`` class.
        """

        # Get LC layer parameters.
        stride = self.connection.stride
        batch_size = self.source.batch_size
        kernel_width = self.connection.kernel_size[0]
        kernel_height = self.connection.kernel_size[1]
        kernel_depth = self.connection.kernel_size[2]
        in_channels = self.connection.in_channels
        out_channels = self.connection.n_filters
        height_out = self.connection.conv_size[0]
        width_out = self.connection.conv_size[1]
        depth_out = self.connection.conv_size[2]

        # Initialize eligibility.
        if not hasattr(self, "eligibility"):
            self.eligibility = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )

        if not hasattr(self, "eligibility_trace"):
            self.eligibility_trace = torch.zeros(
                batch_size, *self.connection.w.shape, device=self.connection.w.device
            )

        # Parse keyword arguments.
        reward = kwargs["reward"]
        a_plus, a_minus = _reward_rates(self, kwargs, self.connection.w.device)

        # Integrate the eligibility trace from the point eligibility of the
        # previous timestep (decay then accumulate).
        self.eligibility_trace *= _cached_decay(self, "tc_e_trace")
        self.eligibility_trace += self.eligibility / self.tc_e_trace

        # Compute weight update, reducing over the minibatch dimension.
        update = reward * self.eligibility_trace
        self.connection.w += self.nu[0] * self.connection.dt * torch.sum(update, dim=0)

        # Initialize P^+ and P^-.
        if not hasattr(self, "p_plus"):
            self.p_plus = torch.zeros(
                batch_size, *self.source.shape, device=self.connection.w.device
            )
            self.p_plus = (
                self.p_plus.unfold(-3, kernel_height, stride[0])
                .unfold(-3, kernel_width, stride[1])
                .unfold(-3, kernel_depth, stride[2])
                .reshape(
                    batch_size,
                    height_out * width_out * depth_out,
                    in_channels * kernel_height * kernel_width * kernel_depth,
                )
                .repeat(1, out_channels, 1)
                .to(self.connection.w.device)
            )

        if not hasattr(self, "p_minus"):
            self.p_minus = torch.zeros(
                batch_size, *self.target.shape, device=self.connection.w.device
            )
            self.p_minus = self.p_minus.reshape(
                batch_size, out_channels * height_out * width_out * depth_out, 1
            )

        # Reshaping spike occurrences.
        source_s = (
            self.source.s.type(torch.float)
            .unfold(-3, kernel_height, stride[0])
            .unfold(-3, kernel_width, stride[1])
            .unfold(-3, kernel_depth, stride[2])
            .reshape(
                batch_size,
                height_out * width_out * depth_out,
                in_channels * kernel_height * kernel_width * kernel_depth,
            )
            .repeat(1, out_channels, 1)
            .to(self.connection.w.device)
        )

        # print(target_x.shape, source_s.shape)
        target_s = self.target.s.type(torch.float).reshape(
            batch_size, out_channels * height_out * width_out * depth_out, 1
        )

        # Update P^+ and P^- values.
        self.p_plus *= _cached_decay(self, "tc_plus")
        self.p_plus += a_plus * source_s
        self.p_minus *= _cached_decay(self, "tc_minus")
        self.p_minus += a_minus * target_s

        # Calculate point eligibility value.
        self.eligibility = _row_scale(target_s, self.p_plus) + _row_scale(
            self.p_minus, source_s
        )
        self.eligibility = self.eligibility.view(batch_size, *self.connection.w.shape)

        super().update()

    def _conv1d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDPET learning rule for ``Conv1dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        self._conv_connection_update(1, **kwargs)

    def _conv2d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDPET learning rule for ``Conv2dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        self._conv_connection_update(2, **kwargs)

    def _conv3d_connection_update(self, **kwargs) -> None:
        # language=rst
        """
        MSTDPET learning rule for ``Conv3dConnection`` subclass of
        ``AbstractConnection`` class.
        """
        self._conv_connection_update(3, **kwargs)

    def _conv_connection_update(self, dim: int, **kwargs) -> None:
        # language=rst
        """
        Shared MSTDPET update for 1D/2D/3D convolutional connections.

        Traces are kept in neuron space and the point eligibility is computed as
        a convolution weight-gradient (see ``_conv_point_eligibility``), so it
        matches the forward weight layout and supports batches. Storing traces in
        im2col space previously aliased overlapping kernel positions and
        double-counted them.

        Keyword arguments:

        :param Union[float, torch.Tensor] reward: Reward signal from reinforcement
            learning task.
        :param float a_plus: Learning rate (post-synaptic).
        :param float a_minus: Learning rate (pre-synaptic).
        """
        batch_size = self.source.batch_size

        if not hasattr(self, "p_plus"):
            self.p_plus = torch.zeros(
                batch_size, *self.source.shape, device=self.connection.w.device
            )
        if not hasattr(self, "p_minus"):
            self.p_minus = torch.zeros(
                batch_size, *self.target.shape, device=self.connection.w.device
            )
        if not hasattr(self, "eligibility"):
            self.eligibility = torch.zeros(
                *self.connection.w.shape, device=self.connection.w.device
            )
        if not hasattr(self, "eligibility_trace"):
            self.eligibility_trace = torch.zeros(
                *self.connection.w.shape, device=self.connection.w.device
            )

        # Parse keyword arguments.
        reward = kwargs["reward"]
        a_plus, a_minus = _reward_rates(self, kwargs, self.connection.w.device)

        source_s = self.source.s.float()
        target_s = self.target.s.float()

        def _update_traces_and_eligibility():
            self.p_plus *= _cached_decay(self, "tc_plus")
            self.p_plus += a_plus * source_s
            self.p_minus *= _cached_decay(self, "tc_minus")
            self.p_minus += a_minus * target_s
            self.eligibility = _conv_point_eligibility(
                self.connection, self.p_plus, self.p_minus, source_s, target_s, dim
            )

        # With zero_lag, fold in the current spikes before the weight update.
        if self.zero_lag:
            _update_traces_and_eligibility()

        # Integrate the eligibility trace and apply the weight update.
        self.eligibility_trace *= _cached_decay(self, "tc_e_trace")
        self.eligibility_trace += self.eligibility / self.tc_e_trace
        self.connection.w += (
            self.nu[0] * self.connection.dt * reward * self.eligibility_trace
        )

        if not self.zero_lag:
            _update_traces_and_eligibility()

        super().update()


class Rmax(LearningRule):
    # language=rst
    """
    Reward-modulated learning rule derived from reward maximization principles. Adapted
    from `(Vasilaki et al., 2009)
    <https://intranet.physio.unibe.ch/Publikationen/Dokumente/Vasilaki2009PloSComputBio_1.pdf>`_.
    """

    def __init__(
        self,
        connection: AbstractConnection,
        nu: Optional[Union[float, Sequence[float], Sequence[torch.Tensor]]] = None,
        reduction: Optional[callable] = None,
        weight_decay: float = 0.0,
        **kwargs,
    ) -> None:
        # language=rst
        """
        Constructor for ``R-max`` learning rule.

        :param connection: An ``AbstractConnection`` object whose weights the ``R-max``
            learning rule will modify.
        :param nu: Single or pair of learning rates for pre- and post-synaptic events, respectively. It also
            accepts a pair of tensors to individualize learning rates of each neuron.
            In this case, their shape should be the same size as the connection weights.
        :param reduction: Method for reducing parameter updates along the minibatch
            dimension.
        :param weight_decay: Coefficient controlling rate of decay of the weights each iteration.

        Keyword arguments:

        :param float tc_c: Time constant :math:`\\tau_c` balancing policy-gradient and
            naive Hebbian learning (Vasilaki et al. 2009, eq. 8): ``0`` gives the
            strict policy-gradient rule, ``inf`` the naive Hebbian rule. Default 5.
        :param float tc_e_trace: Time constant for the eligibility trace.
        """
        super().__init__(
            connection=connection,
            nu=nu,
            reduction=reduction,
            weight_decay=weight_decay,
            **kwargs,
        )

        # Trace is needed for computing epsilon.
        assert (
            self.source.traces and self.source.traces_additive
        ), "Pre-synaptic nodes must use additive spike traces."

        # Derivation of R-max depends on stochastic SRM neurons!
        assert isinstance(
            self.target, SRM0Nodes
        ), "R-max needs stochastically firing neurons, use SRM0Nodes."

        if isinstance(connection, (Connection, LocalConnection)):
            self.update = self._connection_update
        else:
            raise NotImplementedError(
                "This learning rule is not supported for this Connection type."
            )

        self.tc_c = torch.tensor(
            kwargs.get("tc_c", 5.0)
        )  # 0 for strict policy gradient, inf for pure naive Hebbian (eq. 8).
        self.tc_e_trace = torch.tensor(kwargs.get("tc_e_trace", 25.0))

    def _connection_update(self, **kwargs) -> None:
        # language=rst
        """
        R-max learning rule for ``Connection`` subclass of ``AbstractConnection`` class.

        Keyword arguments:

        :param Union[float, torch.Tensor] reward: Reward signal from reinforcement
            learning task.
        """
        # Initialize eligibility trace.
        if not hasattr(self, "eligibility_trace"):
            self.eligibility_trace = torch.zeros(
                *self.connection.w.shape, device=self.connection.w.device
            )

        # Reshape variables.
        target_s = self.target.s.view(-1).float()
        target_s_prob = self.target.s_prob.view(-1)
        source_x = self.source.x.view(-1)

        # Parse keyword arguments.
        reward = kwargs["reward"]

        # New eligibility trace.
        self.eligibility_trace *= 1 - self.connection.dt / self.tc_e_trace
        self.eligibility_trace += (
            target_s
            - (target_s_prob / (1.0 + self.tc_c / self.connection.dt * target_s_prob))
        ) * source_x[:, None]

        # Compute weight update.
        update = self.nu[0] * reward * self.eligibility_trace
        if self.connection.w.is_sparse:
            update = update.to_sparse()
        self.connection.w += update

        super().update()
