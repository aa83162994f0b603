"""T-Net alignment modules predicting affine transforms for point and feature spaces."""

from typing import Any, Callable, Dict, Optional, Sequence, Union

import torch
import torch.nn as nn
from torch import Tensor
from torch_geometric.nn import MLP, EdgeConv
from torch_geometric.utils import scatter

from torch_pointcloud.ops.cluster import knn
from torch_pointcloud.utils.conversion import ensure_list
from torch_pointcloud.utils.types import AggrType, OptTensor


class TNet(nn.Module):
    r"""Transformation Network (T-Net) module as described in PointNet paper
    :arxiv: [PointNet: Deep Learning on Point Sets for 3D Classification and Segmentation](https://arxiv.org/pdf/1612.00593).

    T-Net predicts an affine transformation matrix that helps align input point clouds
    or feature spaces to a canonical space. This network acts as a mini-PointNet that
    takes points/features as input and outputs a transformation matrix.

    This layer will apply the following transformation to the input:

    $$
        x' = x \cdot T
    $$

    where $T$ is the transformation matrix.

    There are two variants of the T-Net in PointNet:
    1. Spatial transform network (ST-Net): Operates on point coordinates (k=3)
    2. Feature transform network (FT-Net): Operates on point features (k=64 typically)

    Note:
        The transformation matrix is initialized as an identity matrix and
        adds a residual connection to help with optimization stability.

    Args:
        local_channels: Channels of the first MLP, before pooling.
        global_channels: Channels of the second MLP, after pooling.
        k: Dimension of input features to transform.
        act: Activation function to use.
        act_kwargs: Keyword arguments for the activation function.
        act_first: Whether to apply the activation function before the normalization.
        norm: Normalization to use.
        norm_kwargs: Keyword arguments for the normalization.
        bias: Whether to use bias in the linear layers.
        dropout: Dropout rate.
        aggr: Aggregation method to use.
        track_running_stats: Whether to keep the per-sample transforms of the last forward pass
            (`running_transform`, $(B, k, k)$) for `losses.tnet_orthogonality_regularizer`.
    """

    def __init__(
        self,
        local_channels: Union[int, Sequence[int]],
        global_channels: Union[int, Sequence[int]],
        k: int,
        act: Union[str, Callable, None] = "relu",
        act_kwargs: Optional[Dict[str, Any]] = None,
        act_first: bool = False,
        norm: Union[str, Callable, None] = "batch_norm",
        norm_kwargs: Optional[Dict[str, Any]] = None,
        bias: bool = True,
        dropout: float = 0.0,
        aggr: AggrType = "max",
        track_running_stats: bool = True,
    ) -> None:
        super().__init__()
        kwargs = dict(
            plain_last=False,
            act=act,
            act_kwargs=act_kwargs,
            act_first=act_first,
            norm=norm,
            norm_kwargs=norm_kwargs,
            bias=bias,
            dropout=dropout,
        )

        self.k = k
        self.aggr = aggr
        self.track_running_stats = track_running_stats
        self.running_transform: OptTensor = None

        local_channels = [k] + ensure_list(local_channels)
        global_channels = [local_channels[-1]] + ensure_list(global_channels)

        self.local_nn = MLP(local_channels, **kwargs)
        self.global_nn = MLP(global_channels, **kwargs)
        self.transform = nn.Linear(global_channels[-1], k * k)

        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.zeros_(self.transform.weight)
        nn.init.zeros_(self.transform.bias)

    def forward(self, x: Tensor, batch: Tensor) -> Tensor:
        r"""Forward pass of the T-Net.

        Predicts one $k \times k$ transformation matrix per sample and applies it to the points.

        Args:
            x: Input tensor of shape $(N, k)$ where $N$ is the number of points and $k$ is the
                dimension of the input features.
            batch: Batch indices of shape $(N,)$.

        Returns:
            Transformed features of shape $(N, k)$.
        """

        xt = self.local_nn(x)
        xt = scatter(xt, batch, dim=0, reduce=self.aggr)
        xt = self.global_nn(xt)

        xt = self.transform(xt)
        identity = torch.eye(self.k, dtype=xt.dtype, device=xt.device)
        xt = xt.view(-1, self.k, self.k) + identity
        if self.track_running_stats:
            self.running_transform = xt  # (B, k, k)

        xt = xt[batch]
        return torch.bmm(x.unsqueeze(1), xt).squeeze(1)


class DynamicTNet(nn.Module):
    """Dynamic graph-based Transformation Network as used in the DGCNN part segmentation model.

    Unlike `TNet` which applies a point-wise MLP, this variant first builds a
    kNN graph and processes edge features with an `EdgeConv`, matching the
    `Transform_Net` from :github: [antao97/dgcnn.pytorch](https://github.com/antao97/dgcnn.pytorch).

    Architecture:
        1. `edge_conv`: `EdgeConv` over kNN graph features `[2*k, ...edge_channels]`
        2. `local_nn`:  Point-wise MLP `[edge_channels[-1], ...local_channels]`, then scatter max
        3. `global_nn`: Global MLP `[local_channels[-1], ...global_channels]`
        4. `transform`: Linear projection to `k * k` matrix (initialized as identity)

    Args:
        edge_channels: Hidden channels for the EdgeConv MLP (excluding the `2*k` input).
        local_channels: Channels for the point-wise MLP applied after the EdgeConv.
        global_channels: Channels for the global MLP applied after pooling.
        k: Dimension of input features to transform.
        num_neighbors: Number of nearest neighbors for the dynamic graph.
        act: Activation function.
        act_kwargs: Keyword arguments for the activation function.
        act_first: Whether to apply the activation before normalization.
        norm: Normalization layer type.
        norm_kwargs: Keyword arguments for the normalization layer.
        bias: Whether to use bias in linear layers.
        dropout: Dropout rate.
        aggr: Aggregation method to use.
        track_running_stats: Whether to keep the per-sample transforms of the last forward pass
            (`running_transform`, $(B, k, k)$) for `losses.tnet_orthogonality_regularizer`.
    """

    def __init__(
        self,
        edge_channels: Sequence[int],
        local_channels: Sequence[int],
        global_channels: Sequence[int],
        k: int,
        num_neighbors: int = 20,
        act: Union[str, Callable, None] = "relu",
        act_kwargs: Optional[Dict[str, Any]] = None,
        act_first: bool = False,
        norm: Union[str, Callable, None] = "batch_norm",
        norm_kwargs: Optional[Dict[str, Any]] = None,
        bias: bool = True,
        dropout: float = 0.0,
        aggr: AggrType = "max",
        track_running_stats: bool = True,
    ) -> None:
        super().__init__()
        kwargs = dict(
            plain_last=False,
            act=act,
            act_kwargs=act_kwargs,
            act_first=act_first,
            norm=norm,
            norm_kwargs=norm_kwargs,
            bias=bias,
            dropout=dropout,
        )

        self.k = k
        self.num_neighbors = num_neighbors
        self.aggr = aggr
        self.track_running_stats = track_running_stats
        self.running_transform: OptTensor = None

        edge_channels = [2 * k] + ensure_list(edge_channels)
        local_channels = [edge_channels[-1]] + ensure_list(local_channels)
        global_channels = [local_channels[-1]] + ensure_list(global_channels)

        edge_nn = MLP(edge_channels, **kwargs)
        self.edge_conv = EdgeConv(edge_nn, aggr=aggr)
        self.local_nn = MLP(local_channels, **kwargs)
        self.global_nn = MLP(global_channels, **kwargs)
        self.transform = nn.Linear(global_channels[-1], k * k)

        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.zeros_(self.transform.weight)
        nn.init.zeros_(self.transform.bias)

    def forward(self, x: Tensor, batch: Tensor) -> Tensor:
        """
        Args:
            x: Point features of shape $(N, k)$.
            batch: Batch indices of shape $(N,)$.

        Returns:
            Transformed features of shape $(N, k)$.
        """
        edge_index = knn(x, x, self.num_neighbors, batch_x=batch, batch_y=batch).flip([0])
        xt = self.edge_conv(x, edge_index)
        xt = self.local_nn(xt)
        xt = scatter(xt, batch, dim=0, reduce=self.aggr)
        xt = self.global_nn(xt)

        xt = self.transform(xt)
        identity = torch.eye(self.k, dtype=xt.dtype, device=xt.device)
        xt = xt.view(-1, self.k, self.k) + identity
        if self.track_running_stats:
            self.running_transform = xt  # (B, k, k)

        xt = xt[batch]
        return torch.bmm(x.unsqueeze(1), xt).squeeze(1)
