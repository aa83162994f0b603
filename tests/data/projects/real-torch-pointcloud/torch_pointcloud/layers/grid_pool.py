"""Grid-based point cloud pooling (downsampling).

Clusters points by quantized grid coordinates and reduces features
via scatter operations.  This is an alternative to code-space pooling
(`SerializedPooling`) used in PTV3 Mode 2 (Sonata) and Mode 3 (Utonia).
"""

from typing import Any, Callable, Dict, Optional, Tuple, Union

import torch
import torch.nn as nn
from torch import Tensor
from torch_geometric.utils import segment

from .act import create_act
from .norms import create_norm


class GridPool(nn.Module):
    """Grid-based downsampling that clusters points by quantized coordinates.

    Divides `pos_grid` by `stride`, groups unique voxels via
    `torch.unique`, and reduces features with `torch_geometric.utils.segment`.

    Args:
        in_channels: Number of input feature channels.
        out_channels: Number of output feature channels.
        stride: Spatial stride for grid quantization.
        act: Activation layer applied after projection.
        act_kwargs: Extra arguments for the activation function.
        act_first: Apply activation before normalization.
        norm: Normalization layer applied after projection.
        norm_kwargs: Extra arguments for the normalization layer.
        reduce: Scatter reduction (`"max"`, `"mean"`, `"sum"`, `"min"`).
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        stride: int = 2,
        bias: bool = True,
        act: Union[str, Callable, None] = None,
        act_kwargs: Optional[Dict[str, Any]] = None,
        act_first: bool = False,
        norm: Union[str, Callable, None] = None,
        norm_kwargs: Optional[Dict[str, Any]] = None,
        reduce: str = "max",
    ):
        super().__init__()
        act_kwargs = act_kwargs or {}
        norm_kwargs = norm_kwargs or {}
        if reduce not in ("sum", "mean", "min", "max"):
            raise ValueError(f"Invalid reduce operation: {reduce}.")

        self.stride = stride
        self.reduce = reduce
        self.act_first = act_first
        self.proj = nn.Linear(in_channels, out_channels, bias=bias)
        self.norm: Optional[nn.Module] = create_norm(norm, out_channels, **norm_kwargs)
        self.act = create_act(act, **act_kwargs)

    def forward(
        self,
        x: Tensor,
        pos_grid: Tensor,
        batch: Tensor,
        pos: Optional[Tensor] = None,
        condition: Optional[str] = None,
    ) -> Tuple[Tensor, Tensor, Tensor, Tensor, Optional[Tensor]]:
        """Downsample points by grid quantization.

        Args:
            x: Point features of shape $(N, C_{in})$.
            pos_grid: Integer grid coordinates of shape $(N, 3)$. Must be non-negative and pool to
                coordinates below $2^{16}$: batch index and coordinates are bit-packed into a single
                int64 cluster key, so out-of-range coordinates would merge clusters across samples.
            batch: Batch indices of shape $(N,)$.
            pos: Optional real-valued positions of shape $(N, 3)$ to mean-pool
                alongside the features (e.g. for downstream rotary position embedding).
            condition: Optional condition name selecting the inner norm when the norm is a `PDNorm`.

        Returns:
            Tuple of `(x_pooled, pos_grid_pooled, batch_pooled, pooling_inverse, pos_pooled)`.
            `pooling_inverse` maps each input point to its pooled cluster index.
            `pos_pooled` is `None` when `pos` is not provided.
        """
        pos_grid_pooled = torch.div(pos_grid, self.stride, rounding_mode="trunc")
        if pos_grid.numel() > 0 and bool(((pos_grid < 0) | (pos_grid_pooled >= 1 << 16)).any()):
            raise ValueError(
                f"`pos_grid` must be non-negative and pool to coordinates below 65536, "
                f"got range [{int(pos_grid.min())}, {int(pos_grid.max())}] with stride {self.stride}: "
                f"out-of-range coordinates corrupt the bit-packed cluster key."
            )

        key = batch << 48 | pos_grid_pooled[:, 0] << 32 | pos_grid_pooled[:, 1] << 16 | pos_grid_pooled[:, 2]
        key, cluster, counts = torch.unique(key, sorted=True, return_inverse=True, return_counts=True)
        pos_grid_pooled = torch.stack([key >> 32 & 0xFFFF, key >> 16 & 0xFFFF, key & 0xFFFF], dim=1)

        _, indices = torch.sort(cluster)
        idx_ptr = torch.cat([counts.new_zeros(1), torch.cumsum(counts, dim=0)])
        head_indices = indices[idx_ptr[:-1]]

        x_pooled = segment(self.proj(x)[indices], idx_ptr, reduce=self.reduce)
        batch_pooled = batch[head_indices]
        pos_pooled = segment(pos[indices], idx_ptr, reduce="mean") if pos is not None else None

        norm_kwargs = {} if condition is None else {"condition": condition}
        if self.act_first:
            if self.act is not None:
                x_pooled = self.act(x_pooled)
            if self.norm is not None:
                x_pooled = self.norm(x_pooled, **norm_kwargs)
        else:
            if self.norm is not None:
                x_pooled = self.norm(x_pooled, **norm_kwargs)
            if self.act is not None:
                x_pooled = self.act(x_pooled)

        return x_pooled, pos_grid_pooled, batch_pooled, cluster, pos_pooled
