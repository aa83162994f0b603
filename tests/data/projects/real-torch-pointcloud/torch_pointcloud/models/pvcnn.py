"""PVCNN classification and segmentation models.

{{ paper("1907.03739") }}
"""

from typing import Any, Callable, Dict, List, Literal, Optional, Sequence, Tuple, Union, overload

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor
from torch_geometric.nn import MLP

import torch_pointcloud.transforms as T
from torch_pointcloud.datasets.s3dis import S3DIS_CLASSES
from torch_pointcloud.layers import PoolLike, create_pool
from torch_pointcloud.layers.conv3d_blocks import Conv3dBlock
from torch_pointcloud.layers.pvcnn_blocks import PVConv
from torch_pointcloud.utils.conversion import ensure_tuple, ensure_tuple_size
from torch_pointcloud.utils.data import DataKeys
from torch_pointcloud.utils.types import FeaturesDict, OptTensor

from ._base import ClassificationModel, SemanticSegmentationModel
from ._registry import WeightsDict, register_model


class PVConvBlock(nn.Module):
    """Stack of `depth` point-voxel convolutions, all at the same voxel resolution.

    A `resolution` of $0$ or `None` disables voxelization and falls back to per-point MLP layers.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        depth: int,
        kernel_size: int,
        resolution: int,
        use_se: bool = False,
        normalize: bool = True,
        act: Union[str, Callable, None] = "relu",
        act_kwargs: Optional[Dict[str, Any]] = None,
        act_first: bool = False,
        norm: Union[str, Callable, None] = "batch_norm",
        norm_kwargs: Optional[Dict[str, Any]] = None,
    ):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        kwargs = dict(
            act=act,
            act_kwargs=act_kwargs,
            act_first=act_first,
            norm=norm,
            norm_kwargs=norm_kwargs,
        )

        self.layers = nn.ModuleList([])
        for _ in range(depth):
            if not resolution:
                # In case resolution is 0 or None, use a linear block
                layer = MLP([in_channels, out_channels], plain_last=False, **kwargs)
            else:
                layer = PVConv(
                    in_channels=in_channels,
                    out_channels=out_channels,
                    kernel_size=kernel_size,
                    resolution=resolution,
                    use_se=use_se,
                    normalize=normalize,
                    **kwargs,  # type: ignore[arg-type]
                )

            self.layers.append(layer)
            in_channels = out_channels

    @overload
    def forward(
        self,
        x: Tensor,
        pos: Tensor,
        batch: Tensor,
        return_intermediates: Literal[True],
    ) -> Tuple[Tensor, List[FeaturesDict]]: ...

    @overload
    def forward(
        self,
        x: Tensor,
        pos: Tensor,
        batch: Tensor,
        return_intermediates: Literal[False] = False,
    ) -> Tensor: ...

    def forward(self, x: Tensor, pos: Tensor, batch: Tensor, return_intermediates: bool = False) -> Any:
        intermediates: List[FeaturesDict] = []
        for layer in self.layers:
            x = layer(x) if isinstance(layer, MLP) else layer(x, pos, batch)
            if return_intermediates:
                intermediates.append({"x": x, "pos": pos, "batch": batch})

        if return_intermediates:
            return x, intermediates
        return x


class PVCNNClassification(ClassificationModel):
    r"""PVCNN classification model from
    :arxiv: [Point-Voxel CNN for Efficient 3D Deep Learning](https://arxiv.org/abs/1907.03739)
    by Zhijian Liu, Haotian Tang, Yujun Lin, Song Han.

    A flat stack of point-voxel conv blocks at decreasing voxel resolutions, followed by global pooling,
    an optional global MLP and a linear head.

    Args:
        in_channels: Number of input feature channels.
        num_classes: Number of output classes. $0$ replaces the head with `nn.Identity`.
        channels: Output feature width of each block.
        global_channels: MLP channels applied to the pooled feature. `None` skips the global MLP.
        depths: Number of point-voxel conv layers per block.
        kernel_sizes: Voxel conv kernel size per block.
        resolutions: Voxel grid resolution per block; $0$ or `None` uses MLP layers instead.
        use_se: Add a squeeze-and-excitation gate to every voxel branch.
        normalize: Normalize coordinates into the unit voxel grid before voxelization.
        dropout: Dropout applied to the pooled features before the head.
        global_pool: Global pooling reducing the point features to one vector per cloud.
        act: Activation function.
        act_kwargs: Keyword arguments for the activation function.
        act_first: Apply the activation before the normalization.
        norm: Normalization function.
        norm_kwargs: Keyword arguments for the normalization function.
    """

    def __init__(
        self,
        in_channels: int,
        num_classes: int,
        *,
        channels: Sequence[int],
        global_channels: Optional[Sequence[int]] = None,
        depths: Sequence[int],
        kernel_sizes: Sequence[int],
        resolutions: Sequence[int],
        use_se: bool = False,
        normalize: bool = True,
        dropout: float = 0.0,
        global_pool: PoolLike = "max",
        act: Union[str, Callable, None] = "relu",
        act_kwargs: Optional[Dict[str, Any]] = None,
        act_first: bool = False,
        norm: Union[str, Callable, None] = "batch_norm",
        norm_kwargs: Optional[Dict[str, Any]] = None,
    ):
        super().__init__(in_channels=in_channels, num_classes=num_classes)

        self.depths = ensure_tuple(depths)
        self.channels = ensure_tuple_size([in_channels] + list(channels), size=len(self.depths) + 1)
        self.global_channels = ensure_tuple(global_channels, none_as_empty=True)
        self.kernel_sizes = ensure_tuple_size(kernel_sizes, size=len(self.depths))
        self.resolutions = ensure_tuple_size(resolutions, size=len(self.depths))
        self.use_se = use_se
        self.normalize = normalize
        self.dropout = dropout
        self.act = act
        self.act_kwargs = act_kwargs
        self.act_first = act_first
        self.norm = norm
        self.norm_kwargs = norm_kwargs

        self.blocks = self.configure_blocks()
        self.global_mlp = self.configure_global_mlp()
        self.global_pool = create_pool(global_pool)
        self.head = self.configure_head()

    def configure_blocks(self) -> nn.ModuleList:
        """Builds the point-voxel conv blocks, one per entry of `depths`."""
        blocks = nn.ModuleList()
        for i in range(len(self.depths)):
            in_channels = self.channels[i]
            out_channels = self.channels[i + 1]
            block = PVConvBlock(
                in_channels=in_channels,
                out_channels=out_channels,
                depth=self.depths[i],
                kernel_size=self.kernel_sizes[i],
                resolution=self.resolutions[i],
                use_se=self.use_se,
                normalize=self.normalize,
                act=self.act,
                act_kwargs=self.act_kwargs,
                act_first=self.act_first,
                norm=self.norm,
                norm_kwargs=self.norm_kwargs,
            )
            blocks.append(block)
        return blocks

    def configure_global_mlp(self) -> Optional[MLP]:
        """Builds the MLP applied to the pooled global feature, or `None` when `global_channels` is empty."""
        if not self.global_channels:
            return None
        return MLP(
            [self.channels[-1]] + list(self.global_channels),
            act=self.act,
            act_kwargs=self.act_kwargs,
            act_first=self.act_first,
            norm=self.norm,
            norm_kwargs=self.norm_kwargs,
            plain_last=False,
        )

    @property
    def num_features(self) -> int:
        """Channel count $C$ of the pooled features entering the head."""
        return self.global_channels[-1] if self.global_channels else self.channels[-1]

    def configure_head(self) -> nn.Module:
        return nn.Identity() if self.num_classes == 0 else nn.Linear(self.num_features, self.num_classes)

    def reset_classifier(self, num_classes: int, global_pool: Optional[PoolLike] = None, **kwargs: Any) -> None:
        self.num_classes = num_classes
        if global_pool is not None:
            self.global_pool = create_pool(global_pool)
        self.head = self.configure_head()

    @overload
    def forward_features(
        self,
        x: OptTensor,
        pos: Tensor,
        batch: Tensor,
        return_intermediates: Literal[True],
    ) -> Tuple[Tensor, List[FeaturesDict]]: ...

    @overload
    def forward_features(
        self,
        x: OptTensor,
        pos: Tensor,
        batch: Tensor,
        return_intermediates: Literal[False] = False,
    ) -> Tensor: ...

    def forward_features(self, x: OptTensor, pos: Tensor, batch: Tensor, return_intermediates: bool = False) -> Any:
        x = x if x is not None else pos
        intermediates: List[FeaturesDict] = []
        for block in self.blocks:
            x = block(x, pos, batch, return_intermediates=return_intermediates)
            if return_intermediates:
                x, x_inters = x
                intermediates.extend(x_inters)

        if return_intermediates:
            return x, intermediates
        return x

    def forward_head(self, x: Tensor, batch: Tensor, pre_logits: bool = False) -> Tensor:
        x = self.global_pool(x, batch)
        if self.global_mlp is not None:
            x = self.global_mlp(x)
        if self.dropout:
            x = F.dropout(x, p=self.dropout, training=self.training)
        return x if pre_logits else self.head(x)

    def forward(self, x: OptTensor, pos: Tensor, batch: Tensor) -> Tensor:
        x = self.forward_features(x, pos, batch)
        x = self.forward_head(x, batch)
        return x


class PVCNNSegmentation(SemanticSegmentationModel):
    r"""PVCNN segmentation model from
    :arxiv: [Point-Voxel CNN for Efficient 3D Deep Learning](https://arxiv.org/abs/1907.03739)
    by Zhijian Liu, Haotian Tang, Yujun Lin, Song Han.

    The same flat stack of point-voxel conv blocks as `PVCNNClassification`, but every layer output is
    kept at full point resolution and concatenated with the broadcast global feature, so no decoder is
    needed to recover per-point logits.

    Args:
        in_channels: Number of input feature channels. Raised to `spatial_dim` when smaller.
        num_classes: Number of output classes. $0$ replaces the head with `nn.Identity`.
        channels: Output feature width of each block.
        global_channels: MLP channels applied to the pooled feature. `None` skips the global MLP.
        depths: Number of point-voxel conv layers per block.
        kernel_sizes: Voxel conv kernel size per block.
        resolutions: Voxel grid resolution per block; $0$ or `None` uses MLP layers instead.
        spatial_dim: Spatial dimensionality of the point clouds.
        use_se: Add a squeeze-and-excitation gate to every voxel branch.
        normalize: Normalize coordinates into the unit voxel grid before voxelization.
        dropout: Dropout applied to the concatenated point features before the head.
        global_pool: Global pooling producing the cloud-level feature that is broadcast back to the points.
        act: Activation function.
        act_kwargs: Keyword arguments for the activation function.
        act_first: Apply the activation before the normalization.
        norm: Normalization function.
        norm_kwargs: Keyword arguments for the normalization function.
        head_channels: Hidden MLP channels of the head. `None` uses a single linear layer.
        head_dropout: Dropout between the hidden head layers.
    """

    def __init__(
        self,
        in_channels: int,
        num_classes: int,
        *,
        channels: Sequence[int],
        global_channels: Optional[Sequence[int]] = None,
        depths: Sequence[int],
        kernel_sizes: Sequence[int],
        resolutions: Sequence[int],
        spatial_dim: int = 3,
        use_se: bool = False,
        normalize: bool = True,
        dropout: float = 0.0,
        global_pool: PoolLike = "max",
        act: Union[str, Callable, None] = "relu",
        act_kwargs: Optional[Dict[str, Any]] = None,
        act_first: bool = False,
        norm: Union[str, Callable, None] = "batch_norm",
        norm_kwargs: Optional[Dict[str, Any]] = None,
        head_channels: Optional[Sequence[int]] = None,
        head_dropout: float = 0.0,
    ):
        super().__init__(in_channels=max(in_channels, spatial_dim), num_classes=num_classes)

        self.depths = ensure_tuple(depths)
        self.channels = ensure_tuple_size([self.in_channels] + list(channels), size=len(self.depths) + 1)
        self.global_channels = ensure_tuple(global_channels, none_as_empty=True)
        self.kernel_sizes = ensure_tuple_size(kernel_sizes, size=len(self.depths))
        self.resolutions = ensure_tuple_size(resolutions, size=len(self.depths))
        self.use_se = use_se
        self.normalize = normalize
        self.dropout = dropout
        self.act = act
        self.act_kwargs = act_kwargs
        self.act_first = act_first
        self.norm = norm
        self.norm_kwargs = norm_kwargs
        self.head_channels = ensure_tuple(head_channels, none_as_empty=True)
        self.head_dropout = head_dropout

        self.blocks = self.configure_blocks()
        self.global_mlp = self.configure_global_mlp()
        self.global_pool = create_pool(global_pool)
        self.head = self.configure_head()

    def configure_blocks(self) -> nn.ModuleList:
        """Builds the point-voxel conv blocks, one per entry of `depths`."""
        blocks = nn.ModuleList()
        for i in range(len(self.depths)):
            in_channels = self.channels[i]
            out_channels = self.channels[i + 1]
            block = PVConvBlock(
                in_channels=in_channels,
                out_channels=out_channels,
                depth=self.depths[i],
                kernel_size=self.kernel_sizes[i],
                resolution=self.resolutions[i],
                use_se=self.use_se,
                normalize=self.normalize,
                act=self.act,
                act_kwargs=self.act_kwargs,
                act_first=self.act_first,
                norm=self.norm,
                norm_kwargs=self.norm_kwargs,
            )
            blocks.append(block)
        return blocks

    def configure_global_mlp(self) -> Optional[MLP]:
        """Builds the MLP applied to the pooled global feature, or `None` when `global_channels` is empty."""
        if not self.global_channels:
            return None
        return MLP(
            [self.channels[-1]] + list(self.global_channels),
            act=self.act,
            act_kwargs=self.act_kwargs,
            act_first=self.act_first,
            norm=self.norm,
            norm_kwargs=self.norm_kwargs,
            plain_last=False,
        )

    @property
    def num_features(self) -> int:
        """Channel count $C$ entering the head: every layer output concatenated with the global feature."""
        return sum(channels * depth for channels, depth in zip(self.channels[1:], self.depths)) + (
            self.global_channels[-1] if self.global_channels else self.channels[-1]
        )

    def configure_head(self) -> nn.Module:
        if self.num_classes == 0:
            return nn.Identity()

        if not self.head_channels:
            return nn.Linear(self.num_features, self.num_classes)

        channels = [self.num_features, *self.head_channels, self.num_classes]
        dropout = [self.head_dropout] * (len(channels) - 2) + [0.0]
        return MLP(
            channels,
            act=self.act,
            act_kwargs=self.act_kwargs,
            act_first=self.act_first,
            norm=self.norm,
            norm_kwargs=self.norm_kwargs,
            dropout=dropout,
            plain_last=True,
        )

    def reset_classifier(self, num_classes: int, global_pool: Optional[PoolLike] = None, **kwargs: Any) -> None:
        self.num_classes = num_classes
        if global_pool is not None:
            self.global_pool = create_pool(global_pool)
        self.head = self.configure_head()

    @overload
    def forward_features(
        self,
        x: OptTensor,
        pos: Tensor,
        batch: Tensor,
        return_intermediates: Literal[True],
    ) -> Tuple[Tensor, List[FeaturesDict]]: ...

    @overload
    def forward_features(
        self,
        x: OptTensor,
        pos: Tensor,
        batch: Tensor,
        return_intermediates: Literal[False] = False,
    ) -> Tensor: ...

    def forward_features(self, x: OptTensor, pos: Tensor, batch: Tensor, return_intermediates: bool = False) -> Any:
        x = x if x is not None else pos
        intermediates: List[FeaturesDict] = []
        for block in self.blocks:
            x = block(x, pos, batch, return_intermediates=return_intermediates)
            if return_intermediates:
                x, x_inters = x
                intermediates.extend(x_inters)

        if return_intermediates:
            return x, intermediates
        return x

    def forward_decoder(self, x: Tensor, batch: Tensor, intermediates: List[FeaturesDict]) -> Tensor:
        x_global = self.global_pool(x, batch)
        if self.global_mlp:
            x_global = self.global_mlp(x_global)

        return torch.cat([*(skip["x"] for skip in intermediates), x_global[batch]], dim=1)

    def forward_head(self, x: Tensor, pre_logits: bool = False) -> Tensor:
        if self.dropout and not self.head_channels:
            x = F.dropout(x, p=self.dropout, training=self.training)
        return x if pre_logits else self.head(x)

    def forward(self, x: OptTensor, pos: Tensor, batch: Tensor) -> Tensor:
        x, intermediates = self.forward_features(x, pos, batch, return_intermediates=True)
        x = self.forward_decoder(x, batch, intermediates)
        x = self.forward_head(x)
        return x


_PVCNN_S3DIS_TRANSFORMS = T.Compose(
    [
        T.Cat(keys=[DataKeys.POS, DataKeys.COLOR, DataKeys.NORM_POS], dst_key=DataKeys.X),
    ]
)


def _pvcnn_s3dis_hparams(
    channels: Sequence[int],
    global_channels: Sequence[int],
    head_channels: Sequence[int],
) -> Dict[str, Any]:
    return dict(
        in_channels=9,
        num_classes=13,
        channels=channels,
        global_channels=global_channels,
        depths=[1, 2, 1, 1],
        kernel_sizes=[3, 3, 3, 3],
        resolutions=[32, 16, 16, 0],
        use_se=False,
        normalize=True,
        head_channels=head_channels,
        head_dropout=0.3,
        act="relu",
    )


def _patch_pvcnn_segmentation_mit_han_lab(model: PVCNNSegmentation) -> PVCNNSegmentation:
    """Give the voxel branch upstream's `LeakyReLU(0.1)` and `nn.BatchNorm3d` with $\\epsilon=10^{-4}$."""
    for pv in model.modules():
        if not isinstance(pv, PVConv):
            continue

        for block in pv.voxel_layers:
            if isinstance(block, Conv3dBlock):
                if isinstance(block.norm, nn.BatchNorm3d):
                    block.norm.eps = 1e-4
                if isinstance(block.act, nn.ReLU):
                    block.act = nn.LeakyReLU(negative_slope=0.1, inplace=True)
    return model


@register_model(
    "pvcnn.s3dis-area5.mit-han-lab",
    task="semantic-segmentation",
    weights=WeightsDict(
        url="hf://torch-pointcloud/pvcnn.s3dis-area5.mit-han-lab/resolve/5bf99bd6c088f52bc61842109acf14e7d098207e/model.safetensors",
        dataset="s3dis-area5",
        metrics={"mIoU": 57.51, "OA": 86.58},
        classes=S3DIS_CLASSES,
        author="mit-han-lab",
        license="MIT",
    ),
    hparams=_pvcnn_s3dis_hparams(
        channels=[64, 64, 128, 1024],
        global_channels=[256, 128],
        head_channels=[512, 256],
    ),
    transform=_PVCNN_S3DIS_TRANSFORMS,
)
def pvcnn_mit_han_lab_s3dis_area5(**hparams: Any) -> PVCNNSegmentation:
    model = PVCNNSegmentation(**hparams)
    return _patch_pvcnn_segmentation_mit_han_lab(model)


@register_model(
    "pvcnn-c0p25.s3dis-area5.mit-han-lab",
    task="semantic-segmentation",
    weights=WeightsDict(
        url="hf://torch-pointcloud/pvcnn-c0p25.s3dis-area5.mit-han-lab/resolve/324aeb44c166b3f99ce5ded6060d16f364e32106/model.safetensors",
        dataset="s3dis-area5",
        metrics={"mIoU": 53.31, "OA": 84.93, "simple/mIoU": 51.05, "simple/OA": 83.29},
        classes=S3DIS_CLASSES,
        author="mit-han-lab",
        license="MIT",
    ),
    hparams=_pvcnn_s3dis_hparams(
        channels=[16, 16, 32, 256],
        global_channels=[64, 32],
        head_channels=[128, 64],
    ),
    transform=_PVCNN_S3DIS_TRANSFORMS,
)
def pvcnn_c0p25_mit_han_lab_s3dis_area5(**hparams: Any) -> PVCNNSegmentation:
    model = PVCNNSegmentation(**hparams)
    return _patch_pvcnn_segmentation_mit_han_lab(model)


@register_model(
    "pvcnn-c0p125.s3dis-area5.mit-han-lab",
    task="semantic-segmentation",
    weights=WeightsDict(
        url="hf://torch-pointcloud/pvcnn-c0p125.s3dis-area5.mit-han-lab/resolve/22d4dd68f1ce35d3553eec14f4770c2ba164fea6/model.safetensors",
        dataset="s3dis-area5",
        metrics={"mIoU": 49.25, "OA": 83.04, "simple/mIoU": 46.36, "simple/OA": 80.74},
        classes=S3DIS_CLASSES,
        author="mit-han-lab",
        license="MIT",
    ),
    hparams=_pvcnn_s3dis_hparams(
        channels=[8, 8, 16, 128],
        global_channels=[32, 16],
        head_channels=[64, 32],
    ),
    transform=_PVCNN_S3DIS_TRANSFORMS,
)
def pvcnn_c0p125_mit_han_lab_s3dis_area5(**hparams: Any) -> PVCNNSegmentation:
    model = PVCNNSegmentation(**hparams)
    return _patch_pvcnn_segmentation_mit_han_lab(model)
