"""PointMLP grouping convolution with geometric affine neighborhood normalization."""

from typing import Literal, Union

import torch
import torch.nn as nn
import torch_geometric.nn.inits as inits
from torch import Tensor
from torch_geometric.nn import MessagePassing
from torch_geometric.typing import Adj, SparseTensor, torch_sparse
from torch_geometric.utils import add_self_loops, remove_self_loops, scatter
from typing_extensions import Unpack

from torch_pointcloud.utils.conversion import ensure_option
from torch_pointcloud.utils.types import MessagePassingParams, OptTensor, PairTensor

NormalizeType = Literal["center", "anchor"]
StdModeType = Literal["graph", "batch"]


class GeometricAffineConv(MessagePassing):
    r"""Grouping convolution with geometric affine normalization (PointMLP) from
    :arxiv: [Rethinking Network Design and Local Geometry in Point Cloud: A Simple Residual MLP Framework](https://arxiv.org/abs/2202.07123)
    by Xu Ma, Can Qin, Haoxuan You, Haoxi Ran, Yun Fu.

    Each neighborhood is recentered (`normalize="center"` subtracts the neighborhood mean,
    `"anchor"` subtracts the center's values), rescaled by the standard deviation of the offsets over
    the graph (`std_mode="graph"`) or over the whole batch (`std_mode="batch"`), and modulated by
    learnable affine parameters; the center features are appended to each normalized message before
    `local_nn` and aggregation. The batch scope reproduces the normalization of the original PointMLP
    release, whose checkpoints expect it; it makes the output of one sample depend on the other samples
    in the batch.

    Args:
        local_nn: Network applied to each message.
        channels: Number of input feature channels.
        spatial_dim: Dimension of point coordinates.
        use_pos: Whether to concatenate the point positions to the features before normalization.
        normalize: Neighborhood normalization mode (`"center"` or `"anchor"`).
        std_mode: Scope of the standard deviation that rescales the offsets: one per graph (`"graph"`) or one
            over every graph in the batch (`"batch"`).
        add_self_loops: Whether to add self-loops to the edge index.
        **kwargs: Additional `MessagePassing` arguments.
    """

    def __init__(
        self,
        local_nn: nn.Module,
        channels: int,
        spatial_dim: int = 3,
        use_pos: bool = True,
        normalize: NormalizeType = "center",
        std_mode: StdModeType = "graph",
        add_self_loops: bool = False,
        eps: float = 1e-5,
        **kwargs: Unpack[MessagePassingParams],
    ):
        kwargs.setdefault("aggr", "max")
        super().__init__(**kwargs)

        self.local_nn = local_nn
        self.channels = channels
        self.spatial_dim = spatial_dim
        self.use_pos = use_pos
        self.normalize = ensure_option(normalize, NormalizeType, name="normalize")
        self.std_mode = ensure_option(std_mode, StdModeType, name="std_mode")
        self.add_self_loops = add_self_loops
        self.eps = eps

        msg_channels = channels + spatial_dim if use_pos else channels
        self.register_parameter("alpha", nn.Parameter(torch.ones(msg_channels)))
        self.register_parameter("beta", nn.Parameter(torch.zeros(msg_channels)))

    def reset_parameters(self) -> None:
        super().reset_parameters()
        inits.reset(self.local_nn)
        inits.ones(self.alpha)
        inits.zeros(self.beta)

    def forward(
        self,
        x: Union[Tensor, PairTensor],
        pos: Union[Tensor, PairTensor],
        batch: Union[Tensor, PairTensor],
        edge_index: Adj,
    ) -> Tensor:
        x_src, x_dst = (x, x) if isinstance(x, Tensor) else x
        pos_src, pos_dst = (pos, pos) if isinstance(pos, Tensor) else pos
        if isinstance(batch, tuple) and len(batch) == 2:
            batch = batch[1] if self.flow == "source_to_target" else batch[0]

        if self.add_self_loops:
            if isinstance(edge_index, Tensor):
                edge_index, _ = remove_self_loops(edge_index)
                edge_index, _ = add_self_loops(edge_index, num_nodes=min(pos_src.size(0), pos_dst.size(0)))
            elif isinstance(edge_index, SparseTensor):
                edge_index = torch_sparse.set_diag(edge_index)

        return self.propagate(
            edge_index,
            x=(x_src, x_dst),
            pos=(pos_src, pos_dst),
            batch=batch,
            size=(x_src.size(0), x_dst.size(0)),
        )

    def message(
        self,
        index: Tensor,
        x_i: Tensor,
        x_j: Tensor,
        pos_i: OptTensor,
        pos_j: OptTensor,
        batch: Tensor,
    ) -> Tensor:
        ensure_option(self.normalize, NormalizeType, name="normalize")

        msg_i, msg_j = x_i, x_j

        if self.use_pos:
            if pos_i is None or pos_j is None:
                raise ValueError("pos_i and pos_j must be provided if `use_pos` is True")

            msg_j = torch.cat([msg_j, pos_j], dim=1)
            msg_i = torch.cat([msg_i, pos_i], dim=1)

        if self.normalize == "anchor":
            mean = msg_i
        elif self.normalize == "center":
            local_mean = scatter(msg_j, index, dim=0, reduce="mean")
            mean = local_mean[index]

        msg = msg_j - mean

        if self.std_mode == "batch":
            msg = msg / (msg.std() + self.eps)
        else:
            edge_batch = batch[index]
            sq_msg_mean_c = msg.pow(2).mean(dim=-1)
            sigma_sq = scatter(sq_msg_mean_c, edge_batch, dim=0, reduce="mean")
            sigma = torch.sqrt(sigma_sq + self.eps)
            msg = msg / sigma[edge_batch].view(-1, 1)

        msg = self.alpha * msg + self.beta
        msg = torch.cat([msg, x_i], dim=1)

        return self.local_nn(msg)
