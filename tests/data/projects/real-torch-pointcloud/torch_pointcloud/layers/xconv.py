"""PointCNN XConv layer: convolution on X-transformed point neighborhoods."""

import math
from typing import Any, Callable, Dict, Optional, Tuple, Union

import torch
import torch.nn as nn
from torch import Tensor

from torch_pointcloud.layers.view import View
from torch_pointcloud.utils.types import OptTensor, PairTensor

from .act import create_act
from .norms import create_norm


class XConv(nn.Module):
    r"""XConv layer as described in the paper
    :arxiv: ["PointCNN: Convolution On X-Transformed Points"](https://arxiv.org/abs/1801.07791)
    by Yangyan Li, Rui Bu, Mingchao Sun, Wei Wu, Xinhan Di, Baoquan Chen.

    This layer is inspired by the PyTorch Geometric `torch_geometric.nn.XConv` layer implementation,
    excepts that this convolution layer supports bipartite graphs and more flexibility / customization.
    This implementation provides full compatibility with the PyTorch Geometric library while following the official
    paper and original tensorflow implementation.

    `edge_index` lists `[source, target]` pairs with exactly `kernel_size * dilation` consecutive edges per target
    point, in the order `knn` returns them; a bipartite graph is given as `(x_source, None)` and
    `(pos_source, pos_target)` pairs.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        spatial_dim: int,
        kernel_size: int,
        hidden_channels: Optional[int] = None,
        depth_multiplier: Optional[int] = None,
        dilation: int = 1,
        act: Union[str, Callable, None] = "elu",
        act_kwargs: Optional[Dict[str, Any]] = None,
        norm: Union[str, Callable, None] = "batch_norm",
        norm_kwargs: Optional[Dict[str, Any]] = None,
        bias: bool = True,
    ):
        super().__init__()
        act_kwargs = act_kwargs or {}
        norm_kwargs = norm_kwargs or {}

        self.in_channels = in_channels
        self.hidden_channels = hidden_channels or self.in_channels // 4
        if self.hidden_channels <= 0:
            raise ValueError(
                f"XConv requires `hidden_channels > 0`, got {self.hidden_channels} "
                f"(the default `in_channels // 4` is 0 for in_channels={in_channels}; "
                "pass `hidden_channels` explicitly)."
            )

        self.out_channels = out_channels
        self.spatial_dim = spatial_dim
        self.kernel_size = kernel_size
        self.dilation = dilation

        self.mlp1 = nn.Sequential(
            nn.Linear(self.spatial_dim, self.hidden_channels),
            create_act(act, **act_kwargs) or nn.Identity(),
            create_norm(norm, self.hidden_channels, **norm_kwargs) or nn.Identity(),
            nn.Linear(self.hidden_channels, self.hidden_channels),
            create_act(act, **act_kwargs) or nn.Identity(),
            create_norm(norm, self.hidden_channels, **norm_kwargs) or nn.Identity(),
            View(-1, self.kernel_size, self.hidden_channels),
        )

        self.mlp2 = nn.Sequential(
            nn.Linear(self.spatial_dim * self.kernel_size, self.kernel_size**2),
            create_act(act, **act_kwargs) or nn.Identity(),
            create_norm(norm, self.kernel_size**2, **norm_kwargs) or nn.Identity(),
            View(-1, self.kernel_size, self.kernel_size),
            nn.Conv1d(self.kernel_size, self.kernel_size**2, self.kernel_size, groups=self.kernel_size),
            create_act(act, **act_kwargs) or nn.Identity(),
            create_norm(norm, self.kernel_size**2, **norm_kwargs) or nn.Identity(),
            View(-1, self.kernel_size, self.kernel_size),
            nn.Conv1d(self.kernel_size, self.kernel_size**2, self.kernel_size, groups=self.kernel_size),
            create_norm(norm, self.kernel_size**2, **norm_kwargs) or nn.Identity(),
            View(-1, self.kernel_size, self.kernel_size),
        )

        in_channels = self.in_channels + self.hidden_channels
        self.depth_multiplier = depth_multiplier or int(math.ceil(self.out_channels / in_channels))

        self.conv = nn.Sequential(
            nn.Conv1d(in_channels, in_channels * self.depth_multiplier, self.kernel_size, groups=in_channels),
            View(-1, in_channels * self.depth_multiplier),
            nn.Linear(in_channels * self.depth_multiplier, self.out_channels, bias=bias),
        )

        self.reset_parameters()

    def reset_parameters(self) -> None:
        self.apply(self.init_weights_)

    @staticmethod
    def init_weights_(module: nn.Module) -> None:
        """Applies Xavier normal initialization to `nn.Linear` and `nn.Conv1d` modules, zeroing their bias."""
        if not isinstance(module, (nn.Linear, nn.Conv1d)):
            return

        nn.init.xavier_normal_(module.weight)
        if hasattr(module, "bias") and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(
        self,
        x: Union[OptTensor, Tuple[OptTensor, OptTensor]],
        pos: Union[Tensor, PairTensor],
        edge_index: Tensor,
    ) -> Tensor:
        if not isinstance(x, tuple):
            x = (x, None)

        if isinstance(pos, Tensor):
            pos = (pos, pos)

        num_expected = pos[1].size(0) * self.kernel_size * self.dilation
        if edge_index.size(1) != num_expected:
            raise ValueError(
                f"XConv expects exactly `kernel_size * dilation` = {self.kernel_size * self.dilation} neighbors "
                f"per output point ({num_expected} edges for {pos[1].size(0)} points), got {edge_index.size(1)}. "
                "This typically means a point cloud in the batch has fewer than `kernel_size * dilation` points."
            )

        if self.dilation > 1:
            edge_index = edge_index[:, :: self.dilation]

        # Gathered by hand rather than through `MessagePassing`: the neighborhood stays dense, (N_t, K, C), for the
        # X-transform and is never aggregated.
        source, target = edge_index
        pos_src, pos_dst = pos
        x_src, _ = x

        pos_j, pos_i = pos_src[source], pos_dst[target]
        x_j = x_src[source] if x_src is not None else None

        # Compute relative neighbor positions (message)
        msg = pos_j - pos_i

        x_star = self.mlp1(msg)

        if x_j is not None:
            x_j = x_j.view(-1, self.kernel_size, self.in_channels)
            x_star = torch.cat([x_star, x_j], dim=-1)

        x_star = x_star.transpose(1, 2).contiguous()
        transform_matrix = self.mlp2(msg.view(-1, self.kernel_size * self.spatial_dim))
        x_transformed = torch.matmul(x_star, transform_matrix)

        return self.conv(x_transformed)

    def extra_repr(self) -> str:
        return (
            f"in_channels={self.in_channels}, hidden_channels={self.hidden_channels}, out_channels={self.out_channels}, "
            f"spatial_dim={self.spatial_dim}, kernel_size={self.kernel_size}, dilation={self.dilation}"
        )

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.extra_repr()})"
