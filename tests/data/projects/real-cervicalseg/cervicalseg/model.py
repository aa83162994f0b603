from __future__ import annotations

from typing import Any, Sequence

import torch
import torch.nn.functional as F
from torch import nn
from transformers import AutoConfig, AutoModel


def _haar_filters(channels: int) -> torch.Tensor:
    filters = torch.tensor(
        [
            [[0.5, 0.5], [0.5, 0.5]],
            [[0.5, 0.5], [-0.5, -0.5]],
            [[0.5, -0.5], [0.5, -0.5]],
            [[0.5, -0.5], [-0.5, 0.5]],
        ],
        dtype=torch.float32,
    )
    return filters[:, None].repeat(channels, 1, 1, 1)


def _wavelet_transform(x: torch.Tensor, filters: torch.Tensor) -> torch.Tensor:
    batch, channels, height, width = x.shape
    x = F.conv2d(x, filters, stride=2, groups=channels)
    return x.reshape(batch, channels, 4, height // 2, width // 2)


def _inverse_wavelet_transform(x: torch.Tensor, filters: torch.Tensor) -> torch.Tensor:
    batch, channels, _, height, width = x.shape
    x = x.reshape(batch, channels * 4, height, width)
    return F.conv_transpose2d(x, filters, stride=2, groups=channels)


class _Scale(nn.Module):
    def __init__(self, shape: Sequence[int], value: float = 1.0) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.full(tuple(shape), value))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.weight * x


class WTConv2d(nn.Module):
    def __init__(self, channels: int, *, kernel_size: int = 5, levels: int = 2) -> None:
        super().__init__()
        self.wt_levels = levels
        filters = _haar_filters(channels)
        self.register_buffer("wt_filter", filters.clone())
        self.register_buffer("iwt_filter", filters.clone())
        self.base_conv = nn.Conv2d(
            channels,
            channels,
            kernel_size,
            padding="same",
            groups=channels,
        )
        self.base_scale = _Scale((1, channels, 1, 1))
        self.wavelet_convs = nn.ModuleList(
            nn.Conv2d(
                channels * 4,
                channels * 4,
                kernel_size,
                padding="same",
                groups=channels * 4,
                bias=False,
            )
            for _ in range(levels)
        )
        self.wavelet_scale = nn.ModuleList(
            _Scale((1, channels * 4, 1, 1), value=0.1) for _ in range(levels)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        low_frequency = x
        low_levels: list[torch.Tensor] = []
        high_levels: list[torch.Tensor] = []
        shapes: list[torch.Size] = []

        for index in range(self.wt_levels):
            shape = low_frequency.shape
            shapes.append(shape)
            if shape[-2] % 2 or shape[-1] % 2:
                low_frequency = F.pad(
                    low_frequency,
                    (0, shape[-1] % 2, 0, shape[-2] % 2),
                )
            transformed = _wavelet_transform(low_frequency, self.wt_filter)
            low_frequency = transformed[:, :, 0]
            transformed_shape = transformed.shape
            filtered = transformed.reshape(
                transformed_shape[0],
                transformed_shape[1] * 4,
                transformed_shape[3],
                transformed_shape[4],
            )
            filtered = self.wavelet_scale[index](self.wavelet_convs[index](filtered))
            filtered = filtered.reshape(transformed_shape)
            low_levels.append(filtered[:, :, 0])
            high_levels.append(filtered[:, :, 1:4])

        reconstructed: torch.Tensor | int = 0
        for index in range(self.wt_levels - 1, -1, -1):
            low_frequency = low_levels[index] + reconstructed
            transformed = torch.cat((low_frequency.unsqueeze(2), high_levels[index]), dim=2)
            reconstructed = _inverse_wavelet_transform(transformed, self.iwt_filter)
            reconstructed = reconstructed[:, :, : shapes[index][-2], : shapes[index][-1]]

        return self.base_scale(self.base_conv(x)) + reconstructed


class ResidualConvUnit(nn.Module):
    def __init__(self, features: int) -> None:
        super().__init__()
        self.activation = nn.ReLU(False)
        self.conv1 = nn.Conv2d(features, features, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(features, features, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        residual = self.conv1(self.activation(x))
        residual = self.conv2(self.activation(residual))
        return x + residual


class FeatureFusionBlock(nn.Module):
    def __init__(self, features: int) -> None:
        super().__init__()
        self.out_conv = nn.Conv2d(features, features, kernel_size=1)
        self.resConfUnit1 = ResidualConvUnit(features)
        self.resConfUnit2 = ResidualConvUnit(features)

    def forward(self, *xs: torch.Tensor, size: tuple[int, int] | None = None) -> torch.Tensor:
        output = xs[0]
        if len(xs) == 2:
            output = output + self.resConfUnit1(xs[1])
        output = self.resConfUnit2(output)
        resize = {"scale_factor": 2.0} if size is None else {"size": size}
        output = F.interpolate(output, **resize, mode="bilinear", align_corners=True)
        return self.out_conv(output)


class WTResidualConvUnit(nn.Module):
    def __init__(self, features: int, *, kernel_size: int, levels: int) -> None:
        super().__init__()
        self.activation = nn.ReLU(False)
        self.wtconv1 = WTConv2d(features, kernel_size=kernel_size, levels=levels)
        self.channel_mix1 = nn.Conv2d(features, features, kernel_size=1)
        self.wtconv2 = WTConv2d(features, kernel_size=kernel_size, levels=levels)
        self.channel_mix2 = nn.Conv2d(features, features, kernel_size=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        residual = self.channel_mix1(self.wtconv1(self.activation(x)))
        residual = self.channel_mix2(self.wtconv2(self.activation(residual)))
        return x + residual


class WTFeatureFusionBlock(nn.Module):
    def __init__(self, features: int, *, kernel_size: int, levels: int) -> None:
        super().__init__()
        self.res_conf_unit1 = WTResidualConvUnit(
            features,
            kernel_size=kernel_size,
            levels=levels,
        )
        self.res_conf_unit2 = WTResidualConvUnit(
            features,
            kernel_size=kernel_size,
            levels=levels,
        )
        self.out_conv = nn.Conv2d(features, features, kernel_size=1)

    def forward(self, *xs: torch.Tensor, size: tuple[int, int] | None = None) -> torch.Tensor:
        output = xs[0]
        if len(xs) == 2:
            output = output + self.res_conf_unit1(xs[1])
        output = self.res_conf_unit2(output)
        resize = {"scale_factor": 2.0} if size is None else {"size": size}
        output = F.interpolate(output, **resize, mode="bilinear", align_corners=True)
        return self.out_conv(output)


class DPTHead(nn.Module):
    def __init__(
        self,
        *,
        num_classes: int,
        in_channels: int,
        features: int,
        out_channels: Sequence[int],
        wt_kernel_size: int,
        wt_levels: int,
    ) -> None:
        super().__init__()
        self.projects = nn.ModuleList(
            nn.Conv2d(in_channels, channel, kernel_size=1) for channel in out_channels
        )
        self.resize_layers = nn.ModuleList(
            (
                nn.ConvTranspose2d(out_channels[0], out_channels[0], kernel_size=4, stride=4),
                nn.ConvTranspose2d(out_channels[1], out_channels[1], kernel_size=2, stride=2),
                nn.Identity(),
                nn.Conv2d(out_channels[3], out_channels[3], kernel_size=3, stride=2, padding=1),
            )
        )

        self.scratch = nn.Module()
        self.scratch.layer1_rn = nn.Conv2d(out_channels[0], features, 3, padding=1, bias=False)
        self.scratch.layer2_rn = nn.Conv2d(out_channels[1], features, 3, padding=1, bias=False)
        self.scratch.layer3_rn = nn.Conv2d(out_channels[2], features, 3, padding=1, bias=False)
        self.scratch.layer4_rn = nn.Conv2d(out_channels[3], features, 3, padding=1, bias=False)
        self.scratch.refinenet1 = WTFeatureFusionBlock(
            features,
            kernel_size=wt_kernel_size,
            levels=wt_levels,
        )
        self.scratch.refinenet2 = WTFeatureFusionBlock(
            features,
            kernel_size=wt_kernel_size,
            levels=wt_levels,
        )
        self.scratch.refinenet3 = FeatureFusionBlock(features)
        self.scratch.refinenet4 = FeatureFusionBlock(features)
        self.scratch.output_conv = nn.Sequential(
            nn.Conv2d(features, features, kernel_size=3, padding=1),
            nn.ReLU(True),
            nn.Conv2d(features, num_classes, kernel_size=1),
        )

    def forward(
        self,
        features: Sequence[torch.Tensor],
        patch_height: int,
        patch_width: int,
    ) -> torch.Tensor:
        layers: list[torch.Tensor] = []
        for index, feature in enumerate(features):
            feature = feature.permute(0, 2, 1).reshape(
                feature.shape[0],
                feature.shape[-1],
                patch_height,
                patch_width,
            )
            layers.append(self.resize_layers[index](self.projects[index](feature)))

        layer1, layer2, layer3, layer4 = layers
        layer1 = self.scratch.layer1_rn(layer1)
        layer2 = self.scratch.layer2_rn(layer2)
        layer3 = self.scratch.layer3_rn(layer3)
        layer4 = self.scratch.layer4_rn(layer4)
        path4 = self.scratch.refinenet4(layer4, size=layer3.shape[2:])
        path3 = self.scratch.refinenet3(path4, layer3, size=layer2.shape[2:])
        path2 = self.scratch.refinenet2(path3, layer2, size=layer1.shape[2:])
        path1 = self.scratch.refinenet1(path2, layer1)
        return self.scratch.output_conv(path1)


class CervicalSegModel(nn.Module):
    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__()
        backbone_values = dict(config["backbone"])
        model_type = backbone_values.pop("model_type")
        backbone_config = AutoConfig.for_model(model_type, **backbone_values)
        self.backbone = AutoModel.from_config(backbone_config)
        self.patch_size = int(backbone_config.patch_size)
        self.num_prefix_tokens = 1 + int(backbone_config.num_register_tokens)
        self.hidden_state_indices = tuple(map(int, config["hidden_state_indices"]))
        self.head = DPTHead(
            num_classes=len(config["class_names"]),
            in_channels=int(backbone_config.hidden_size),
            features=int(config["dpt_features"]),
            out_channels=tuple(map(int, config["dpt_channels"])),
            wt_kernel_size=int(config["wt_kernel_size"]),
            wt_levels=int(config["wt_levels"]),
        )

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        height, width = images.shape[-2:]
        if height % self.patch_size or width % self.patch_size:
            raise ValueError(
                f"Input size {(height, width)} must be divisible by patch size {self.patch_size}"
            )
        patch_height = height // self.patch_size
        patch_width = width // self.patch_size
        outputs = self.backbone(
            pixel_values=images,
            output_hidden_states=True,
            return_dict=True,
        )
        expected_patches = patch_height * patch_width
        features: list[torch.Tensor] = []
        for index in self.hidden_state_indices:
            patches = outputs.hidden_states[index][:, self.num_prefix_tokens :, :]
            if patches.shape[1] != expected_patches:
                raise RuntimeError(
                    f"Unexpected token count at hidden state {index}: "
                    f"got {patches.shape[1]}, expected {expected_patches}"
                )
            features.append(patches)
        logits = self.head(features, patch_height, patch_width)
        return F.interpolate(logits, (height, width), mode="bilinear", align_corners=False)
