"""Concerto pretrained encoders and linear-probing segmentation model.

{{ paper("2510.23607") }}
"""

from typing import Any, Callable, Dict, List, Literal, Optional, Sequence, Tuple, Union, overload

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

import torch_pointcloud.transforms as T
from torch_pointcloud.datasets.scannet import SCANNET20_CLASSES
from torch_pointcloud.models._base import SemanticSegmentationModel
from torch_pointcloud.models._registry import WeightsDict, register_model
from torch_pointcloud.models.point_transformer_v3 import (
    AttentionKind,
    PointTransformerV3Encoder,
    SerializedFeaturesDict,
    encoder_checkpoint_filter_fn,
    pretrained_encoder_hparams,
)
from torch_pointcloud.ops.serialization import SerializationOrder
from torch_pointcloud.utils.data import DataKeys
from torch_pointcloud.utils.types import OptTensor


class ConcertoSegmentation(SemanticSegmentationModel):
    r"""Concerto linear-probing segmentation model.

    Linear-probe variant from
    :arxiv: [Concerto: Joint 2D-3D Self-Supervised Learning](https://arxiv.org/abs/2510.23607)
    (Zhang et al., NeurIPS 2025). The pretrained PT-V3 encoder is run with
    intermediate features captured at every encoder stage; those features are
    successively unpooled through the saved pooling inverses, concatenated with
    each parent stage, then projected by a single linear segmentation head.

    Architecturally identical to Sonata's linear-probe head, only the encoder
    scale differs (Concerto-large uses $C = (64, 128, 256, 512, 768)$ versus
    Sonata's $(48, 96, 192, 384, 512)$).

    Note:
        The default (and registered) configuration enables flash attention (`use_flash_attn=True`),
        which requires the `flash-attn` package and a CUDA device; pass `use_flash_attn=False` to
        run without it. The xCPE sparse convolution still needs a `spconv` build matching the
        device; the standard CUDA wheel cannot run the forward on CPU.
    """

    def __init__(
        self,
        in_channels: int,
        num_classes: int,
        serialization_orders: Sequence[SerializationOrder] = ("z", "z-trans", "hilbert", "hilbert-trans"),
        shuffle_serialization_orders: bool = True,
        strides: Sequence[int] = (2, 2, 2, 2),
        encoder_depths: Sequence[int] = (3, 3, 3, 12, 3),
        encoder_channels: Sequence[int] = (64, 128, 256, 512, 768),
        encoder_num_heads: Sequence[int] = (4, 8, 16, 32, 48),
        encoder_patch_size: Sequence[int] = (1024, 1024, 1024, 1024, 1024),
        norm: Union[str, Callable] = "layer_norm",
        act: Union[str, Callable] = "gelu",
        mlp_ratio: float = 4.0,
        qkv_bias: bool = True,
        qk_scale: Optional[float] = None,
        attn_drop: float = 0.0,
        proj_drop: float = 0.0,
        drop_path: float = 0.3,
        attn_kind: AttentionKind = "default",
        use_flash_attn: bool = True,
        upcast_attn: bool = False,
        upcast_softmax: bool = False,
        dropout: float = 0.0,
        pooling: str = "grid",
        stem_type: str = "linear",
        act_kwargs: Optional[Dict[str, Any]] = None,
        norm_kwargs: Optional[Dict[str, Any]] = None,
        legacy: bool = False,
    ):
        super().__init__(in_channels=in_channels, num_classes=num_classes)
        # PyG's LayerNorm defaults to graph mode, which normalizes across the whole packed batch and
        # leaks features between samples; node mode matches nn.LayerNorm semantics.
        if norm == "layer_norm":
            norm_kwargs = {"mode": "node", **(norm_kwargs or {})}
        self.serialization_orders = serialization_orders
        self.shuffle_serialization_orders = shuffle_serialization_orders
        self.strides = strides
        self.encoder_depths = encoder_depths
        self.encoder_channels = encoder_channels
        self.encoder_num_heads = encoder_num_heads
        self.encoder_patch_size = encoder_patch_size
        self.norm = norm
        self.act = act
        self.mlp_ratio = mlp_ratio
        self.qkv_bias = qkv_bias
        self.qk_scale = qk_scale
        self.attn_drop = attn_drop
        self.proj_drop = proj_drop
        self.drop_path = drop_path
        self.attn_kind = attn_kind
        self.use_flash_attn = use_flash_attn
        self.upcast_attn = upcast_attn
        self.upcast_softmax = upcast_softmax
        self.dropout = dropout
        self.pooling = pooling
        self.stem_type = stem_type
        self.act_kwargs = act_kwargs
        self.norm_kwargs = norm_kwargs
        self.legacy = legacy

        self.encoder = self.configure_encoder()
        self.head = self.configure_head()

    def configure_encoder(self) -> PointTransformerV3Encoder:
        """Build the `PointTransformerV3Encoder` backbone."""
        return PointTransformerV3Encoder(
            in_channels=self.in_channels,
            serialization_orders=self.serialization_orders,
            shuffle_serialization_orders=self.shuffle_serialization_orders,
            strides=self.strides,
            encoder_depths=self.encoder_depths,
            encoder_channels=self.encoder_channels,
            encoder_num_heads=self.encoder_num_heads,
            encoder_patch_size=self.encoder_patch_size,
            norm=self.norm,
            act=self.act,
            mlp_ratio=self.mlp_ratio,
            qkv_bias=self.qkv_bias,
            qk_scale=self.qk_scale,
            attn_drop=self.attn_drop,
            proj_drop=self.proj_drop,
            drop_path=self.drop_path,
            attn_kind=self.attn_kind,
            use_flash_attn=self.use_flash_attn,
            upcast_attn=self.upcast_attn,
            upcast_softmax=self.upcast_softmax,
            pooling=self.pooling,
            stem_type=self.stem_type,
            act_kwargs=self.act_kwargs,
            norm_kwargs=self.norm_kwargs,
            legacy=self.legacy,
        )

    @property
    def num_features(self) -> int:
        """Channel count $C$ entering the head: every encoder stage unpooled and concatenated."""
        return sum(self.encoder_channels)

    def configure_head(self) -> nn.Module:
        return nn.Identity() if self.num_classes == 0 else nn.Linear(self.num_features, self.num_classes)

    def reset_classifier(self, num_classes: int) -> None:
        self.num_classes = num_classes
        self.head = self.configure_head()

    @overload
    def forward_features(
        self,
        x: OptTensor,
        pos_grid: Tensor,
        batch: Tensor,
        return_intermediates: Literal[True],
    ) -> Tuple[Tensor, Tensor, Tensor, List[SerializedFeaturesDict]]: ...

    @overload
    def forward_features(
        self,
        x: OptTensor,
        pos_grid: Tensor,
        batch: Tensor,
        return_intermediates: Literal[False] = False,
    ) -> Tuple[Tensor, Tensor, Tensor]: ...

    def forward_features(
        self,
        x: OptTensor,
        pos_grid: Tensor,
        batch: Tensor,
        return_intermediates: bool = False,
    ) -> Any:
        if return_intermediates:
            return self.encoder.forward(x, pos_grid, batch, return_intermediates=True)
        return self.encoder.forward(x, pos_grid, batch, return_intermediates=False)

    def forward_decoder(self, x: Tensor, intermediates: List[SerializedFeaturesDict]) -> Tuple[Tensor, Tensor, Tensor]:
        pos_grid = batch = None
        for intermediate in reversed(intermediates):
            inverse = intermediate["pooling_inverse"]
            x = torch.cat([intermediate["x"], x[inverse]], dim=-1)
            pos_grid = intermediate["pos_grid"]
            batch = intermediate["batch"]

        if pos_grid is None or batch is None:
            raise ValueError("Concerto segmentation requires encoder intermediates for feature unpooling.")

        return x, pos_grid, batch

    def forward_head(self, x: Tensor, pre_logits: bool = False) -> Tensor:
        if self.dropout:
            x = F.dropout(x, p=float(self.dropout), training=self.training)
        return x if pre_logits else self.head(x)

    def forward(self, x: Tensor, pos_grid: Tensor, batch: Tensor) -> Tensor:
        x, _, _, intermediates = self.forward_features(x, pos_grid, batch, return_intermediates=True)
        x, _, _ = self.forward_decoder(x, intermediates)
        return self.forward_head(x)


_CONCERTO_TRANSFORMS = T.Compose(
    [
        T.Shift(keys=DataKeys.POS, method="bbox", axes=[0, 1]),  # XY: bbox midrange
        T.Shift(keys=DataKeys.POS, method="min", axes=[2]),  # Z: min
        T.Divide(keys=DataKeys.COLOR, divisor=255),
        T.Cat(keys=[DataKeys.POS, DataKeys.COLOR, DataKeys.NORMAL], dst_key=DataKeys.X, dim=1),
        T.CopyItems(
            keys=[DataKeys.POS, DataKeys.SEGMENT],
            dst_keys=[DataKeys.ORIGIN_POS, DataKeys.ORIGIN_SEGMENT],
            allow_missing_keys=True,
        ),
        T.Voxelize(
            pos_key=DataKeys.POS,
            pos_reduce="first",
            dst_pos_grid_key=DataKeys.POS_GRID,
            keys=[DataKeys.X, DataKeys.SEGMENT, DataKeys.COLOR, DataKeys.NORMAL, DataKeys.INSTANCE],
            reduce="first",
            size=0.02,
            method="fnv",
            allow_missing_keys=True,
            dst_inverse_key=DataKeys.INVERSE,
        ),
    ]
)

_CONCERTO_SEG_TRANSFORMS = T.Compose(
    [
        T.Shift(keys=DataKeys.POS, method="bbox", axes=[0, 1]),  # XY: bbox midrange
        T.Shift(keys=DataKeys.POS, method="min", axes=[2]),  # Z: min
        T.Divide(keys=DataKeys.COLOR, divisor=255),
        T.Cat(keys=[DataKeys.POS, DataKeys.COLOR, DataKeys.NORMAL], dst_key=DataKeys.X, dim=1),
        T.Relabel(keys=DataKeys.SEGMENT, labels=range(1, 21), default=-1),
        T.CopyItems(
            keys=[DataKeys.POS, DataKeys.SEGMENT],
            dst_keys=[DataKeys.ORIGIN_POS, DataKeys.ORIGIN_SEGMENT],
            allow_missing_keys=True,
        ),
        T.Voxelize(
            pos_key=DataKeys.POS,
            pos_reduce="first",
            dst_pos_grid_key=DataKeys.POS_GRID,
            keys=[DataKeys.X, DataKeys.SEGMENT, DataKeys.COLOR, DataKeys.NORMAL, DataKeys.INSTANCE],
            reduce="first",
            size=0.02,
            method="fnv",
            allow_missing_keys=True,
            dst_inverse_key=DataKeys.INVERSE,
        ),
    ]
)


@register_model(
    "concerto-tiny.pretrain.pointcept",
    task="pretraining",
    input_keys=("x", "pos_grid", "batch"),
    weights=WeightsDict(
        url="hf://Pointcept/Concerto/resolve/efc130718a564eba0ce4899318f3c20b19d9c752/concerto_tiny.pth",
        pretrained_filter_fn=encoder_checkpoint_filter_fn,
        author="pointcept",
        license="CC-BY-NC-4.0",
    ),
    transform=_CONCERTO_TRANSFORMS,
    hparams=pretrained_encoder_hparams(
        encoder_depths=(1, 1, 1, 3, 1),
        encoder_channels=(16, 32, 64, 128, 256),
        encoder_num_heads=(1, 2, 4, 8, 16),
    ),
)
def concerto_tiny(**hparams: Any) -> PointTransformerV3Encoder:
    return PointTransformerV3Encoder(**hparams)


@register_model(
    "concerto-small.pretrain.pointcept",
    task="pretraining",
    input_keys=("x", "pos_grid", "batch"),
    weights=WeightsDict(
        url="hf://Pointcept/Concerto/resolve/efc130718a564eba0ce4899318f3c20b19d9c752/concerto_small.pth",
        pretrained_filter_fn=encoder_checkpoint_filter_fn,
        author="pointcept",
        license="CC-BY-NC-4.0",
    ),
    transform=_CONCERTO_TRANSFORMS,
    hparams=pretrained_encoder_hparams(
        encoder_depths=(2, 2, 2, 6, 2),
        encoder_channels=(32, 64, 128, 256, 512),
        encoder_num_heads=(2, 4, 8, 16, 32),
    ),
)
def concerto_small(**hparams: Any) -> PointTransformerV3Encoder:
    return PointTransformerV3Encoder(**hparams)


@register_model(
    "concerto-base.pretrain.pointcept",
    task="pretraining",
    input_keys=("x", "pos_grid", "batch"),
    weights=WeightsDict(
        url="hf://Pointcept/Concerto/resolve/efc130718a564eba0ce4899318f3c20b19d9c752/concerto_base.pth",
        pretrained_filter_fn=encoder_checkpoint_filter_fn,
        author="pointcept",
        license="CC-BY-NC-4.0",
    ),
    transform=_CONCERTO_TRANSFORMS,
    hparams=pretrained_encoder_hparams(
        encoder_depths=(3, 3, 3, 12, 3),
        encoder_channels=(48, 96, 192, 384, 512),
        encoder_num_heads=(3, 6, 12, 24, 32),
    ),
)
def concerto_base(**hparams: Any) -> PointTransformerV3Encoder:
    return PointTransformerV3Encoder(**hparams)


@register_model(
    "concerto-large.pretrain.pointcept",
    task="pretraining",
    input_keys=("x", "pos_grid", "batch"),
    weights=WeightsDict(
        url="hf://Pointcept/Concerto/resolve/efc130718a564eba0ce4899318f3c20b19d9c752/concerto_large.pth",
        pretrained_filter_fn=encoder_checkpoint_filter_fn,
        author="pointcept",
        license="CC-BY-NC-4.0",
    ),
    transform=_CONCERTO_TRANSFORMS,
    hparams=pretrained_encoder_hparams(
        encoder_depths=(3, 3, 3, 12, 3),
        encoder_channels=(64, 128, 256, 512, 768),
        encoder_num_heads=(4, 8, 16, 32, 48),
    ),
)
def concerto_large(**hparams: Any) -> PointTransformerV3Encoder:
    return PointTransformerV3Encoder(**hparams)


@register_model(
    "concerto-base-origin.pretrain.pointcept",
    task="pretraining",
    input_keys=("x", "pos_grid", "batch"),
    weights=WeightsDict(
        url="hf://Pointcept/Concerto/resolve/efc130718a564eba0ce4899318f3c20b19d9c752/concerto_base_origin.pth",
        pretrained_filter_fn=encoder_checkpoint_filter_fn,
        author="pointcept",
        license="CC-BY-NC-4.0",
    ),
    transform=_CONCERTO_TRANSFORMS,
    hparams=pretrained_encoder_hparams(
        encoder_depths=(3, 3, 3, 12, 3),
        encoder_channels=(48, 96, 192, 384, 512),
        encoder_num_heads=(3, 6, 12, 24, 32),
    ),
)
def concerto_base_origin(**hparams: Any) -> PointTransformerV3Encoder:
    return PointTransformerV3Encoder(**hparams)


@register_model(
    "concerto-large-origin.pretrain.pointcept",
    task="pretraining",
    input_keys=("x", "pos_grid", "batch"),
    weights=WeightsDict(
        url="hf://Pointcept/Concerto/resolve/efc130718a564eba0ce4899318f3c20b19d9c752/concerto_large_origin.pth",
        pretrained_filter_fn=encoder_checkpoint_filter_fn,
        author="pointcept",
        license="CC-BY-NC-4.0",
    ),
    transform=_CONCERTO_TRANSFORMS,
    hparams=pretrained_encoder_hparams(
        encoder_depths=(3, 3, 3, 12, 3),
        encoder_channels=(64, 128, 256, 512, 768),
        encoder_num_heads=(4, 8, 16, 32, 48),
    ),
)
def concerto_large_origin(**hparams: Any) -> PointTransformerV3Encoder:
    return PointTransformerV3Encoder(**hparams)


@register_model(
    "concerto-base-siglip.pretrain.pointcept",
    task="pretraining",
    input_keys=("x", "pos_grid", "batch"),
    weights=WeightsDict(
        url="hf://Pointcept/Concerto/resolve/efc130718a564eba0ce4899318f3c20b19d9c752/concerto_base_siglip.pth",
        pretrained_filter_fn=encoder_checkpoint_filter_fn,
        author="pointcept",
        license="CC-BY-NC-4.0",
    ),
    transform=_CONCERTO_TRANSFORMS,
    hparams=pretrained_encoder_hparams(
        encoder_depths=(3, 3, 3, 12, 3),
        encoder_channels=(48, 96, 192, 384, 512),
        encoder_num_heads=(3, 6, 12, 24, 32),
    ),
)
def concerto_base_siglip(**hparams: Any) -> PointTransformerV3Encoder:
    return PointTransformerV3Encoder(**hparams)


@register_model(
    "concerto-large-lp.scannet20.pointcept",
    task="semantic-segmentation",
    input_keys=("x", "pos_grid", "batch"),
    weights=WeightsDict(
        url=(
            "hf://Pointcept/Concerto/resolve/efc130718a564eba0ce4899318f3c20b19d9c752/concerto_large.pth",
            "hf://Pointcept/Concerto/resolve/efc130718a564eba0ce4899318f3c20b19d9c752/concerto_large_linear_prob_head_sc.pth",
        ),
        pretrained_filter_fn=encoder_checkpoint_filter_fn,
        dataset="scannet20",
        metrics={"mIoU": 78.59, "OA": 92.29},
        classes=SCANNET20_CLASSES,
        author="pointcept",
        license="CC-BY-NC-4.0",
    ),
    transform=_CONCERTO_SEG_TRANSFORMS,
    hparams=dict(
        num_classes=20,
        **pretrained_encoder_hparams(
            encoder_depths=(3, 3, 3, 12, 3),
            encoder_channels=(64, 128, 256, 512, 768),
            encoder_num_heads=(4, 8, 16, 32, 48),
        ),
    ),
)
def concerto_large_lp_scannet20(**hparams: Any) -> ConcertoSegmentation:
    return ConcertoSegmentation(**hparams)
