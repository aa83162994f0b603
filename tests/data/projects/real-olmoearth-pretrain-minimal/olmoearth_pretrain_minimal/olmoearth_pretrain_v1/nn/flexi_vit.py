"""Model code for the OlmoEarth Pretrain model."""

import logging
import math
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

import torch
from einops import rearrange, reduce, repeat
from torch import Tensor, nn
from torch.distributed.fsdp import fully_shard

from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.nn.attention import Block
from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.nn.encodings import (
    PositionEncoding,
    axial_3d_dim_split,
    get_1d_sincos_pos_encoding,
    get_2d_sincos_pos_encoding_with_resolution,
    get_month_encoding_table,
    resolve_position_encoding,
    timestamps_to_days,
)
from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.nn.flexi_patch_embed import (
    FlexiPatchEmbed,
    FlexiPatchReconstruction,
)
from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.nn.tokenization import (
    TokenizationConfig,
)
from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.nn.utils import (
    get_cumulative_sequence_lengths,
)
from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.utils.config import Config
from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.utils.constants import (
    BASE_GSD,
    Modality,
    ModalitySpec,
    get_modality_specs_from_names,
)
from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.utils.datatypes import (
    MaskedOlmoEarthSample,
    MaskValue,
)

if TYPE_CHECKING:
    from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.nn.searchlight import (
        SearchlightSettings,
    )

logger = logging.getLogger(__name__)


def get_modalities_to_process(
    available_modalities: list[str], supported_modality_names: list[str]
) -> list[str]:
    """Get the modalities to process."""
    modalities_to_process = set(supported_modality_names).intersection(
        set(available_modalities)
    )
    return list(modalities_to_process)


def return_modalities_from_dict(
    per_modality_input_tokens: dict[str, Tensor],
) -> list[str]:
    """Return the modalities from a dictionary of per modality input tokens."""
    return [
        key for key in per_modality_input_tokens.keys() if not key.endswith("_mask")
    ]


class PoolingType(StrEnum):
    """Strategy for pooling the tokens."""

    MAX = "max"
    MEAN = "mean"


class TokensAndMasks(NamedTuple):
    """Output to compute the loss on.

    Args:
        sentinel2: sentinel 2 data of shape (B, P_H, P_W, T, Band_Sets, D)
        sentinel2_mask: sentinel 2 mask indicating which tokens are masked/unmasked (B, P_H, P_W, T, Band_Sets)
        sentinel1: sentinel 1 data of shape (B, P_H, P_W, T, Band_Sets, D)
        sentinel1_mask: sentinel 1 mask indicating which tokens are masked/unmasked (B, P_H, P_W, T, Band_Sets)
        worldcover: worldcover data of shape (B, P_H, P_W, T, Band_Sets, D)
        worldcover_mask: worldcover mask indicating which tokens are masked/unmasked (B, P_H, P_W, T, Band_Sets)
        latlon: lat lon data containing geographical coordinates
        latlon_mask: lat lon mask indicating which coordinates are masked/unmasked
        openstreetmap_raster: openstreetmap raster data of shape (B, P_H, P_W, T, Band_Sets, D)
        openstreetmap_raster_mask: openstreetmap raster mask indicating which tokens are masked/unmasked (B, P_H, P_W, T, Band_Sets)
    """

    sentinel2_l2a: Tensor | None = None
    sentinel2_l2a_mask: Tensor | None = None
    sentinel1: Tensor | None = None
    sentinel1_mask: Tensor | None = None
    worldcover: Tensor | None = None
    worldcover_mask: Tensor | None = None
    latlon: Tensor | None = None
    latlon_mask: Tensor | None = None
    openstreetmap_raster: Tensor | None = None
    openstreetmap_raster_mask: Tensor | None = None
    srtm: Tensor | None = None
    srtm_mask: Tensor | None = None
    landsat: Tensor | None = None
    landsat_mask: Tensor | None = None
    naip: Tensor | None = None
    naip_mask: Tensor | None = None
    naip_10: Tensor | None = None
    naip_10_mask: Tensor | None = None
    gse: Tensor | None = None
    gse_mask: Tensor | None = None
    cdl: Tensor | None = None
    cdl_mask: Tensor | None = None
    worldpop: Tensor | None = None
    worldpop_mask: Tensor | None = None
    worldcereal: Tensor | None = None
    worldcereal_mask: Tensor | None = None
    wri_canopy_height_map: Tensor | None = None
    wri_canopy_height_map_mask: Tensor | None = None
    era5_10: Tensor | None = None
    era5_10_mask: Tensor | None = None

    @property
    def device(self) -> torch.device:
        """Get the device of the tokens and masks."""
        if self.sentinel2_l2a is not None:
            return self.sentinel2_l2a.device
        else:
            # look for any other modality that is not None
            for modality in self._fields:
                if getattr(self, modality) is not None:
                    return getattr(self, modality).device
            raise ValueError("No data to get device from")

    # TODO: It seems like we want a lot of our named tuples to have this functionality so we should probably create a utility base class for the named tuples and double subclass
    @classmethod
    def get_masked_modality_name(cls, modality: str) -> str:
        """Get the masked modality name."""
        return f"{modality}_mask"

    def as_dict(self, return_none: bool = True) -> dict[str, Any]:
        """Convert the namedtuple to a dictionary.

        Returns:
            Dictionary representation of the namedtuple.
        """
        return_dict = {}
        for field in self._fields:
            val = getattr(self, field)
            if return_none:
                return_dict[field] = val
            else:
                if val is not None:
                    return_dict[field] = val
        return return_dict

    @property
    def modalities(self) -> list[str]:
        """Return all data fields."""
        return [
            x
            for x in self._fields
            if not x.endswith("mask") and getattr(self, x) is not None
        ]

    def get_shape_dict(self) -> dict[str, tuple]:
        """Return a dictionary of the shapes of the fields."""
        return {x: getattr(self, x).shape for x in self._fields}

    @staticmethod
    def _flatten(x: Tensor) -> Tensor:
        return rearrange(x, "b ... d -> b (...) d")

    def flatten_tokens_and_masks(
        self, return_lists: bool = False
    ) -> tuple[Tensor, Tensor]:
        """Return the flattened tokens and masks.

        Args:
            return_lists: If True, return the original lists before concatenation.
                          If False, return concatenated tensors.

        Tokens will have shape [B, T, D] and masks will have shape [B, T]
        """
        flattened_x, flattened_masks = [], []
        for attr_name in self.modalities:
            mask_attr_name = self.get_masked_modality_name(attr_name)
            attr = getattr(self, attr_name)
            masked_attr = getattr(self, mask_attr_name)
            if attr is not None:
                if masked_attr is None:
                    raise ValueError(
                        f"Can't have present {attr_name} but None {mask_attr_name}"
                    )
                masked_attr = masked_attr.unsqueeze(dim=-1)
                flattened_x.append(self._flatten(attr))
                flattened_masks.append(self._flatten(masked_attr))

        if return_lists:
            # Remove the extra dimension from the masks
            flattened_masks = [mask[:, :, 0] for mask in flattened_masks]
            return flattened_x, flattened_masks

        x = torch.cat(flattened_x, dim=1)
        masks = torch.cat(flattened_masks, dim=1)[:, :, 0]
        return x, masks

    def pool_spatially_and_concat_modalities(self) -> Tensor:
        """Pool the modalities  across time to get spatial features and concatenate the features."""
        spatial_stacked_features = []
        for attr_name in self.modalities:
            if Modality.get(attr_name).is_spatial:
                mask_attr_name = self.get_masked_modality_name(attr_name)
                masked_attr = getattr(self, mask_attr_name)
                if masked_attr is None:
                    continue
                if (masked_attr == MaskValue.ONLINE_ENCODER.value).all():
                    attr = getattr(self, attr_name)
                    # only mean in temporal dimension
                    pooled_attr = torch.mean(attr, dim=(-3))
                    spatial_stacked_features.append(pooled_attr)
        if len(spatial_stacked_features) == 0:
            raise ValueError("Missing unmasked spatial modalities for spatial pooling.")
        # Concatenate along the band sets dimension instead of stacking
        spatial_stacked_features = torch.cat(spatial_stacked_features, dim=-2)
        return spatial_stacked_features

    def pool_spatially(self, pooling_type: PoolingType) -> Tensor:
        """Pool the modalities across time to get spatial features."""
        spatial_average = []
        for attr_name in self.modalities:
            if Modality.get(attr_name).is_spatial:
                mask_attr_name = self.get_masked_modality_name(attr_name)
                masked_attr = getattr(self, mask_attr_name)
                if masked_attr is None:
                    continue
                if (masked_attr == MaskValue.ONLINE_ENCODER.value).all():
                    attr = getattr(self, attr_name)
                    # pool across time and bandset dimensions
                    if pooling_type == PoolingType.MEAN:
                        spatial_average.append(torch.mean(attr, dim=(-2, -3)))
                    else:
                        spatial_average.append(
                            torch.max(torch.max(attr, dim=-2).values, dim=-2).values
                        )
        if len(spatial_average) == 0:
            raise ValueError("Missing unmasked spatial modalities for spatial pooling.")
        spatial_average_t = torch.stack(spatial_average, dim=-1)
        if pooling_type == PoolingType.MEAN:
            return spatial_average_t.mean(dim=-1)
        else:
            return spatial_average_t.max(dim=-1).values

    def pool_instance_wise(self, pooling_type: PoolingType) -> Tensor:
        """Pool all the tokens in the instance."""
        x, mask = self.flatten_tokens_and_masks()
        # 1s for online encoder, 0s elsewhere
        mask = (mask == MaskValue.ONLINE_ENCODER.value).long()
        x_for_pooling = x * mask.unsqueeze(-1)
        if pooling_type == PoolingType.MAX:
            x_for_pooling = x_for_pooling.masked_fill(
                ~mask.bool().unsqueeze(-1), -float("inf")
            )
            return x_for_pooling.max(dim=1).values
        elif pooling_type == PoolingType.MEAN:
            num_encoded_tokens = torch.sum(mask, -1, keepdim=True)
            logger.debug(f"num_encoded_tokens: {num_encoded_tokens}")
            if (num_encoded_tokens == 0).any():
                raise ValueError(
                    f"num_encoded_tokens is 0 for some samples {num_encoded_tokens}"
                )
            return x_for_pooling.sum(dim=1) / num_encoded_tokens
        else:
            raise ValueError(f"Invalid pooling type: {pooling_type}")

    def pool_unmasked_tokens(
        self,
        pooling_type: PoolingType = PoolingType.MAX,
        spatial_pooling: bool = False,
        concat_features: bool = False,
    ) -> Tensor:
        """Pool the unmasked tokens.

        Args:
            pooling_type: Pooling type for the tokens
            spatial_pooling: Whether to keep the spatial dimensions when pooling. If true,
                this expects the masks within a spatial modality to be consistent (e.g. all
                s2 tokens would have the same mask.)
            concat_features: Whether to concatenate the features instead of averaging them, only enabled for spatial pooling as of now,
            requires no masked out tokens
        """
        if concat_features and spatial_pooling:
            return self.pool_spatially_and_concat_modalities()
        if concat_features:
            raise ValueError("concat_features is not supported for non-spatial pooling")
        if not spatial_pooling:
            return self.pool_instance_wise(pooling_type)
        else:
            return self.pool_spatially(pooling_type)


def validate_position_encoding(
    position_encoding: str,
    head_dim: int,
    temporal_rope_dim_frac: float,
) -> None:
    """Validate a position encoding mode for a given attention head size."""
    if position_encoding not in PositionEncoding.values():
        raise ValueError(
            f"position_encoding must be one of {PositionEncoding.values()}, "
            f"got {position_encoding}"
        )
    if PositionEncoding.is_2d_rope(position_encoding) and head_dim % 4 != 0:
        raise ValueError(
            f"2D RoPE / RoPE-Mixed require head_dim divisible by 4, got {head_dim}"
        )
    if position_encoding == PositionEncoding.AXIAL_3D_ROPE:
        # Validates that head_dim splits cleanly into (d_t, d_x, d_y).
        axial_3d_dim_split(head_dim, temporal_rope_dim_frac)
    if position_encoding == PositionEncoding.MIXED_3D_ROPE and head_dim % 4 != 0:
        raise ValueError(
            f"3D RoPE-Mixed requires head_dim divisible by 4, got {head_dim}"
        )


class ProjectAndAggregate(nn.Module):
    """Module that applies a linear projection to tokens and masks."""

    def __init__(
        self,
        embedding_size: int,
        num_layers: int,
        aggregate_then_project: bool = True,
    ):
        """Initialize the linear module.

        embedding_size: The embedding size of the input TokensAndMasks
        num_layers: The number of layers to use in the projection. If >1, then
            a ReLU activation will be applied between layers
        aggregate_then_project: If True, then we will average the tokens before applying
            the projection. If False, we will apply the projection first.
        """
        super().__init__()
        projections = [nn.Linear(embedding_size, embedding_size)]
        for _ in range(1, num_layers):
            projections.append(nn.ReLU())
            projections.append(nn.Linear(embedding_size, embedding_size))
        self.projection = nn.Sequential(*projections)
        self.aggregate_then_project = aggregate_then_project

    def apply_aggregate_then_project(
        self, x: TokensAndMasks | torch.Tensor
    ) -> torch.Tensor:
        """Apply the aggregate operation to the input."""
        if isinstance(x, TokensAndMasks):
            pooled_for_contrastive = x.pool_unmasked_tokens(
                PoolingType.MEAN, spatial_pooling=False
            )
        elif isinstance(x, torch.Tensor):
            pooled_for_contrastive = reduce(x, "b ... d -> b  d", "mean")
        else:
            raise ValueError(f"Invalid input type: {type(x)}")
        return self.projection(pooled_for_contrastive)

    def apply_project_then_aggregate(
        self, x: TokensAndMasks | torch.Tensor
    ) -> torch.Tensor:
        """Apply the project operation to the input then aggregate."""
        if isinstance(x, TokensAndMasks):
            decoder_emedded_dict = x._asdict()
            for modality in x.modalities:
                x_modality = getattr(x, modality)
                # Are these normalizations masked correctly?
                x_modality = self.projection(x_modality)
                masked_modality_name = x.get_masked_modality_name(modality)
                decoder_emedded_dict[modality] = x_modality
                decoder_emedded_dict[masked_modality_name] = getattr(
                    x, masked_modality_name
                )
            x_projected = TokensAndMasks(**decoder_emedded_dict)
            projected_pooled = x_projected.pool_unmasked_tokens(
                PoolingType.MEAN, spatial_pooling=False
            )
        elif isinstance(x, torch.Tensor):
            x_projected = self.projection(x)
            projected_pooled = reduce(x_projected, "b ... d -> b  d", "mean")
        else:
            raise ValueError(f"Invalid input type: {type(x)}")
        return projected_pooled

    def forward(self, x: TokensAndMasks | torch.Tensor) -> torch.Tensor:
        """Apply a (non)linear projection to an input TokensAndMasks.

        This can be applied either before or after pooling the tokens.
        """
        return (
            self.apply_aggregate_then_project(x)
            if self.aggregate_then_project
            else self.apply_project_then_aggregate(x)
        )


class MultiModalPatchEmbeddings(nn.Module):
    """Module that patchifies and encodes the input data for multiple modalities."""

    def __init__(
        self,
        supported_modality_names: list[str],
        max_patch_size: int,
        embedding_size: int,
        tokenization_config: TokenizationConfig | None = None,
        use_linear_patch_embed: bool = True,
        band_dropout_rate: float = 0.0,
        random_band_dropout: bool = False,
        band_dropout_modalities: list[str] | None = None,
        patch_embed_hidden_sizes: list[int] | None = None,
        post_proj_hidden_sizes: list[int] | None = None,
    ):
        """Initialize the patch embeddings.

        Args:
            supported_modality_names: Which modalities from Modality this model
                instantiation supports
            max_patch_size: Maximum size of patches
            embedding_size: Size of embeddings
            tokenization_config: Optional config for custom band groupings
            use_linear_patch_embed: Passed through to FlexiPatchEmbed. Set False to load
                checkpoints trained before this flag existed (which used Conv2d).
            band_dropout_rate: Probability of dropping each band channel during training.
                When > 0, randomly zeroes out bands before the patch embedding Conv2d,
                forcing the model to learn cross-spectral representations. Only active
                during training (self.training=True). Default: 0.0 (no dropout).
            random_band_dropout: If True, sample the dropout rate per forward call from
                Uniform(0, band_dropout_rate). This reduces train-inference mismatch
                and acts as stronger augmentation. Default: False (fixed rate).
            band_dropout_modalities: If provided, only apply band dropout to these
                modalities. If None, apply to all modalities. Default: None.
            patch_embed_hidden_sizes: Optional per-pixel MLP applied before patchification.
                See FlexiPatchEmbed for details.
            post_proj_hidden_sizes: Optional MLP applied after the patch projection.
                See FlexiPatchEmbed for details.
        """
        super().__init__()
        self.max_patch_size = max_patch_size
        self.embedding_size = embedding_size
        self.supported_modality_names = supported_modality_names
        self.tokenization_config = tokenization_config or TokenizationConfig()
        self.use_linear_patch_embed = use_linear_patch_embed
        self.band_dropout_rate = band_dropout_rate
        self.random_band_dropout = random_band_dropout
        self.band_dropout_modalities = band_dropout_modalities
        self.patch_embed_hidden_sizes = patch_embed_hidden_sizes
        self.post_proj_hidden_sizes = post_proj_hidden_sizes
        # TODO: want to be able to remove certain bands and modalities
        self.per_modality_embeddings = nn.ModuleDict({})

        for modality in self.supported_modality_names:
            self.per_modality_embeddings[modality] = (
                self._get_patch_embedding_module_for_modality(modality)
            )

        # For every patch embedding module we want to create a unique buffer
        # for selecting the correct band indices from the data tensor
        for modality in self.supported_modality_names:
            for idx, bandset_indices in enumerate(
                self.tokenization_config.get_bandset_indices(modality)
            ):
                buffer_name = self._get_buffer_name(modality, idx)
                banset_indices_tensor = torch.tensor(bandset_indices, dtype=torch.long)
                self.register_buffer(
                    buffer_name, banset_indices_tensor, persistent=False
                )

        # Create a dictionary of per modality index tensors to do  index select with registered buffer

    @staticmethod
    def _get_buffer_name(modality: str, idx: int) -> str:
        """Get the buffer name."""
        return f"{modality}__{idx}_buffer"

    @staticmethod
    def _get_embedding_module_name(modality: str, idx: int) -> str:
        """Get the embedding module name.

        Module Dicts require string keys
        """
        return f"{modality}__{idx}"

    def _get_patch_embedding_module_for_modality(self, modality: str) -> nn.Module:
        """Get the patch embedding module for a modality."""
        modality_spec = Modality.get(modality)
        # Get bandset indices from tokenization config (may be overridden)
        bandset_indices = self.tokenization_config.get_bandset_indices(modality)

        # Based on the modality name we choose the way to embed the data
        # I likely will need to know about what the embedding strategy is in the forward as well
        # Static modality
        if not modality_spec.is_spatial:
            # static in space
            return nn.ModuleDict(
                {
                    self._get_embedding_module_name(modality, idx): nn.Linear(
                        len(channel_set_idxs), self.embedding_size
                    )
                    for idx, channel_set_idxs in enumerate(bandset_indices)
                }
            )
        else:
            return nn.ModuleDict(
                {
                    self._get_embedding_module_name(modality, idx): FlexiPatchEmbed(
                        in_chans=len(channel_set_idxs),
                        embedding_size=self.embedding_size,
                        base_patch_size_at_16=self.max_patch_size,
                        modality_spec=modality_spec,
                        use_linear_patch_embed=self.use_linear_patch_embed,
                        patch_embed_hidden_sizes=self.patch_embed_hidden_sizes,
                        post_proj_hidden_sizes=self.post_proj_hidden_sizes,
                    )
                    for idx, channel_set_idxs in enumerate(bandset_indices)
                }
            )

    def apply_embedding_to_modality(
        self,
        modality: str,
        input_data: MaskedOlmoEarthSample,
        patch_size: int,
    ) -> tuple[Tensor, Tensor]:
        """Apply embedding to a modality."""
        logger.debug(f"applying embedding to modality:{modality}")
        masked_modality_name = input_data.get_masked_modality_name(modality)
        modality_mask = getattr(input_data, masked_modality_name)
        modality_data = getattr(input_data, modality)

        modality_spec = Modality.get(modality)
        num_band_sets = self.tokenization_config.get_num_bandsets(modality)

        modality_tokens, modality_masks = [], []
        for idx in range(num_band_sets):
            modality_specific_kwargs = {}
            if not modality_spec.is_spatial:
                # static in time
                token_mask = modality_mask[..., idx]
            else:
                token_mask = modality_mask[
                    :,
                    0 :: patch_size * modality_spec.image_tile_size_factor,
                    0 :: patch_size * modality_spec.image_tile_size_factor,
                    ...,
                    idx,
                ]
                modality_specific_kwargs = {"patch_size": patch_size}

            buffer_name = self._get_buffer_name(modality, idx)
            inp_data = torch.index_select(modality_data, -1, getattr(self, buffer_name))

            # Check if we should apply band dropout for this bandset
            apply_dropout = (
                self.band_dropout_modalities is None
                or modality in self.band_dropout_modalities
            )
            if self.training and apply_dropout and self.band_dropout_rate > 0.0:
                num_bands = inp_data.shape[-1]
                # Only apply band dropout if there are more than 1 band
                if num_bands > 1:
                    if self.random_band_dropout:
                        rate = (
                            torch.rand(1, device=inp_data.device).item()
                            * self.band_dropout_rate
                        )
                    else:
                        rate = self.band_dropout_rate
                    inp_data = self._apply_band_dropout(inp_data, rate)

            embedding_module = self.per_modality_embeddings[modality][
                self._get_embedding_module_name(modality, idx)
            ]
            patchified_data = embedding_module(inp_data, **modality_specific_kwargs)

            modality_tokens.append(patchified_data)
            modality_masks.append(token_mask)
        return torch.stack(modality_tokens, dim=-2), torch.stack(modality_masks, dim=-1)

    @staticmethod
    def _apply_band_dropout(patchified_data: Tensor, rate: float) -> Tensor:
        """Randomly zero out band channels to force cross-spectral learning.

        Args:
            patchified_data: Input tensor with bands in the last dimension.
            rate: Probability of dropping each band (per sample).

        Returns:
            Tensor with randomly zeroed bands, at least 1 band kept per sample.
        """
        num_bands = patchified_data.shape[-1]
        batch_size = patchified_data.shape[0]
        keep_mask = (
            torch.rand(batch_size, num_bands, device=patchified_data.device) >= rate
        )
        # If no bands are kept, randomly select one band to keep
        no_bands_kept = ~keep_mask.any(dim=1)
        if no_bands_kept.any():
            rand_idx = torch.randint(
                num_bands, (no_bands_kept.sum(),), device=keep_mask.device
            )
            keep_mask[no_bands_kept, rand_idx] = True
        # Broadcast: [B, 1, 1, ..., num_bands]
        view_shape = [batch_size] + [1] * (patchified_data.dim() - 2) + [num_bands]
        return patchified_data * keep_mask.view(*view_shape).to(patchified_data.dtype)

    @staticmethod
    def is_any_data_seen_by_encoder(modality_mask: Tensor) -> bool:
        """Check if any data is seen by the encoder."""
        return (MaskValue.ONLINE_ENCODER.value == modality_mask).any()

    def apply_compile(self) -> None:
        """Apply torch.compile to the model."""
        self.compile(dynamic=False, mode="max-autotune-no-cudagraphs", fullgraph=True)

    def forward(
        self,
        input_data: MaskedOlmoEarthSample,
        patch_size: int,
    ) -> dict[str, Tensor]:
        """Return flexibly patchified embeddings for each modality of the input data.

        Given a [B, H, W, (T), C] inputs, returns a [B, H, W, (T), b_s, D] output.

        We assume that the spatial masks are consistent for the given patch size,
        so that if patch_size == 2 then one possible mask would be
        [0, 0, 1, 1]
        [0, 0, 1, 1]
        [1, 1, 0, 0]
        [1, 1, 0, 0]
        for the H, W dimensions
        """
        output_dict = {}
        modalities_to_process = get_modalities_to_process(
            input_data.modalities, self.supported_modality_names
        )
        for modality in modalities_to_process:
            modality_tokens, modality_masks = self.apply_embedding_to_modality(
                modality, input_data, patch_size
            )
            output_dict[modality] = modality_tokens
            modality_mask_name = input_data.get_masked_modality_name(modality)
            output_dict[modality_mask_name] = modality_masks
        return output_dict


class Reconstructor(nn.Module):
    """Module that patchifies and encodes the input data."""

    def __init__(
        self,
        decoder: nn.Module,
        supported_modalities: list[ModalitySpec],
        max_patch_size: int,
        tokenization_config: TokenizationConfig | None = None,
    ):
        """Initialize the patch embeddings.

        Args:
            decoder: Predictor nn module to use on before reconstructor on input
            supported_modalities: Which modalities from Modality this model
                instantiation supports
            max_patch_size: Maximum size of patches
            tokenization_config: Optional config for custom band groupings
        """
        super().__init__()
        self.max_patch_size = max_patch_size
        self.embedding_size = decoder.output_embedding_size
        self.supported_modalities = supported_modalities
        self.tokenization_config = tokenization_config or TokenizationConfig()
        self.decoder = decoder
        # TODO: want to be able to remove certain bands and modalities
        self.per_modality_reconstructions = nn.ModuleDict({})
        for modality in self.supported_modalities:
            self.per_modality_reconstructions[modality.name] = (
                self._get_patch_reconstruction_module_for_modality(modality)
            )

    def apply_compile(self) -> None:
        """Apply torch.compile to the model."""
        self.decoder.apply_compile()

    def apply_fsdp(self, **fsdp_kwargs: Any) -> None:
        """Apply FSDP to the model."""
        self.decoder.apply_fsdp(**fsdp_kwargs)

    @staticmethod
    def _get_reconstruction_module_name(modality: str, idx: int) -> str:
        """Get the reconstruction module name.

        Module Dicts require string keys
        """
        return f"{modality}__{idx}"

    def _get_patch_reconstruction_module_for_modality(
        self, modality: ModalitySpec
    ) -> nn.Module:
        """Get the patch reconstruction module for a modality."""
        # Get bandset indices from tokenization config (may be overridden)
        bandset_indices = self.tokenization_config.get_bandset_indices(modality.name)

        # Based on the modality name we choose the way to embed the data
        # I likely will need to know about what the embedding strategy is in the forward as well
        # Static modality
        if modality.get_tile_resolution() == 0:
            # static in space
            return nn.ModuleDict(
                {
                    self._get_reconstruction_module_name(modality.name, idx): nn.Linear(
                        self.embedding_size, len(channel_set_idxs)
                    )
                    for idx, channel_set_idxs in enumerate(bandset_indices)
                }
            )
        else:
            return nn.ModuleDict(
                {
                    self._get_reconstruction_module_name(
                        modality.name, idx
                    ): FlexiPatchReconstruction(
                        out_chans=len(channel_set_idxs),
                        embedding_size=self.embedding_size,
                        max_patch_size=self.max_patch_size,
                    )
                    for idx, channel_set_idxs in enumerate(bandset_indices)
                }
            )

    # TODO: Likely we want a single object that stores all the data related configuration etc per modality including channel grous bands patch size etc
    def apply_reconstruction_to_modality(
        self, modality: str, input_data: TokensAndMasks, patch_size: int
    ) -> tuple[Tensor, Tensor]:
        """Apply reconstruction to a modality."""
        masked_modality_name = input_data.get_masked_modality_name(modality)
        modality_mask = getattr(input_data, masked_modality_name)
        modality_data = getattr(input_data, modality)

        modality_spec = Modality.get(modality)
        bandset_indices = self.tokenization_config.get_bandset_indices(modality)

        # x: Input tensor with shape [b, h, w, (t), b_s, d]
        modality_tokens, modality_masks = [], []
        for idx, channel_set_indices in enumerate(bandset_indices):
            data = modality_data[..., idx, :]
            masks = modality_mask[..., idx]
            r_model = self.per_modality_reconstructions[modality][
                self._get_reconstruction_module_name(modality, idx)
            ]
            if modality_spec.get_tile_resolution() == 0:
                data = r_model(data)
            else:
                data = r_model(data, patch_size=patch_size)
            modality_tokens.append(data)
            masks = repeat(
                masks,
                "b h w ... -> b (h p_h) (w p_w) ...",
                p_h=patch_size,
                p_w=patch_size,
            )
            modality_masks.append(masks)
        modality_mask = repeat(
            modality_mask,
            "b h w ... -> b (h p_h) (w p_w) ...",
            p_h=patch_size,
            p_w=patch_size,
        )
        return torch.cat(modality_tokens, dim=-1), modality_mask

    def forward(
        self,
        x: TokensAndMasks,
        timestamps: Tensor,
        patch_size: int,
        input_res: int = BASE_GSD,
    ) -> TokensAndMasks:
        """Return flexibly patchified reconstruction for each modality of the input data.

        Given a [B, H, W, (T), b_s, D] inputs, returns a [B, H, W, (T), C] output.
        """
        input_data = self.decoder(x, timestamps, patch_size, input_res)
        output_dict = {}
        modalities_to_process = get_modalities_to_process(
            input_data.modalities, [m.name for m in self.supported_modalities]
        )
        for modality in modalities_to_process:
            modality_tokens, modality_masks = self.apply_reconstruction_to_modality(
                modality, input_data, patch_size
            )
            output_dict[modality] = modality_tokens
            modality_mask_name = input_data.get_masked_modality_name(modality)
            output_dict[modality_mask_name] = modality_masks
        return TokensAndMasks(**output_dict)


@dataclass
class ReconstructorConfig(Config):
    """Configuration for the Reconstructor."""

    decoder_config: "Config"
    supported_modality_names: list[str]
    max_patch_size: int = 8
    tokenization_config: TokenizationConfig | None = None

    def validate(self) -> None:
        """Validate the configuration."""
        if len(self.supported_modalities) == 0:
            raise ValueError("At least one modality must be added!")
        else:
            for modality in self.supported_modalities:
                if modality not in Modality.values():
                    raise ValueError(f"Modality {modality} is not supported")
        if self.tokenization_config is not None:
            self.tokenization_config.validate()

    @property
    def supported_modalities(self) -> list[ModalitySpec]:
        """Get the supported modalities."""
        return get_modality_specs_from_names(self.supported_modality_names)

    def build(self) -> "Reconstructor":
        """Build the reconstructor."""
        self.validate()
        kwargs = self.as_dict(exclude_none=True, recurse=False)
        kwargs.pop("supported_modality_names")
        kwargs["supported_modalities"] = self.supported_modalities
        kwargs.pop("decoder_config")
        kwargs["decoder"] = self.decoder_config.build()
        logger.info(f"Predictor kwargs: {kwargs}")
        return Reconstructor(**kwargs)


class CompositeEncodings(nn.Module):
    """Composite encodings for FlexiVit models."""

    def __init__(
        self,
        embedding_size: int,
        supported_modalities: list[ModalitySpec],
        max_sequence_length: int | None = None,
        learnable_channel_embeddings: bool = True,
        random_channel_embeddings: bool = False,
        tokenization_config: TokenizationConfig | None = None,
        position_encoding: str = "absolute",
        spatial_pos_encoding: str | None = None,
    ):
        """Initialize the composite encodings.

        Args:
            embedding_size: Size of token embeddings
            supported_modalities: Which modalities from Modality this model
                instantiation supports
            max_sequence_length: Deprecated, has no effect. Temporal position
                encodings are computed on-the-fly for any number of timesteps.
            learnable_channel_embeddings: Whether to use learnable channel embeddings
            random_channel_embeddings: Initialize channel embeddings randomly (zeros if False)
            tokenization_config: Optional config for custom band groupings
            position_encoding: Position encoding mode; one of the
                ``PositionEncoding`` values.
            spatial_pos_encoding: Deprecated alias for ``position_encoding``.
        """
        super().__init__()
        position_encoding = resolve_position_encoding(
            position_encoding, spatial_pos_encoding
        )
        if position_encoding not in PositionEncoding.values():
            raise ValueError(
                f"position_encoding must be one of {PositionEncoding.values()}, "
                f"got {position_encoding}"
            )
        self.embedding_size = embedding_size
        self.supported_modalities = supported_modalities
        self.supported_modality_names = [
            modality.name for modality in supported_modalities
        ]
        self.tokenization_config = tokenization_config or TokenizationConfig()
        self.position_encoding = position_encoding
        self.embedding_size = embedding_size
        # TODO: we need to be able to calculate the size of the param based on what types of embeddings it will get

        # we have 4 embeddings types (pos_in_time, pos_in_space, month, channel) so each get
        # 0.25 of the dimension
        self.embedding_dim_per_embedding_type = int(embedding_size * 0.25)
        # Temporal position encodings are computed on-the-fly via
        # get_1d_sincos_pos_encoding so that any number of timesteps is supported
        # without a pre-allocated table. Older checkpoints still carry the
        # frozen `pos_embed` table; drop it so strict loading succeeds.
        self._register_load_state_dict_pre_hook(self._drop_pos_embed_hook)
        # Month encodings
        month_tab = get_month_encoding_table(self.embedding_dim_per_embedding_type)
        self.month_embed = nn.Embedding.from_pretrained(month_tab, freeze=True)
        if not learnable_channel_embeddings and not random_channel_embeddings:
            self.per_modality_channel_embeddings = nn.ParameterDict()
            for modality in self.supported_modalities:
                num_bandsets = self.tokenization_config.get_num_bandsets(modality.name)
                shape = (num_bandsets, self.embedding_dim_per_embedding_type)
                channel_embeddings = nn.Parameter(
                    torch.zeros(shape), requires_grad=False
                )
                self.per_modality_channel_embeddings[modality.name] = channel_embeddings
        else:
            # Channel embeddings
            if learnable_channel_embeddings:
                args = {"requires_grad": True}
            else:
                args = {"requires_grad": False}

            self.per_modality_channel_embeddings = nn.ParameterDict()
            for modality in self.supported_modalities:
                num_bandsets = self.tokenization_config.get_num_bandsets(modality.name)
                shape = (num_bandsets, self.embedding_dim_per_embedding_type)
                if random_channel_embeddings:
                    channel_embeddings = nn.Parameter(torch.rand(shape), **args)
                else:
                    channel_embeddings = nn.Parameter(torch.zeros(shape), **args)
                self.per_modality_channel_embeddings[modality.name] = channel_embeddings

        self.apply(self._init_weights)

    def _init_weights(self, m: nn.Module) -> None:
        if isinstance(m, nn.Linear):
            # we use xavier_uniform following official JAX ViT:
            torch.nn.init.xavier_uniform_(m.weight)
            if isinstance(m, nn.Linear) and m.bias is not None:
                # TODO: fix the dtype here
                nn.init.constant_(m.bias, 0).to(torch.float32)

    @staticmethod
    def _drop_pos_embed_hook(
        state_dict: dict, prefix: str, *args: object, **kwargs: object
    ) -> None:
        """Drop legacy pos_embed from old checkpoints so strict loading succeeds."""
        key = prefix + "pos_embed"
        if key in state_dict:
            del state_dict[key]

    @staticmethod
    def calculate_gsd_ratio(input_res: float, patch_size: int) -> float:
        """Calculate the Ground Sample Distance ratio."""
        return input_res * patch_size / BASE_GSD

    def _apply_encodings_per_modality(
        self,
        modality_name: str,
        modality_tokens: Tensor,
        timestamps: Tensor | None = None,
        patch_size: int | None = None,
        input_res: int | None = None,
        use_modality_encodings: bool = True,
        use_temporal_encodings: bool = True,
    ) -> Tensor:
        """Apply the encodings to the patchified data based on modality type.

        Args:
            modality_name: Name of the modality being processed
            modality_tokens: Token embeddings for the modality
            timestamps: Optional timestamps for temporal encodings
            patch_size: Optional patch size for spatial encodings
            input_res: Optional input resolution for spatial encodings
            use_modality_encodings: Whether to use modality encodings
            use_temporal_encodings: Whether to use temporal encodings

        Returns:
            Tensor with encodings applied based on modality type
        """
        logger.debug(
            f"use_modality_encodings: {use_modality_encodings}, use_temporal_encodings: {use_temporal_encodings}"
        )
        # TODO: Improve this implementation it is quite bad

        modality = Modality.get(modality_name)
        logger.debug(f"Applying encodings to modality {modality}")
        if not use_modality_encodings and use_temporal_encodings:
            b, h, w, t, _ = modality_tokens.shape
            ein_string, ein_dict = (
                "b h w t d",
                {"b": b, "h": h, "w": w, "t": t},
            )
        elif not use_temporal_encodings and not use_modality_encodings:
            b, h, w, _ = modality_tokens.shape
            ein_string, ein_dict = (
                "b h w d",
                {"b": b, "h": h, "w": w},
            )
        elif not use_temporal_encodings and use_modality_encodings:
            raise NotImplementedError("Not implemented")
        else:
            if modality_tokens.ndim == 3:
                # modality_tokens = [B, Band_Sets, D]; static in space, static in time
                b, b_s, _ = modality_tokens.shape
                ein_string, ein_dict = "b b_s d", {"b": b, "b_s": b_s}
            elif modality_tokens.ndim == 4:
                b, t, b_s, _ = modality_tokens.shape
                ein_string, ein_dict = "b t b_s d", {"b": b, "t": t, "b_s": b_s}
            elif modality_tokens.ndim == 5:
                b, h, w, b_s, _ = modality_tokens.shape
                ein_string, ein_dict = (
                    "b h w b_s d",
                    {"b": b, "h": h, "w": w, "b_s": b_s},
                )
            elif modality_tokens.ndim == 6:
                b, h, w, t, b_s, _ = modality_tokens.shape
                ein_string, ein_dict = (
                    "b h w t b_s d",
                    {"b": b, "h": h, "w": w, "t": t, "b_s": b_s},
                )
            else:
                raise ValueError(f"Unsupported tokens shape: {modality_tokens.shape}")

        device = modality_tokens.device
        modality_embed = torch.zeros(
            modality_tokens.shape, device=device, dtype=modality_tokens.dtype
        )
        n = self.embedding_dim_per_embedding_type
        actual_bandsets = modality_tokens.shape[-2]

        # Channel embeddings
        if use_modality_encodings:
            channel_embed = self.per_modality_channel_embeddings[modality.name]
            if channel_embed.shape[0] != actual_bandsets:
                raise ValueError(
                    f"Channel embeddings for {modality.name} expect "
                    f"{channel_embed.shape[0]} bandsets but tokens have "
                    f"{actual_bandsets}. Ensure tokenization_config is "
                    "consistently passed to the encoder/decoder and masking strategy."
                )
            channel_embed = repeat(
                channel_embed, f"b_s d -> {ein_string}", **ein_dict
            ).to(device)
            modality_embed[..., :n] += channel_embed

        if modality.is_multitemporal and use_temporal_encodings:
            # Slot-index temporal encoding (additive). Skipped when 3D RoPE
            # handles temporal position rotationally inside attention.
            if not PositionEncoding.is_3d_rope(self.position_encoding):
                # Time position encodings (computed on-the-fly for arbitrary t)
                pos_embed = get_1d_sincos_pos_encoding(
                    torch.arange(t, device=device),
                    self.embedding_dim_per_embedding_type,
                )
                time_embed = repeat(pos_embed, f"t d -> {ein_string}", **ein_dict)
                modality_embed[..., n : n * 2] += time_embed

            # Month encodings stay additive in all modes (calendar/seasonal
            # signal is orthogonal to slot-index).
            assert timestamps is not None
            months = timestamps[:, :, 1]
            month_embed = self.month_embed(months)
            month_embed = repeat(month_embed, f"b t d -> {ein_string}", **ein_dict)
            modality_embed[..., n * 2 : n * 3] += month_embed.to(device)
        if modality.is_spatial and self.position_encoding == PositionEncoding.ABSOLUTE:
            # Spatial encodings
            assert input_res is not None
            assert patch_size is not None
            gsd_ratio = self.calculate_gsd_ratio(input_res, patch_size)
            spatial_embed = get_2d_sincos_pos_encoding_with_resolution(
                grid_size=h,
                res=torch.ones(b, device=device) * gsd_ratio,
                encoding_dim=self.embedding_dim_per_embedding_type,
                device=device,
            )
            spatial_embed = rearrange(spatial_embed, "b (h w) d -> b h w d", h=h, w=w)
            spatial_embed = repeat(
                spatial_embed, f"b h w d -> {ein_string}", **ein_dict
            )
            modality_embed[..., n * 3 : n * 4] += spatial_embed
        return modality_tokens + modality_embed

    def forward(
        self,
        per_modality_input_tokens: dict[str, Tensor],
        timestamps: Tensor,
        patch_size: int,
        input_res: int = BASE_GSD,
    ) -> dict[str, Tensor]:
        """Apply the encodings to the patchified data.

        Args:
            per_modality_input_tokens: Tokens only for each modality
            timestamps: Timestamps of the data
            patch_size: Size of patches
            input_res: Resolution of the input data

        Returns:
            Tokens only for each modality
        """
        output_dict = {}
        available_modalities = return_modalities_from_dict(per_modality_input_tokens)
        modalities_to_process = get_modalities_to_process(
            available_modalities, self.supported_modality_names
        )
        for modality_name in modalities_to_process:
            output_dict[modality_name] = self._apply_encodings_per_modality(
                modality_name,
                per_modality_input_tokens[modality_name],
                timestamps=timestamps,
                patch_size=patch_size,
                input_res=input_res,
            )
        return output_dict


class FlexiVitBase(nn.Module):
    """FlexiVitBase is a base class for FlexiVit models."""

    cross_attn: bool = False

    def __init__(
        self,
        embedding_size: int,
        max_sequence_length: int,
        num_heads: int,
        mlp_ratio: float,
        depth: int,
        drop_path: float,
        supported_modalities: list[ModalitySpec],
        learnable_channel_embeddings: bool = True,
        random_channel_embeddings: bool = False,
        use_flash_attn: bool = False,
        qk_norm: bool = False,
        tokenization_config: TokenizationConfig | None = None,
        position_encoding: str = "absolute",
        rope_base: float = 10000.0,
        rope_coordinate_scale: float = 1.0,
        rope_mixed_base: float = 10.0,
        temporal_rope_dim_frac: float = 0.25,
        rope_temporal_base: float | None = None,
        rope_temporal_coordinate_scale: float = 1.0,
        spatial_pos_encoding: str | None = None,
    ) -> None:
        """Initialize the FlexiVitBase class."""
        super().__init__()
        position_encoding = resolve_position_encoding(
            position_encoding, spatial_pos_encoding
        )
        validate_position_encoding(
            position_encoding=position_encoding,
            head_dim=embedding_size // num_heads,
            temporal_rope_dim_frac=temporal_rope_dim_frac,
        )
        if rope_base <= 0:
            raise ValueError(f"rope_base must be positive, got {rope_base}")
        if rope_coordinate_scale <= 0:
            raise ValueError(
                f"rope_coordinate_scale must be positive, got {rope_coordinate_scale}"
            )
        if rope_mixed_base <= 0:
            raise ValueError(f"rope_mixed_base must be positive, got {rope_mixed_base}")
        if not 0.0 < temporal_rope_dim_frac < 1.0:
            raise ValueError(
                f"temporal_rope_dim_frac must be in (0, 1), got {temporal_rope_dim_frac}"
            )
        if rope_temporal_base is not None and rope_temporal_base <= 0:
            raise ValueError(
                f"rope_temporal_base must be positive, got {rope_temporal_base}"
            )
        if rope_temporal_coordinate_scale <= 0:
            raise ValueError(
                "rope_temporal_coordinate_scale must be positive, got "
                f"{rope_temporal_coordinate_scale}"
            )

        self.embedding_size = embedding_size
        self.supported_modalities = supported_modalities
        self.supported_modality_names = [x.name for x in supported_modalities]
        logger.info(f"modalities being used by model: {self.supported_modality_names}")

        self.max_sequence_length = max_sequence_length
        self._base_tokenization_config = tokenization_config or TokenizationConfig()

        self.use_flash_attn = use_flash_attn
        self.position_encoding = position_encoding
        self.rope_base = rope_base
        self.rope_coordinate_scale = rope_coordinate_scale
        self.rope_mixed_base = rope_mixed_base
        self.temporal_rope_dim_frac = temporal_rope_dim_frac
        self.rope_temporal_base = rope_temporal_base
        self.rope_temporal_coordinate_scale = rope_temporal_coordinate_scale
        self.learnable_channel_embeddings = learnable_channel_embeddings
        self.random_channel_embeddings = random_channel_embeddings
        self.blocks = nn.ModuleList(
            [
                Block(
                    embedding_size,
                    num_heads,
                    mlp_ratio,
                    qkv_bias=True,
                    qk_norm=qk_norm,
                    norm_layer=nn.LayerNorm,  # TODO: This should be configurable
                    cross_attn=self.cross_attn,
                    drop_path=drop_path,
                    use_flash_attn=self.use_flash_attn,
                    position_encoding=self.position_encoding,
                    rope_base=self.rope_base,
                    rope_mixed_base=self.rope_mixed_base,
                    temporal_rope_dim_frac=self.temporal_rope_dim_frac,
                    rope_temporal_base=self.rope_temporal_base,
                )
                for _ in range(depth)
            ]
        )

        self.composite_encodings = CompositeEncodings(
            embedding_size,
            self.supported_modalities,
            max_sequence_length,
            learnable_channel_embeddings,
            random_channel_embeddings,
            tokenization_config=self._base_tokenization_config,
            position_encoding=self.position_encoding,
        )
        self.apply(self._init_weights)

    def _init_weights(self, m: nn.Module) -> None:
        if isinstance(m, nn.Linear):
            # we use xavier_uniform following official JAX ViT:
            torch.nn.init.xavier_uniform_(m.weight)
            if isinstance(m, nn.Linear) and m.bias is not None:
                nn.init.constant_(m.bias, 0)

    @staticmethod
    def grab_modality_specific_dims(modality_data: Tensor) -> tuple[int, ...]:
        """Grab the modality specific dimensions from the modality data.

        Assumes [B, ..., C, D]

        Every modality will have a batch dimension, a channel dimension and embedding dimension.

        Args:
            modality_data: Modality data

        Returns:
            Modality specific dimensions
        """
        return modality_data.shape[1:-2] if modality_data.ndim > 3 else ()

    # is naming here confusing if one of these channels can be missing?
    def collapse_and_combine_hwtc(self, x: dict[str, Tensor]) -> tuple[Tensor, Tensor]:
        """Collapse the tokens and masks, respectively, into two tensors."""
        tokens, masks = [], []
        available_modalities = return_modalities_from_dict(x)
        modalities_to_process = get_modalities_to_process(
            available_modalities, self.supported_modality_names
        )
        for modality in modalities_to_process:
            masked_modality_name = MaskedOlmoEarthSample.get_masked_modality_name(
                modality
            )
            x_modality = x[modality]
            x_modality_mask = x[masked_modality_name]
            tokens.append(rearrange(x_modality, "b ... d -> b (...) d"))
            masks.append(rearrange(x_modality_mask, "b ... -> b (...)"))
        tokens = torch.cat(tokens, dim=1)
        masks = torch.cat(masks, dim=1)

        return tokens, masks

    def build_rope_positions(
        self,
        tokens_only_dict: dict[str, Tensor],
        original_masks_dict: dict[str, Tensor],
        patch_size: int,
        input_res: int,
        timestamps: Tensor | None = None,
    ) -> Tensor | None:
        """Build per-token coordinates for RoPE.

        Returns ``[B, N, 2]`` ``(row, col)`` for 2D RoPE modes and
        ``[B, N, 3]`` ``(t, row, col)`` for 3D RoPE modes. ``None`` for any
        non-RoPE encoding (the additive paths consume raw indices, not
        per-token position tensors).

        Under 3D RoPE the temporal coordinate is days-since-2000 derived from
        ``timestamps`` (so models see real calendar deltas, not slot indices),
        scaled by ``self.rope_temporal_coordinate_scale``. Static modalities
        keep ``t=0`` (no temporal anchor).
        """
        if not PositionEncoding.is_rope(self.position_encoding):
            return None
        is_3d = PositionEncoding.is_3d_rope(self.position_encoding)

        available_modalities = return_modalities_from_dict(tokens_only_dict)
        modalities_to_process = get_modalities_to_process(
            available_modalities, self.supported_modality_names
        )
        gsd_ratio = (
            CompositeEncodings.calculate_gsd_ratio(input_res, patch_size)
            * self.rope_coordinate_scale
        )

        # For 3D RoPE, convert timestamps -> days-since-anchor once. Shape
        # (B, T_max). Each multitemporal modality indexes into this with its
        # own slot count (we assume the first T entries align across modalities,
        # matching how additive temporal encodings already work).
        days_per_timestep: Tensor | None = None
        if is_3d:
            if timestamps is None:
                raise ValueError(
                    "3D RoPE requires timestamps to build the temporal "
                    "coordinate, but none were provided. The temporal axis is "
                    "calendar days since the anchor year and cannot be derived "
                    "from slot indices; pass timestamps on the input sample."
                )
            days_per_timestep = timestamps_to_days(timestamps).to(torch.float32) * (
                self.rope_temporal_coordinate_scale
            )

        position_dict = {}
        for modality_name in modalities_to_process:
            tokens = tokens_only_dict[modality_name]
            modality = Modality.get(modality_name)
            if is_3d:
                positions = self._build_3d_rope_positions_for_modality(
                    modality_name=modality_name,
                    modality=modality,
                    tokens=tokens,
                    gsd_ratio=gsd_ratio,
                    days_per_timestep=days_per_timestep,
                )
            else:
                positions = self._build_2d_rope_positions_for_modality(
                    modality_name=modality_name,
                    modality=modality,
                    tokens=tokens,
                    gsd_ratio=gsd_ratio,
                )
            position_dict[modality_name] = positions

        position_dict.update(original_masks_dict)
        positions, _ = self.collapse_and_combine_hwtc(position_dict)
        return positions

    def _patch_grid_hw(self, tokens_only_dict: dict[str, Tensor]) -> tuple[int, int]:
        """Spatial patch grid ``(h, w)`` of the (finest) spatial modality.

        Used by the dynamic AttentionPooler to size + place its grid to match the
        patches. All spatial modalities share the GSD-scaled coordinate frame, so the
        max over them gives the finest grid (and the largest coordinate extent).
        """
        available_modalities = return_modalities_from_dict(tokens_only_dict)
        modalities_to_process = get_modalities_to_process(
            available_modalities, self.supported_modality_names
        )
        h_max = w_max = 0
        for modality_name in modalities_to_process:
            if not Modality.get(modality_name).is_spatial:
                continue
            h, w = tokens_only_dict[modality_name].shape[1:3]
            h_max, w_max = max(h_max, h), max(w_max, w)
        if h_max == 0 or w_max == 0:
            raise ValueError(
                "dynamic AttentionPooler requires at least one spatial modality"
            )
        return (h_max, w_max)

    @staticmethod
    def _zero_rope_positions(tokens: Tensor, coord_dim: int) -> Tensor:
        """Create zero RoPE coordinates matching token layout."""
        return torch.zeros(
            (*tokens.shape[:-1], coord_dim), dtype=torch.float32, device=tokens.device
        )

    @staticmethod
    def _spatial_grid(
        modality_name: str,
        tokens: Tensor,
        gsd_ratio: float,
    ) -> tuple[int, Tensor, Tensor]:
        """Build row/col patch coordinates for a spatial modality."""
        if tokens.ndim not in (5, 6):
            raise ValueError(
                f"Expected spatial tokens for {modality_name} to have 5 "
                f"or 6 dimensions, got {tokens.shape}"
            )
        batch_size, height, width = tokens.shape[:3]
        grid_row = torch.arange(height, device=tokens.device, dtype=torch.float32)
        grid_col = torch.arange(width, device=tokens.device, dtype=torch.float32)
        return batch_size, grid_row * gsd_ratio, grid_col * gsd_ratio

    def _build_2d_rope_positions_for_modality(
        self,
        modality_name: str,
        modality: ModalitySpec,
        tokens: Tensor,
        gsd_ratio: float,
    ) -> Tensor:
        """Build ``(row, col)`` RoPE coordinates for one modality."""
        if not modality.is_spatial:
            return self._zero_rope_positions(tokens, coord_dim=2)

        batch_size, grid_row, grid_col = self._spatial_grid(
            modality_name, tokens, gsd_ratio
        )
        row_g, col_g = torch.meshgrid(grid_row, grid_col, indexing="ij")
        grid = torch.stack([row_g, col_g], dim=-1)

        if tokens.ndim == 5:
            bandsets = tokens.shape[3]
            return repeat(grid, "h w p -> b h w b_s p", b=batch_size, b_s=bandsets)

        timesteps, bandsets = tokens.shape[3], tokens.shape[4]
        return repeat(
            grid,
            "h w p -> b h w t b_s p",
            b=batch_size,
            t=timesteps,
            b_s=bandsets,
        )

    def _build_3d_rope_positions_for_modality(
        self,
        modality_name: str,
        modality: ModalitySpec,
        tokens: Tensor,
        gsd_ratio: float,
        days_per_timestep: Tensor,
    ) -> Tensor:
        """Build ``(t, row, col)`` RoPE coordinates for one modality."""
        positions = self._zero_rope_positions(tokens, coord_dim=3)
        if tokens.ndim == 3:
            # (b, b_s, d): static modality. All coordinates stay zero.
            return positions
        if tokens.ndim == 4:
            # (b, t, b_s, d): temporal-only modality.
            batch_size, timesteps, bandsets, _ = tokens.shape
            t_values = self._select_t_values(
                days_per_timestep, timesteps, device=tokens.device
            )
            positions[..., 0] = repeat(t_values, "b t -> b t b_s", b_s=bandsets)
            return positions

        batch_size, grid_row, grid_col = self._spatial_grid(
            modality_name, tokens, gsd_ratio
        )
        row_g, col_g = torch.meshgrid(grid_row, grid_col, indexing="ij")

        if tokens.ndim == 5:
            # (b, h, w, b_s, d): spatial-only modality.
            bandsets = tokens.shape[3]
            positions[..., 1] = repeat(
                row_g, "h w -> b h w b_s", b=batch_size, b_s=bandsets
            )
            positions[..., 2] = repeat(
                col_g, "h w -> b h w b_s", b=batch_size, b_s=bandsets
            )
            return positions

        if tokens.ndim == 6:
            # (b, h, w, t, b_s, d): full spatiotemporal modality.
            timesteps, bandsets = tokens.shape[3], tokens.shape[4]
            t_values = self._select_t_values(
                days_per_timestep, timesteps, device=tokens.device
            )
            positions[..., 0] = repeat(
                t_values,
                "b t -> b h w t b_s",
                h=tokens.shape[1],
                w=tokens.shape[2],
                b_s=bandsets,
            )
            positions[..., 1] = repeat(
                row_g, "h w -> b h w t b_s", b=batch_size, t=timesteps, b_s=bandsets
            )
            positions[..., 2] = repeat(
                col_g, "h w -> b h w t b_s", b=batch_size, t=timesteps, b_s=bandsets
            )
            return positions

        raise ValueError(
            f"Unsupported tokens shape for {modality_name}: {tokens.shape}"
        )

    @staticmethod
    def _select_t_values(
        days_per_timestep: Tensor,
        num_timesteps: int,
        device: torch.device,
    ) -> Tensor:
        """Pick the first ``num_timesteps`` days for each sample."""
        if days_per_timestep.shape[1] < num_timesteps:
            raise ValueError(
                f"timestamps has {days_per_timestep.shape[1]} slots but modality "
                f"requires {num_timesteps}"
            )
        return days_per_timestep[:, :num_timesteps].to(device)

    @staticmethod
    def split_x_y_positions(
        positions: Tensor,
        indices: Tensor,
        max_length_of_decoded_tokens: Tensor,
        max_length_of_unmasked_tokens: Tensor,
    ) -> tuple[Tensor, Tensor]:
        """Split positions using the same sorted order as predictor tokens."""
        positions = positions.gather(1, indices[:, :, None].expand_as(positions))
        positions_to_decode = positions[:, :max_length_of_decoded_tokens]
        unmasked_positions = positions[:, -max_length_of_unmasked_tokens:]
        return positions_to_decode, unmasked_positions

    def add_register_positions(self, positions: Tensor) -> Tensor:
        """Prepend zero coordinates for register tokens."""
        batch_size = positions.shape[0]
        register_positions = positions.new_zeros(
            batch_size,
            self.num_register_tokens,
            positions.shape[-1],
        )
        return torch.cat([register_positions, positions], dim=1)

    @staticmethod
    def _construct_einops_pattern(
        spatial_dims: tuple[int, ...],
    ) -> tuple[str, dict[str, int]]:
        """Given a tuple of spatial dimensions (e.g. [B, H, W, T, ...]).

        build (1) an einops rearrange pattern of the form:
            "d -> (dim0) (dim1) (dim2)... d"
        and (2) a dictionary mapping dim0..dimN to the actual sizes.

        This allows reshaping a single-dimensional tensor [D] into
        [B, H, W, T, ..., D] using einops.
        """
        dim_dict = {f"dim{i}": size for i, size in enumerate(spatial_dims)}
        # e.g., "d -> (dim0) (dim1) (dim2) (dim3) d"
        pattern_input = (
            "d -> " + " ".join(f"(dim{i})" for i in range(len(spatial_dims))) + " d"
        )
        return pattern_input, dim_dict

    def split_tokens_masks_and_dims(
        self, x: dict[str, Tensor]
    ) -> tuple[dict[str, Tensor], dict[str, Tensor], dict[str, tuple]]:
        """Split the tokens, masks, and dimensions out into separate dicts."""
        tokens_only_dict = {}
        original_masks_dict = {}
        modalities_to_dims_dict = {}
        available_modalities = return_modalities_from_dict(x)
        modalities_to_process = get_modalities_to_process(
            available_modalities, self.supported_modality_names
        )
        for modality in modalities_to_process:
            x_modality = x[modality]
            tokens_only_dict[modality] = x_modality
            modalities_to_dims_dict[modality] = x_modality.shape
            masked_modality_name = MaskedOlmoEarthSample.get_masked_modality_name(
                modality
            )
            original_masks_dict[masked_modality_name] = x[masked_modality_name]
        return tokens_only_dict, original_masks_dict, modalities_to_dims_dict

    @staticmethod
    def split_and_expand_per_modality(
        x: Tensor, modalities_to_dims_dict: dict
    ) -> dict[str, Tensor]:
        """Split and expand the tokens per modality.

        Args:
            x: Tokens to split and expand (b n d)
            modalities_to_dims_dict: Dictionary mapping modalities to their dimensions
        Returns:
            tokens_only_dict: mapping modalities to their tokens
        """
        tokens_only_dict = {}
        tokens_reshaped = 0
        for modality, dims in modalities_to_dims_dict.items():
            # Skip batch (first) and embedding (last) dimensions
            middle_dims = dims[1:-1]
            num_tokens_for_modality = math.prod(middle_dims)

            # Extract tokens for this modality (b n d)
            modality_tokens = x[
                :, tokens_reshaped : tokens_reshaped + num_tokens_for_modality
            ]

            # TODO: see if there  is a general and clean einops way to do this
            # Reshape to original dimensions (e.g., for 4D spatial dims: b d1 d2 d3 d4 e)
            x_modality = modality_tokens.view(x.shape[0], *middle_dims, x.shape[-1])

            tokens_reshaped += num_tokens_for_modality
            tokens_only_dict[modality] = x_modality

        return tokens_only_dict

    @staticmethod
    def pack_tokens(tokens: Tensor, mask: Tensor) -> Tensor:
        """Pack the Batch and sequence length dimensions of tokens and mask into a single tensor.

        Args:
            tokens: Tokens to pack
            mask: Mask to pack

        Returns:
            Packed tokens enabling varlen flash attention
        """
        tokens_packed = torch.flatten(tokens, end_dim=1)
        mask = torch.flatten(mask)
        tokens = tokens_packed[mask]
        return tokens

    @staticmethod
    def unpack_tokens(tokens: Tensor, mask: Tensor, og_shape: tuple) -> Tensor:
        """Unpack the Batch and sequence length dimensions of tokens and mask into a single tensor.

        Args:
            tokens: Tokens to unpack
            mask: Mask to unpack
            og_shape: Original shape of the tokens
        """
        tokens_new = tokens.new_zeros(og_shape[0] * og_shape[1], og_shape[2])
        mask = torch.flatten(mask)
        tokens_new[mask] = tokens
        tokens = tokens_new.reshape(og_shape[0], og_shape[1], -1)
        return tokens

    def apply_fsdp(self, **fsdp_kwargs: Any) -> None:
        """Apply FSDP to the model."""
        for block in self.blocks:
            block.apply_fsdp(**fsdp_kwargs)

    def apply_compile(self) -> None:
        """Apply torch.compile to the model."""
        for block in self.blocks:
            block.apply_compile()


class AttentionPooler(nn.Module):
    """Dense spatial attention pooling of the encoder tokens onto a location grid.

    Naming: a single **learned query** (``learned_query``) is repeated into one
    **location query** per grid cell; after the read + self-attention layers and the
    final norm, the location queries are the **location tokens** (``location_tokens``,
    plus the detached ``student_location_tokens``).

    The location queries cross-attention *read* the encoded (visible) patch tokens, then
    self-attend over the grid. The resulting location tokens are the model's compressed,
    spatially-anchored representation: the decoder reads only them, and frozen evals
    probe them. Query coordinates are placed in the same GSD-scaled frame as the
    patches, so 2D RoPE relative offsets are meaningful.

    Reads and self-attention are interleaved, ``[read -> self-attend]`` per layer, so
    the queries re-read the input after each refinement (the Perceiver/DETR/Flamingo
    pattern).

    The *single* learned query is repeated across a grid that matches the input patch
    grid at forward time. RS imagery is translation-invariant, so every spatial query starts
    from the same content; spatial identity comes entirely from 2D RoPE on the per-cell
    positions. This enforces a translation-invariant prior and removes the grid size as
    a baked hyperparameter (it follows the input).
    """

    def __init__(
        self,
        encoder_embedding_size: int,
        pooler_dim: int,
        num_heads: int,
        mlp_ratio: float,
        pooler_depth: int,
        use_2d_rope: bool,
        rope_base: float = 10000.0,
        qk_norm: bool = False,
        per_depth_read_proj: bool = False,
        attn_dim: int | None = None,
        student_dims: list[int] | None = None,
        student_output_norm: bool = False,
    ) -> None:
        """Initialize the AttentionPooler.

        Args:
            encoder_embedding_size: Dimension of the encoded patch tokens (the read's K/V source).
            pooler_dim: Dimension of the location-token grid (the bottleneck width, typically < encoder dim).
            num_heads: Number of attention heads for the reads + self-attention blocks.
            mlp_ratio: MLP ratio for the blocks.
            pooler_depth: Number of ``[read -> self-attend]`` layers: one
                cross-attention read paired with each self-attention block over the
                location-token grid.
            use_2d_rope: Whether to apply 2D RoPE (requires per-token positions at call time).
            rope_base: RoPE frequency base.
            qk_norm: Whether to apply QK normalization in attention.
            per_depth_read_proj: If True, give each read block its own ``input_norm``
                LayerNorm *and* ``kv_proj`` down-projection instead of a single shared
                pair. Successive reads then get their own lens on the source instead of
                being forced through one shared projection.
                Every read re-queries the same final encoder layer, so per-block
                projections instead let successive reads extract
                different views through their own lens. Requires more than one read block
                (ignored otherwise). False (default) keeps the shared norm + projection
                (backwards compatible).
            attn_dim: If set, DECOUPLE the attention width from ``pooler_dim``: the
                read and self-attention blocks run their attention internally at
                ``attn_dim`` (typically the encoder width, giving encoder-shaped heads,
                e.g. 12x64)
                while the location-token residual stream, MLPs, and outputs stay at
                ``pooler_dim``. The read K/V source is consumed at the FULL encoder
                width -- the ``kv_proj`` down-projections are dropped (the per-depth /
                shared ``input_norm`` LayerNorms remain, at encoder width) and the read
                blocks' internal K/V projections map ``encoder_embedding_size ->
                attn_dim`` directly, so read *selection* sees uncompressed token
                content. Rationale: ``pooler_dim`` alone cannot fund both routing
                diversity (head count) and RoPE anchoring (head dim) at narrow widths
                -- observed as 2x slowdowns at <8 heads and degrading spatial evals at
                head_dim <64. ``None`` (default) keeps the classic tied-width blocks.
            student_dims: If set, add a DETACHED low-dim "student" readout of the
                location-token grid, returned alongside the grid at width ``max(student_dims)``.
                Smaller entries are Matryoshka prefixes of that output. The student's
                input is detached, so losses on it never reach the reads, the
                self-attention blocks or the encoder.
            student_output_norm: Put a ``LayerNorm`` on the student's output (at the
                full student width; a prefix is then a slice of a normalized vector).
        """
        super().__init__()
        self.pooler_dim = pooler_dim
        self.use_2d_rope = use_2d_rope
        self.attn_dim = attn_dim
        if not use_2d_rope:
            # With a single repeated query the cells are identical at init and stay
            # symmetric without a per-cell positional signal; RoPE is what breaks it.
            raise ValueError(
                "AttentionPooler requires use_2d_rope=True to differentiate grid cells."
            )
        self.learned_query = nn.Parameter(torch.empty(1, pooler_dim))
        nn.init.trunc_normal_(self.learned_query, std=0.02)
        num_read_blocks = pooler_depth
        self.per_depth_read_proj = per_depth_read_proj and num_read_blocks > 1
        if self.per_depth_read_proj:
            # One norm + projection per read block.
            self.input_norms = nn.ModuleList(
                [nn.LayerNorm(encoder_embedding_size) for _ in range(num_read_blocks)]
            )
            self.kv_projs = nn.ModuleList(
                [
                    (
                        nn.Identity()
                        if attn_dim is not None
                        else nn.Linear(encoder_embedding_size, pooler_dim)
                    )
                    for _ in range(num_read_blocks)
                ]
            )
        else:
            self.input_norm = nn.LayerNorm(encoder_embedding_size)
            self.kv_proj: nn.Module = (
                nn.Identity()
                if attn_dim is not None
                else nn.Linear(encoder_embedding_size, pooler_dim)
            )
        # The location-token grid is a purely spatial map, so the reads and the
        # self-attention both rotate over (row, col) only.
        read_position_encoding = (
            PositionEncoding.AXIAL_2D_ROPE if use_2d_rope else PositionEncoding.ABSOLUTE
        )
        self.read_blocks = nn.ModuleList(
            [
                Block(
                    pooler_dim,
                    num_heads,
                    mlp_ratio,
                    qkv_bias=True,
                    qk_norm=qk_norm,
                    cross_attn=True,
                    use_flash_attn=False,
                    position_encoding=read_position_encoding,
                    rope_base=rope_base,
                    attn_dim=attn_dim,
                    kv_in_dim=(
                        encoder_embedding_size if attn_dim is not None else None
                    ),
                )
                for i in range(num_read_blocks)
            ]
        )
        self.self_attn_blocks = nn.ModuleList(
            [
                Block(
                    pooler_dim,
                    num_heads,
                    mlp_ratio,
                    qkv_bias=True,
                    qk_norm=qk_norm,
                    cross_attn=False,
                    use_flash_attn=False,
                    position_encoding=(
                        PositionEncoding.AXIAL_2D_ROPE
                        if use_2d_rope
                        else PositionEncoding.ABSOLUTE
                    ),
                    rope_base=rope_base,
                    attn_dim=attn_dim,
                )
                for _ in range(pooler_depth)
            ]
        )
        self.norm = nn.LayerNorm(pooler_dim)
        # Detached low-dim student readout of the location-token grid. Dims are stored
        # descending: the student runs at dims[0] and the smaller entries are
        # Matryoshka prefixes of its output.
        self.student_dims: list[int] | None = None
        self.student: nn.Sequential | None = None
        if student_dims:
            self.student_dims = sorted(set(student_dims), reverse=True)
            student_dim = self.student_dims[0]
            student_layers: list[nn.Module] = [nn.Linear(pooler_dim, student_dim)]
            if student_output_norm:
                student_layers.append(nn.LayerNorm(student_dim))
            self.student = nn.Sequential(*student_layers)

    @staticmethod
    def build_location_query_positions(
        batch_size: int,
        query_grid: tuple[int, int],
        patch_size: int,
        gsd_ratio: float,
        device: torch.device,
        location_query_patch_size: int,
    ) -> Tensor:
        """Query centre coordinates in the token RoPE frame.

        Token ``i`` sits at ``i * gsd_ratio`` (the token positions of
        ``FlexiVitBase``). With a location-query patch size ``s``, query ``k`` of an axis
        covers pixels ``[k * s, (k + 1) * s)`` and has its centre at
        ``((k + 0.5) * s / patch_size - 0.5) * gsd_ratio``. At ``s = patch_size``
        these are exactly the token coordinates (one query per token); at
        ``s = 1`` they are pixel centres.

        Returns:
            ``[B, n_h * n_w, 2]`` row-major ``(row, col)`` coordinates.
        """
        lat_h, lat_w = query_grid

        def axis(n: int) -> Tensor:
            k = torch.arange(n, device=device, dtype=torch.float32)
            return (
                (k + 0.5) * location_query_patch_size / patch_size - 0.5
            ) * gsd_ratio

        grid_h, grid_w = torch.meshgrid(axis(lat_h), axis(lat_w), indexing="ij")
        grid = torch.stack([grid_h, grid_w], dim=-1).reshape(-1, 2)
        return grid.unsqueeze(0).expand(batch_size, -1, -1)

    def forward(
        self,
        patch_tokens: Tensor,
        patch_positions: Tensor | None,
        visible_mask: Tensor | None,
        spatial_grid: tuple[int, int],
        patch_size: int,
        gsd_ratio: float,
        location_query_patch_size: int | None = None,
    ) -> tuple[Tensor, Tensor | None, Tensor | None]:
        """Read the (visible) patch tokens into the location-token grid.

        Args:
            patch_tokens: Encoded tokens ``[B, N, encoder_embedding_size]``.
            patch_positions: GSD-scaled ``[B, N, 2]`` ``(row, col)`` coords (None if not
                using RoPE).
            visible_mask: Bool ``[B, N]``, True where a token is a valid key
                (``MaskValue.ONLINE_ENCODER``). None means attend to all tokens.
            spatial_grid: ``(n_h, n_w)`` patch grid of the tokens.
            patch_size: Token patch size ``p`` of this forward pass.
            gsd_ratio: Distance between adjacent token centres in the RoPE frame
                (the ``gsd_ratio`` of ``FlexiVitBase``'s RoPE positions); the
                location queries are placed in the same frame.
            location_query_patch_size: pixels per location query along each side, ``s``; must divide
                ``p``. One query per ``s x s`` pixels at the pixel-block centres
                (:meth:`build_location_query_positions`), so ``s = 1`` gives one query per
                pixel. The reads are global, so only the grid and its positions
                change. None = ``p``, one location query per token.

        Returns:
            The location-token grid is ``(r_h, r_w) = (n_h * p / s, n_w * p / s)``, which is
            the patch grid ``(n_h, n_w)`` when ``location_query_patch_size`` is None.

            location_tokens: ``[B, r_h, r_w, pooler_dim]`` -- the grid, shaped, so callers
                never rebuild it from a flat sequence.
            location_query_positions: ``[B, r_h * r_w, 2]`` or None. Deliberately FLAT: its
                only consumer is the decoder's cross-attention, which wants a token
                sequence. Row-major (``indexing="ij"``), so cell ``[i, j]`` of
                ``location_tokens`` is entry ``i * r_w + j`` of ``location_query_positions``.
            student_location_tokens: ``[B, r_h, r_w, max(student_dims)]`` -- the detached
                student's readout of ``location_tokens`` -- or None without a student.
        """
        # With per-depth projections, each read's K/V is built inside the loop below
        # and freed after that read, so only one token-sized copy is alive at a time.
        shared_kv = (
            None
            if self.per_depth_read_proj
            else self.kv_proj(self.input_norm(patch_tokens))
        )
        batch_size = patch_tokens.shape[0]
        if location_query_patch_size is None:
            location_query_patch_size = patch_size
        if patch_size % location_query_patch_size != 0:
            raise ValueError(
                f"location_query_patch_size {location_query_patch_size} does not divide "
                f"patch_size {patch_size}"
            )
        query_grid = (
            spatial_grid[0] * patch_size // location_query_patch_size,
            spatial_grid[1] * patch_size // location_query_patch_size,
        )
        num_queries = query_grid[0] * query_grid[1]
        # Repeat the learned query into one location query per grid cell (and batch
        # element); RoPE on the per-cell location_query_positions is what tells them
        # apart.
        location_queries = (
            self.learned_query.unsqueeze(0)
            .expand(batch_size, num_queries, -1)
            .contiguous()
        )
        location_query_positions = None
        if self.use_2d_rope:
            if patch_positions is None:
                raise ValueError(
                    "patch_positions are required for the RoPE AttentionPooler"
                )
            location_query_positions = self.build_location_query_positions(
                batch_size,
                query_grid,
                patch_size,
                gsd_ratio,
                patch_tokens.device,
                location_query_patch_size,
            )
        # Read mask: the [B, N] key-visibility mask.
        read_attn_mask: Tensor | None = (
            visible_mask.bool() if visible_mask is not None else None
        )

        def read(queries: Tensor, i: int, blk: nn.Module, kv: Tensor) -> Tensor:
            out = blk(
                x=queries,
                y=kv,
                attn_mask=read_attn_mask,
                rope_positions=location_query_positions,
                rope_positions_y=patch_positions,
            )
            return out

        for i, read_blk in enumerate(self.read_blocks):
            kv = (
                shared_kv
                if shared_kv is not None
                else self.kv_projs[i](self.input_norms[i](patch_tokens))
            )
            location_queries = read(location_queries, i, read_blk, kv)
            del kv
            location_queries = self.self_attn_blocks[i](
                x=location_queries,
                rope_positions=location_query_positions,
            )
        # After every read + self-attention layer and the final norm, the location
        # queries are the location tokens.
        location_tokens = rearrange(
            self.norm(location_queries),
            "b (h w) d -> b h w d",
            h=query_grid[0],
            w=query_grid[1],
        )
        # The student reads a detached copy: its losses train the student alone.
        student_location_tokens = (
            self.student(location_tokens.detach()) if self.student is not None else None
        )
        return location_tokens, location_query_positions, student_location_tokens


@dataclass
class AttentionPoolerConfig(Config):
    """Dense spatial attention pooler on the encoder.

    Attaching this to :class:`EncoderConfig` turns the bottleneck on: the learned
    query is repeated into location queries over a grid matching the input patch grid,
    which read the encoded patch tokens (see :class:`AttentionPooler`); the decoder cross-attends the
    resulting location-token grid and frozen evals probe it. Requires a RoPE position
    encoding on the encoder, since the grid cells are told apart by 2D RoPE alone.

    Args:
        pooler_dim: Width of the location-token grid (the bottleneck dim). The decoder
            cross-attends this same width, so it is stated rather than defaulted.
        pooler_depth: Number of ``[read -> self-attend]`` layers: one cross-attention
            read paired with each query self-attention block over the location-token grid.
        num_heads: Attention heads in the bottleneck blocks. None uses the encoder's
            ``num_heads``.
        per_depth_read_proj: If True, give each read block its own input LayerNorm
            and K/V down-projection instead of one shared pair, so each read gets its
            own lens on the final layer. Requires more than one read block.
        attn_dim: If set, the read + self-attention runs internally at this width
            (e.g. the encoder ``embedding_size`` for encoder-shaped heads) while the
            location-token stream stays at ``pooler_dim``; the read K/V source is then
            consumed at full encoder width with no down-projection. None ties the
            attention width to ``pooler_dim``.
        student_dims: If set, add a DETACHED low-dim "student" readout of the
            location-token grid, exported alongside the location_tokens as ``student_location_tokens``
            at width ``max(student_dims)``. The student's input is detached, so its
            gradients (the train module's distillation and supervision losses) never
            reach the encoder or the primary bottleneck: the encoder trains exactly as
            it would without the student, which is trained online against the improving
            teacher. Additional (smaller) entries are trained as MATRYOSHKA PREFIXES of
            the student output.
        student_output_norm: Put a ``LayerNorm`` on the student's output. The
            primary bottleneck ends in one, which otherwise makes the bare ``Linear``
            the only served representation with no norm at its own width; nothing in
            the distillation loss pins its scale either, since the cosine term is taken
            after a learned back-projection that absorbs any rescaling. Applied at the
            FULL student width, so a Matryoshka prefix is a slice of a normalized vector
            rather than a normalized slice; a truncating deployment reads exactly that
            slice.
            The heads that distil the teacher into the student are configured
            separately (``LatentMIMConfig.location_token_distillation_head_config``).
    """

    pooler_dim: int
    pooler_depth: int = 2
    num_heads: int | None = None
    per_depth_read_proj: bool = False
    attn_dim: int | None = None
    student_dims: list[int] | None = None
    student_output_norm: bool = False

    def resolved_num_heads(self, encoder_num_heads: int) -> int:
        """Heads for the bottleneck blocks (the encoder's when unset)."""
        return self.num_heads if self.num_heads is not None else encoder_num_heads

    @property
    def sorted_student_dims(self) -> list[int] | None:
        """Student dims descending: ``[0]`` is the student width, the rest prefixes."""
        if not self.student_dims:
            return None
        return sorted(set(self.student_dims), reverse=True)

    def validate(  # type: ignore[override]
        self, *, encoder_num_heads: int, position_encoding: str
    ) -> None:
        """Check the bottleneck against the encoder it will attach to."""
        if not PositionEncoding.is_rope(position_encoding):
            raise ValueError(
                "the AttentionPooler requires a RoPE position_encoding: the "
                "location-token grid is differentiated by per-cell 2D (row, col) "
                "coordinates. A 3D encoder is fine -- the bottleneck reads with the "
                "spatial axes only."
            )
        heads = self.resolved_num_heads(encoder_num_heads)
        # With a decoupled attn_dim the heads live at that width, not at pooler_dim
        # (which only sizes the residual stream).
        attn_width = self.attn_dim if self.attn_dim is not None else self.pooler_dim
        if attn_width % heads != 0:
            raise ValueError(
                f"pooler attention width ({attn_width}) must be divisible by the "
                f"bottleneck num_heads ({heads})"
            )
        if (attn_width // heads) % 4 != 0:
            raise ValueError(
                "2D RoPE requires pooler head_dim divisible by 4, got "
                f"{attn_width // heads}"
            )
        if self.student_dims is not None:
            if len(self.student_dims) == 0 or any(d <= 0 for d in self.student_dims):
                raise ValueError(
                    "student_dims must be a non-empty list of positive ints, got "
                    f"{self.student_dims}"
                )

    def build(  # type: ignore[override]
        self,
        *,
        encoder_embedding_size: int,
        encoder_num_heads: int,
        mlp_ratio: float,
        position_encoding: str,
        rope_base: float,
        qk_norm: bool,
    ) -> "AttentionPooler":
        """Build the bottleneck module for an encoder with these settings."""
        return AttentionPooler(
            encoder_embedding_size=encoder_embedding_size,
            pooler_dim=self.pooler_dim,
            num_heads=self.resolved_num_heads(encoder_num_heads),
            mlp_ratio=mlp_ratio,
            pooler_depth=self.pooler_depth,
            use_2d_rope=PositionEncoding.is_rope(position_encoding),
            rope_base=rope_base,
            qk_norm=qk_norm,
            per_depth_read_proj=self.per_depth_read_proj,
            attn_dim=self.attn_dim,
            student_dims=self.sorted_student_dims,
            student_output_norm=self.student_output_norm,
        )


class Encoder(FlexiVitBase):
    """Encoder module that processes masked input samples into token representations."""

    cross_attn: bool = False

    def __init__(
        self,
        embedding_size: int,
        max_patch_size: int,
        min_patch_size: int,
        num_heads: int,
        mlp_ratio: float,
        depth: int,
        drop_path: float,
        supported_modalities: list[ModalitySpec],
        max_sequence_length: int,
        num_register_tokens: int = 0,
        learnable_channel_embeddings: bool = True,
        random_channel_embeddings: bool = False,
        num_projection_layers: int = 1,
        aggregate_then_project: bool = True,
        use_flash_attn: bool = False,
        frozen_patch_embeddings: bool = False,
        qk_norm: bool = False,
        log_token_norm_stats: bool = False,
        tokenization_config: TokenizationConfig | None = None,
        use_linear_patch_embed: bool = False,
        band_dropout_rate: float = 0.0,
        random_band_dropout: bool = False,
        band_dropout_modalities: list[str] | None = None,
        patch_embed_hidden_sizes: list[int] | None = None,
        post_proj_hidden_sizes: list[int] | None = None,
        position_encoding: str = "absolute",
        rope_base: float = 10000.0,
        rope_coordinate_scale: float = 1.0,
        rope_mixed_base: float = 10.0,
        temporal_rope_dim_frac: float = 0.25,
        rope_temporal_base: float | None = None,
        rope_temporal_coordinate_scale: float = 1.0,
        spatial_pos_encoding: str | None = None,
        attention_pooler_config: AttentionPoolerConfig | None = None,
    ):
        """Initialize the encoder.

        Args:
            embedding_size: Size of token embeddings
            max_patch_size: Maximum patch size for patchification
            min_patch_size: Minimum patch size for patchification
            num_heads: Number of attention heads
            mlp_ratio: Ratio for MLP hidden dimension
            depth: Number of transformer layers
            drop_path: Drop path rate
            supported_modalities: list documenting modalities used in a given model instantiation
            max_sequence_length: Maximum sequence length
            num_register_tokens: Number of register tokens to use
            learnable_channel_embeddings: Whether to use learnable channel embeddings
            random_channel_embeddings: Initialize channel embeddings randomly (zeros if False)
            num_projection_layers: The number of layers to use in the projection. If >1, then
                a ReLU activation will be applied between layers
            aggregate_then_project: If True, then we will average the tokens before applying
                the projection. If False, we will apply the projection first.
            use_flash_attn: Whether to use flash attention
            frozen_patch_embeddings: If True, we freeze the embedding layer, as recommended in
                https://arxiv.org/pdf/2104.02057, Section 4.2
            qk_norm: Whether to apply normalization to Q and K in attention
            log_token_norm_stats: Whether to log the token norm stats
            tokenization_config: Optional config for custom band groupings
            use_linear_patch_embed: If True, use nn.Linear for patch projection (faster).
                Set False to load checkpoints trained before this flag existed (Conv2d weights).
            band_dropout_rate: Probability of dropping each band channel during training.
            random_band_dropout: If True, sample dropout rate from Uniform(0, band_dropout_rate).
            band_dropout_modalities: If provided, only apply band dropout to these
                modalities. If None, apply to all modalities. Default: None.
            patch_embed_hidden_sizes: Optional per-pixel MLP applied before patchification.
                See FlexiPatchEmbed for details.
            post_proj_hidden_sizes: Optional MLP applied after the patch projection.
                See FlexiPatchEmbed for details.
            position_encoding: Position encoding mode; one of the
                ``PositionEncoding`` values.
            rope_base: Frequency base for axial RoPE.
            rope_coordinate_scale: Multiplier applied to runtime GSD-scaled RoPE coordinates.
            rope_mixed_base: Frequency base used to initialize learnable
                RoPE-Mixed frequencies.
            temporal_rope_dim_frac: Fraction of head_dim allocated to the
                temporal axis in axial 3D RoPE.
            rope_temporal_base: Optional separate frequency base for the
                temporal axis in axial 3D RoPE. ``None`` reuses ``rope_base``.
            rope_temporal_coordinate_scale: Multiplier applied to days-since-2000
                temporal RoPE coordinates (default 1.0 = raw days). E.g. set to
                1/30 for months.
            spatial_pos_encoding: Deprecated alias for ``position_encoding``.
            attention_pooler_config: If set, add an AttentionPooler: a dense spatial attention-pooling
                bottleneck (and optionally its detached student readout); see
                :class:`AttentionPoolerConfig`. Requires a RoPE position encoding.
        """
        self.tokenization_config = tokenization_config or TokenizationConfig()
        super().__init__(
            embedding_size=embedding_size,
            depth=depth,
            mlp_ratio=mlp_ratio,
            num_heads=num_heads,
            max_sequence_length=max_sequence_length,
            learnable_channel_embeddings=learnable_channel_embeddings,
            drop_path=drop_path,
            supported_modalities=supported_modalities,
            use_flash_attn=use_flash_attn,
            random_channel_embeddings=random_channel_embeddings,
            qk_norm=qk_norm,
            tokenization_config=self.tokenization_config,
            position_encoding=position_encoding,
            spatial_pos_encoding=spatial_pos_encoding,
            rope_base=rope_base,
            rope_coordinate_scale=rope_coordinate_scale,
            rope_mixed_base=rope_mixed_base,
            temporal_rope_dim_frac=temporal_rope_dim_frac,
            rope_temporal_base=rope_temporal_base,
            rope_temporal_coordinate_scale=rope_temporal_coordinate_scale,
        )
        self.num_register_tokens = num_register_tokens
        self.has_register_tokens = num_register_tokens > 0
        self.log_token_norm_stats = log_token_norm_stats
        if self.has_register_tokens:
            self.register_tokens = nn.Parameter(
                torch.zeros(num_register_tokens, embedding_size)
            )
        self.min_patch_size = min_patch_size
        self.max_patch_size = max_patch_size
        self.embedding_size = embedding_size
        self.use_linear_patch_embed = use_linear_patch_embed
        self.band_dropout_rate = band_dropout_rate
        self.random_band_dropout = random_band_dropout
        self.band_dropout_modalities = band_dropout_modalities
        self.patch_embed_hidden_sizes = patch_embed_hidden_sizes
        self.post_proj_hidden_sizes = post_proj_hidden_sizes
        # Configured rate; remains inactive until ``enable_band_dropout`` is called.
        # Default is disabled so fine-tuning never applies band dropout unless the
        # caller (e.g. pretraining online encoder) explicitly enables it.
        self.patch_embeddings = MultiModalPatchEmbeddings(
            self.supported_modality_names,
            self.max_patch_size,
            self.embedding_size,
            tokenization_config=self.tokenization_config,
            use_linear_patch_embed=self.use_linear_patch_embed,
            band_dropout_rate=0.0,
            random_band_dropout=self.random_band_dropout,
            band_dropout_modalities=self.band_dropout_modalities,
            patch_embed_hidden_sizes=self.patch_embed_hidden_sizes,
            post_proj_hidden_sizes=self.post_proj_hidden_sizes,
        )
        self.norm = nn.LayerNorm(self.embedding_size)

        self.attention_pooler_config = attention_pooler_config
        self.use_attention_pooler = attention_pooler_config is not None
        self.attention_pooler: AttentionPooler | None = None
        self.pooler_dim: int | None = None
        if attention_pooler_config is not None:
            attention_pooler_config.validate(
                encoder_num_heads=num_heads, position_encoding=self.position_encoding
            )
            self.pooler_dim = attention_pooler_config.pooler_dim
            self.attention_pooler = attention_pooler_config.build(
                encoder_embedding_size=embedding_size,
                encoder_num_heads=num_heads,
                mlp_ratio=mlp_ratio,
                position_encoding=self.position_encoding,
                rope_base=rope_base,
                qk_norm=qk_norm,
            )

        # With a bottleneck the contrastive head projects from the location tokens;
        # otherwise from the encoder patch-token output.
        self.contrastive_from_location_tokens = self.attention_pooler is not None
        # When projecting from the location tokens the head operates at the width the
        # bottleneck ships (its pooler_dim); the head reads the returned grid, not the
        # stack's residual stream. Otherwise it reads the encoder's patch tokens.
        if self.pooler_dim is not None:
            project_aggregate_embedding_size = self.pooler_dim
        else:
            project_aggregate_embedding_size = self.embedding_size
        self.project_and_aggregate = ProjectAndAggregate(
            embedding_size=project_aggregate_embedding_size,
            num_layers=num_projection_layers,
            aggregate_then_project=aggregate_then_project,
        )
        self.apply(self._init_weights)

        if frozen_patch_embeddings:
            for p in self.patch_embeddings.parameters():
                p.requires_grad = False
        if self.has_register_tokens:
            self._init_register_tokens()

        # Set by the model loading code for pretrained checkpoints: the modalities
        # the encoder actually saw during pretraining. Decode-only modalities are
        # in supported_modality_names (the decoder predicts them, so embedding
        # weights exist) but were never encoder inputs, so encoding them degrades
        # results. When set, any other modality is dropped from the input sample
        # before encoding. None (the default) disables filtering.
        self.encoder_input_modality_names: list[str] | None = None
        self._warned_dropped_modalities: set[tuple[str, ...]] = set()
        self._warned_searchlight_without_rope = False

    def restrict_input_modalities(self, modality_names: list[str]) -> None:
        """Restrict the encoder to only ingest the given modalities.

        Any other modality present in an input sample is dropped (with a warning)
        before encoding.
        """
        self.encoder_input_modality_names = list(modality_names)

    def drop_unencodable_modalities(
        self, x: MaskedOlmoEarthSample
    ) -> MaskedOlmoEarthSample:
        """Drop modalities that the encoder was not trained to ingest.

        No-op unless ``encoder_input_modality_names`` is set.
        """
        if self.encoder_input_modality_names is None:
            return x
        dropped = [
            modality
            for modality in x.modalities
            if modality not in self.encoder_input_modality_names
        ]
        if not dropped:
            return x
        warn_key = tuple(sorted(dropped))
        if warn_key not in self._warned_dropped_modalities:
            self._warned_dropped_modalities.add(warn_key)
            logger.warning(
                f"Dropping modalities {dropped} from the encoder input: this model "
                f"was only trained to encode {self.encoder_input_modality_names}."
            )
        sample_dict = x.as_dict()
        for modality in dropped:
            sample_dict[modality] = None
            sample_dict[x.get_masked_modality_name(modality)] = None
        return MaskedOlmoEarthSample(**sample_dict)

    def enable_band_dropout(self) -> None:
        """Enable band dropout using the configured rate.

        Band dropout is disabled by default so it never activates during
        fine-tuning. Call this only on the online encoder during pretraining.
        """
        self.patch_embeddings.band_dropout_rate = self.band_dropout_rate

    def _init_register_tokens(self) -> None:
        """Initialize the register tokens."""
        nn.init.xavier_uniform_(self.register_tokens)

    def create_token_exit_ids(
        self, x: dict[str, Tensor], token_exit_cfg: dict[str, int]
    ) -> dict[str, Tensor]:
        """Create the token exit ids for # of layers of attention for each band group.

        Assumes modality channel groups are in the second to last dimension of the tokens.
        """
        exit_ids_per_modality_dict = {}
        available_modalities = return_modalities_from_dict(x)
        modalities_to_process = get_modalities_to_process(
            available_modalities, self.supported_modality_names
        )
        for modality in modalities_to_process:
            num_exit_layers = token_exit_cfg[modality]
            exit_seq_modality = torch.full_like(x[modality], fill_value=num_exit_layers)
            exit_ids_per_modality_dict[modality] = exit_seq_modality
        return exit_ids_per_modality_dict

    @staticmethod
    def remove_masked_tokens(
        x: Tensor, mask: Tensor
    ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        """Remove masked tokens from the tokens and masks.

        Implementation from https://stackoverflow.com/a/68621610/2332296

        On Input:
        0 means this token should be removed
        1 means this token should be kept

        Args:
            x: Tokens to remove masked tokens from
            mask: Mask to remove masked tokens from

        Returns:
            tokens: [B, T, D]
            indices: [B, T]
            updated_mask: [B, T]
            seqlens: [B]
            max_length: [1]
            where T is the max number of unmasked tokens for an instance
        """
        sorted_mask, indices = torch.sort(mask, dim=1, descending=True, stable=True)
        # Now all the places where we want to keep the token are at the front of the tensor
        x = x.gather(1, indices[:, :, None].expand_as(x))
        # Now all tokens that should be kept are first in the tensor

        # set masked values to 0 (not really necessary since we'll ignore them anyway)
        x = x * sorted_mask.unsqueeze(-1)

        # cut off to the length of the longest sequence
        seq_lengths = sorted_mask.sum(-1)
        max_length = seq_lengths.max()
        x = x[:, :max_length]
        # New mask chopped to the longest sequence
        updated_mask = sorted_mask[:, :max_length]

        return x, indices, updated_mask, seq_lengths, max_length

    @staticmethod
    def add_removed_tokens(
        x: Tensor, indices: Tensor, mask: Tensor
    ) -> tuple[Tensor, Tensor]:
        """Add removed tokens to the tokens and masks.

        Args:
            x: Tokens to add removed tokens to
            indices: Original indices of the masked tokens
            mask: Mask to add removed tokens to

        Returns:
            tokens: Tokens with removed tokens added
            mask: Mask with removed tokens added
        """
        assert x.shape[1] > 0, (
            "x must have at least one token we should not mask all tokens"
        )
        masked_tokens = repeat(
            torch.zeros_like(x[0, 0, :]), "d -> b t d", b=x.shape[0], t=indices.shape[1]
        )
        full_mask = torch.cat(
            (
                mask,
                torch.zeros(
                    (x.shape[0], indices.shape[1] - x.shape[1]),
                    device=x.device,
                    dtype=mask.dtype,
                ),
            ),
            dim=-1,
        )
        # can't set value on leaf variable
        out = masked_tokens.clone()
        # put tokens in full masked tensor (at the first N positions in every row)
        out[full_mask] = x[mask]
        # then move them to their original positions
        out = out.scatter(1, indices[:, :, None].expand_as(out), out)
        full_mask = full_mask.scatter(1, indices.expand_as(full_mask), full_mask)
        # Values that were masked out are not returned but the values that are still there are returned to the original positions
        return out, full_mask

    def create_exit_seqs(
        self,
        tokens_only_dict: dict[str, Tensor],
        mask_only_dict: dict[str, Tensor],
        token_exit_cfg: dict[str, int] | None,
    ) -> tuple[Tensor | None]:
        """Create the exit sequences and tokens."""
        # Check that tokens_only_dict doesn't contain any mask keys
        assert all(not key.endswith("_mask") for key in tokens_only_dict), (
            "tokens_only_dict should not contain mask keys"
        )
        if token_exit_cfg:
            exit_ids_per_modality = self.create_token_exit_ids(
                tokens_only_dict, token_exit_cfg
            )
            exit_ids_per_modality.update(mask_only_dict)
            # Exit ids seqs tells us which layer to exit each token
            exit_ids_seq, _ = self.collapse_and_combine_hwtc(exit_ids_per_modality)
        else:
            exit_ids_seq = None
        return exit_ids_seq

    def _maybe_get_attn_mask(
        self,
        new_mask: Tensor,
        fast_pass: bool,
    ) -> Tensor | None:
        """Get the attention mask or None if we should pass None to the transformer."""
        if fast_pass or not self.training:
            return None
        else:
            return new_mask

    def add_register_tokens_and_masks(
        self,
        tokens: Tensor,
        attn_mask: Tensor | None,
        processed_register_tokens: Tensor | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        """Concatenate register tokens to the tokens."""
        batch_size = tokens.shape[0]
        # Expand register tokens to match batch size: [num_register_tokens, embedding_size] -> [batch_size, num_register_tokens, embedding_size]
        if processed_register_tokens is None:
            reg_tokens = self.register_tokens.unsqueeze(0).expand(batch_size, -1, -1)
        else:
            reg_tokens = processed_register_tokens
        # Concatenate register tokens at the beginning: [batch_size, seq_len, embedding_size] -> [batch_size, num_register_tokens + seq_len, embedding_size]
        tokens = torch.cat([reg_tokens, tokens], dim=1)
        if attn_mask is not None:
            # Create mask for register tokens (all True - they should participate in attention)
            reg_mask = torch.ones(
                batch_size,
                self.num_register_tokens,
                dtype=attn_mask.dtype,
                device=attn_mask.device,
            )
            attn_mask = torch.cat([reg_mask, attn_mask], dim=1)
        else:
            reg_mask = None
        return tokens, attn_mask

    def pop_register_tokens(self, tokens: Tensor) -> tuple[Tensor, Tensor]:
        """Pop the register tokens from the tokens."""
        register_tokens = tokens[:, : self.num_register_tokens, :]
        tokens = tokens[:, self.num_register_tokens :, :]
        return tokens, register_tokens

    def get_token_norm_stats(
        self, tokens: Tensor, register_tokens: Tensor
    ) -> dict[str, float]:
        """Get the token norm stats."""
        # Compute norms for register tokens: [batch_size, num_register_tokens]
        register_tokens_norms = torch.norm(register_tokens, dim=2)
        reg_norms_flat = register_tokens_norms.flatten()
        reg_stats = {
            "register_mean": reg_norms_flat.mean().item(),
            "register_min": reg_norms_flat.min().item(),
            "register_max": reg_norms_flat.max().item(),
        }

        # Compute norms for non-register tokens: [batch_size, seq_len]
        nonreg_tokens_norms = torch.norm(tokens, dim=2)
        nonreg_norms_flat = nonreg_tokens_norms.flatten()
        percentiles = [25.0, 75.0, 90.0, 95.0, 99.0]
        nonreg_percentiles = torch.quantile(
            nonreg_norms_flat.float(),
            torch.tensor(
                [p / 100.0 for p in percentiles], device=nonreg_norms_flat.device
            ),
        ).tolist()
        nonreg_stats = {
            "nonregister_mean": nonreg_norms_flat.mean().item(),
            "nonregister_min": nonreg_norms_flat.min().item(),
            "nonregister_max": nonreg_norms_flat.max().item(),
            "nonregister_std": nonreg_norms_flat.std().item(),
            "nonregister_25th": nonreg_percentiles[0],
            "nonregister_75th": nonreg_percentiles[1],
            "nonregister_90th": nonreg_percentiles[2],
            "nonregister_95th": nonreg_percentiles[3],
            "nonregister_99th": nonreg_percentiles[4],
        }

        token_norm_stats = {**reg_stats, **nonreg_stats}
        return token_norm_stats

    def _maybe_remove_masked_tokens(
        self,
        tokens: Tensor,
        mask: Tensor,
        fast_pass: bool,
    ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        """Remove masked tokens from the tokens and masks."""
        if fast_pass and not self.use_flash_attn:
            # This is the inference fast pass
            indices = None
            new_mask = None
            seq_lengths = None
            max_seqlen = None
            bool_mask = None
        else:
            bool_mask = mask == MaskValue.ONLINE_ENCODER.value
            tokens, indices, new_mask, seq_lengths, max_seqlen = (
                self.remove_masked_tokens(tokens, bool_mask)
            )
        return tokens, indices, new_mask, seq_lengths, max_seqlen, bool_mask

    def _maybe_add_removed_tokens(
        self,
        tokens: Tensor,
        indices: Tensor,
        mask: Tensor,
        fast_pass: bool,
    ) -> Tensor:
        """Add removed tokens to the tokens and masks."""
        if not fast_pass:
            tokens, _ = self.add_removed_tokens(tokens, indices, mask)
        return tokens

    def apply_attn(
        self,
        x: dict[str, Tensor],
        timestamps: Tensor,
        patch_size: int,
        input_res: int,
        token_exit_cfg: dict[str, int] | None = None,
        fast_pass: bool = False,
        location_query_patch_size: int | None = None,
        searchlight: "SearchlightSettings | None" = None,
    ) -> tuple[dict[str, Tensor], dict[str, Any] | None, dict[str, Any] | None]:
        """Apply the attention to the tokens and masks.

        ``location_query_patch_size`` sets the AttentionPooler's location-query grid
        (see :meth:`AttentionPooler.forward`); it requires an AttentionPooler. ``searchlight`` runs the
        attention under a sliding neighborhood (``nn/searchlight.py``).
        """
        if location_query_patch_size is not None and self.attention_pooler is None:
            raise ValueError(
                "location_query_patch_size requires an encoder with an AttentionPooler"
            )
        tokens_only_dict, original_masks_dict, modalities_to_dims_dict = (
            self.split_tokens_masks_and_dims(x)
        )
        # already a no-op but we could remove entirely
        exit_ids_seq = self.create_exit_seqs(
            tokens_only_dict, original_masks_dict, token_exit_cfg
        )
        # exited tokens are just the linear projection
        exited_tokens, _ = self.collapse_and_combine_hwtc(x)

        tokens_dict = self.composite_encodings.forward(
            tokens_only_dict,
            timestamps,
            patch_size,
            input_res,
        )
        positions = self.build_rope_positions(
            tokens_only_dict,
            original_masks_dict,
            patch_size,
            input_res,
            timestamps=timestamps,
        )
        # Full (pre-masking) positions in collapsed order, kept for the AttentionPooler
        # read so the location queries attend over the encoded *visible* patch tokens
        # using their original coordinates (`positions` below is reduced/packed in place).
        pooler_kv_positions = positions
        # The location-token grid has no temporal axis, so the bottleneck reads with 2D
        # (row, col) positions even when the encoder self-attention uses 3D RoPE: drop
        # the leading temporal coordinate (3D positions are ``(t, row, col)``). This
        # does not touch `positions`, which the encoder blocks still use for full 3D
        # RoPE.
        if pooler_kv_positions is not None and PositionEncoding.is_3d_rope(
            self.position_encoding
        ):
            pooler_kv_positions = pooler_kv_positions[..., 1:]

        tokens_dict.update(original_masks_dict)
        tokens, mask = self.collapse_and_combine_hwtc(tokens_dict)

        if searchlight is not None and positions is None:
            # Searchlight's neighborhoods follow RoPE positions; absolute encodings have none.
            if not self._warned_searchlight_without_rope:
                self._warned_searchlight_without_rope = True
                logger.warning(
                    f"Searchlight needs a RoPE position encoding, not {self.position_encoding!r}; "
                    "running the standard forward"
                )
            searchlight = None

        if searchlight is not None:
            from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.nn.searchlight import (
                encoder_searchlight,
            )

            # Searchlight replaces batching with one large domain per forward: the
            # sample is a whole area ([1, H, W, T, C], H and W any multiple of the
            # patch size), and the parallelism comes from its millions of tokens.
            # Larger areas are run in pieces by searchlight.embed_domain.
            if tokens.shape[0] != 1:
                raise ValueError(
                    "Searchlight runs one domain per forward (batch size 1), "
                    f"got batch size {tokens.shape[0]}"
                )

            return encoder_searchlight(
                self,
                searchlight,
                tokens,
                mask,
                positions,
                tokens_only_dict,
                original_masks_dict,
                modalities_to_dims_dict,
                patch_size,
                input_res,
                location_query_patch_size,
            )

        tokens, indices, new_mask, seq_lengths, max_seqlen, bool_mask = (
            self._maybe_remove_masked_tokens(tokens, mask, fast_pass)
        )
        if positions is not None and bool_mask is not None:
            positions, _, _, _, _ = self.remove_masked_tokens(positions, bool_mask)

        if exit_ids_seq is not None:
            exit_ids_seq, _, _, _, _ = self.remove_masked_tokens(
                exit_ids_seq, bool_mask
            )
            # still linear projections
            exited_tokens, _, _, _, _ = self.remove_masked_tokens(
                exited_tokens, bool_mask
            )

        # Pack x tokens
        if self.use_flash_attn:
            cu_seqlens = get_cumulative_sequence_lengths(seq_lengths)
            og_shape = tokens.shape
            tokens = self.pack_tokens(tokens, new_mask)
            if positions is not None:
                positions = self.pack_tokens(positions, new_mask)
        else:
            cu_seqlens = None

        attn_mask = self._maybe_get_attn_mask(
            new_mask,
            fast_pass=fast_pass,
        )

        if self.has_register_tokens:
            tokens, attn_mask = self.add_register_tokens_and_masks(tokens, attn_mask)
            if positions is not None:
                positions = self.add_register_positions(positions)

        # Apply attn with varying encoder depths
        for i_blk, blk in enumerate(self.blocks):
            # Skip the zeroth block because we want to use the exited tokens that don't have encodings as this allows trivial solution of predicting the shared encodings
            if (exit_ids_seq is not None) and (i_blk > 0):
                # this should only ever be called by the target encoder,
                # in a torch.no_grad context
                assert exited_tokens is not None
                # If a token should exit, then we update the exit token with the current token at the same position
                exited_tokens = torch.where(
                    condition=(exit_ids_seq == i_blk),
                    input=tokens,
                    other=exited_tokens,
                )
            # we take the inverse of the mask because a value
            # of True indicates the value *should* take part in
            # attention
            # WARNING: THIS MAY CHANGE DEPENDING ON THE ATTENTION IMPLEMENTATION

            tokens = blk(
                x=tokens,
                cu_seqlens=cu_seqlens,
                max_seqlen=max_seqlen,
                # we will have to specify k and q lens for cross attention
                attn_mask=attn_mask,
                rope_positions=positions,
            )

        if self.has_register_tokens:
            tokens, register_tokens = self.pop_register_tokens(tokens)
            token_norm_stats = (
                self.get_token_norm_stats(tokens, register_tokens)
                if self.log_token_norm_stats
                else None
            )
        else:
            token_norm_stats = None

        if self.use_flash_attn:
            tokens = self.unpack_tokens(tokens, new_mask, og_shape)

        if exit_ids_seq is not None:
            # this should only ever be called by the target encoder,
            # in a torch.no_grad context
            assert exited_tokens is not None
            # full depth
            # IMPORTANT: write this to x
            tokens = torch.where(
                condition=(exit_ids_seq == (i_blk + 1)),  # 2 for full depth
                input=tokens,
                other=exited_tokens,
            )
        # we apply the norm before we add the removed tokens,
        # so that the norm is only computed against "real" tokens
        tokens = self.norm(tokens)
        # we don't care about the mask returned by add_removed_tokens, since we will
        # just use the original, unclipped mask here
        tokens = self._maybe_add_removed_tokens(tokens, indices, new_mask, fast_pass)

        location_token_output = None
        if self.attention_pooler is not None:
            spatial_grid = self._patch_grid_hw(tokens_only_dict)
            location_tokens, location_query_positions, student_location_tokens = (
                self.attention_pooler(
                    patch_tokens=tokens,
                    patch_positions=pooler_kv_positions,
                    visible_mask=bool_mask,
                    spatial_grid=spatial_grid,
                    patch_size=patch_size,
                    gsd_ratio=CompositeEncodings.calculate_gsd_ratio(
                        input_res, patch_size
                    )
                    * self.rope_coordinate_scale,
                    location_query_patch_size=location_query_patch_size,
                )
            )
            location_token_output = {
                "location_tokens": location_tokens,
                "location_query_positions": location_query_positions,
            }
            if student_location_tokens is not None:
                location_token_output["student_location_tokens"] = (
                    student_location_tokens
                )

        tokens_per_modality_dict = self.split_and_expand_per_modality(
            tokens, modalities_to_dims_dict
        )
        # merge original masks and the processed tokens
        tokens_per_modality_dict.update(original_masks_dict)
        return tokens_per_modality_dict, token_norm_stats, location_token_output

    def forward(
        self,
        x: MaskedOlmoEarthSample,
        patch_size: int,
        input_res: int = BASE_GSD,
        token_exit_cfg: dict | None = None,
        fast_pass: bool = False,
        location_query_patch_size: int | None = None,
        searchlight: "SearchlightSettings | None" = None,
    ) -> dict[str, Any]:
        """Process masked input samples into token representations.

        Args:
            x: Masked input sample containing the data to be encoded
            patch_size: Size of patches to divide the input into
            input_res: Resolution of the input data
            token_exit_cfg: Configuration for token exit
            fast_pass: Whether to always pass None as the mask to the transformer, this enables torch based flash attention, and skips mask construciton and sorting
            location_query_patch_size: Pixels per location query along each side; must
                divide ``patch_size``. None = one location query per token. Requires a
                AttentionPooler.
            searchlight: Inference only: every token and location query attends within its
                own sliding neighborhood over one whole domain (batch size 1),
                instead of the window it was cropped to. None = the stock forward.
                See ``nn/searchlight.py``; ``searchlight.embed_domain`` runs large
                areas in pieces.

        Returns:
            TokensAndMasks containing the encoded representations and their masks
        """
        if fast_pass and token_exit_cfg is not None:
            raise ValueError("token_exit_cfg cannot be set when fast_pass is True")

        x = self.drop_unencodable_modalities(x)
        patchified_tokens_and_masks = self.patch_embeddings.forward(x, patch_size)
        location_token_output: dict[str, Any] | None = None
        token_norm_stats: dict[str, Any] | None = None
        if token_exit_cfg is None or any(
            [exit_depth > 0 for exit_depth in token_exit_cfg.values()]
        ):
            patchified_tokens_and_masks, token_norm_stats, location_token_output = (
                self.apply_attn(
                    x=patchified_tokens_and_masks,
                    timestamps=x.timestamps,
                    patch_size=patch_size,
                    input_res=input_res,
                    token_exit_cfg=token_exit_cfg,
                    fast_pass=fast_pass,
                    location_query_patch_size=location_query_patch_size,
                    searchlight=searchlight,
                )
            )
        else:
            token_norm_stats = {}
        output = TokensAndMasks(**patchified_tokens_and_masks)
        output_dict: dict[str, Any] = {
            "tokens_and_masks": output,
        }
        if token_norm_stats:
            output_dict["token_norm_stats"] = token_norm_stats

        if location_token_output is not None:
            output_dict["location_tokens"] = location_token_output["location_tokens"]
            output_dict["location_query_positions"] = location_token_output[
                "location_query_positions"
            ]
            if "student_location_tokens" in location_token_output:
                output_dict["student_location_tokens"] = location_token_output[
                    "student_location_tokens"
                ]

        if not fast_pass:
            if self.contrastive_from_location_tokens:
                # The contrastive projection reads the location tokens (only) and is sized
                # to pooler_dim. Location tokens are produced whenever attention runs (the
                # standard, token_exit_cfg=None pass); the only path that skips them is the
                # all-zero-exit target pass, which discards project_aggregated anyway.
                if location_token_output is not None:
                    output_dict["project_aggregated"] = self.project_and_aggregate(
                        location_token_output["location_tokens"]
                    )
            else:
                # No bottleneck: project from the encoder's patch-token output
                # (masked-mean pooled).
                output_dict["project_aggregated"] = self.project_and_aggregate(output)
        return output_dict

    def apply_fsdp(self, **fsdp_kwargs: Any) -> None:
        """Apply FSDP to the model."""
        super().apply_fsdp(**fsdp_kwargs)
        # Don't Shard the small layers
        # fully_shard(self.patch_embeddings, **fsdp_kwargs)
        # register_fsdp_forward_method(self.patch_embeddings, "forward")
        # fully_shard(self.project_and_aggregate, **fsdp_kwargs)
        # register_fsdp_forward_method(self.project_and_aggregate, "forward")
        fully_shard(self, **fsdp_kwargs)

    def apply_compile(self) -> None:
        """Apply torch.compile to the model."""
        # self.compile(mode="max-autotune", dynamic=False, fullgraph=True)
        logger.info("Compiling blocks")
        # torch.compile(self.blocks, dynamic=False, mode="max-autotune", fullgraph=True)
        # individual block compile is still a lot slower
        for block in self.blocks:
            block.apply_compile()
        # torch.compile(self.patch_embeddings, dynamic=False, mode="max-autotune-no-cudagraphs", fullgraph=True)


class PredictorBase(FlexiVitBase):
    """Predictor module that generates predictions from encoded tokens."""

    cross_attn = True

    def __init__(
        self,
        supported_modalities: list[ModalitySpec],
        encoder_embedding_size: int = 128,
        decoder_embedding_size: int = 128,
        depth: int = 2,
        mlp_ratio: float = 2.0,
        num_heads: int = 8,
        max_sequence_length: int = 24,
        drop_path: float = 0.0,
        learnable_channel_embeddings: bool = True,
        random_channel_embeddings: bool = False,
        output_embedding_size: int | None = None,
        use_flash_attn: bool = False,
        qk_norm: bool = False,
        tokenization_config: TokenizationConfig | None = None,
        position_encoding: str = "absolute",
        rope_base: float = 10000.0,
        rope_coordinate_scale: float = 1.0,
        rope_mixed_base: float = 10.0,
        temporal_rope_dim_frac: float = 0.25,
        rope_temporal_base: float | None = None,
        rope_temporal_coordinate_scale: float = 1.0,
        spatial_pos_encoding: str | None = None,
        use_attention_pooler: bool = False,
        pooler_dim: int | None = None,
    ):
        """Initialize the predictor.

        Args:
            supported_modalities: modalities this model instantiation supports
            encoder_embedding_size: Size of encoder embeddings
            decoder_embedding_size: Size of decoder embeddings
            depth: Number of transformer layers
            mlp_ratio: Ratio for MLP hidden dimension
            num_heads: Number of attention heads
            max_sequence_length: Maximum sequence length
            drop_path: Drop path rate
            learnable_channel_embeddings: Whether to use learnable channel embeddings
            random_channel_embeddings: Whether to randomly initialize channel embeddings
            output_embedding_size: Size of output embeddings
            use_flash_attn: Whether to use flash attention
            qk_norm: Whether to apply normalization to Q and K in attention
            tokenization_config: Optional config for custom band groupings
            position_encoding: Position encoding mode; one of the
                ``PositionEncoding`` values.
            rope_base: Frequency base for axial RoPE.
            rope_coordinate_scale: Multiplier applied to runtime GSD-scaled RoPE coordinates.
            rope_mixed_base: Frequency base used to initialize learnable
                RoPE-Mixed frequencies.
            temporal_rope_dim_frac: Fraction of head_dim allocated to the
                temporal axis in axial 3D RoPE.
            rope_temporal_base: Optional separate frequency base for the
                temporal axis in axial 3D RoPE. ``None`` reuses ``rope_base``.
            rope_temporal_coordinate_scale: Multiplier applied to days-since-2000
                temporal RoPE coordinates (default 1.0 = raw days). E.g. set to
                1/30 for months.
            spatial_pos_encoding: Deprecated alias for ``position_encoding``.
            use_attention_pooler: If True, the decoder cross-attends to the encoder
                location-token grid instead of the visible patch tokens.
            pooler_dim: Width of the location-token grid; required when use_attention_pooler.
        """
        self.tokenization_config = tokenization_config or TokenizationConfig()
        super().__init__(
            embedding_size=decoder_embedding_size,
            depth=depth,
            mlp_ratio=mlp_ratio,
            num_heads=num_heads,
            max_sequence_length=max_sequence_length,
            drop_path=drop_path,
            learnable_channel_embeddings=learnable_channel_embeddings,
            random_channel_embeddings=random_channel_embeddings,
            supported_modalities=supported_modalities,
            use_flash_attn=use_flash_attn,
            qk_norm=qk_norm,
            tokenization_config=self.tokenization_config,
            position_encoding=position_encoding,
            spatial_pos_encoding=spatial_pos_encoding,
            rope_base=rope_base,
            rope_coordinate_scale=rope_coordinate_scale,
            rope_mixed_base=rope_mixed_base,
            temporal_rope_dim_frac=temporal_rope_dim_frac,
            rope_temporal_base=rope_temporal_base,
            rope_temporal_coordinate_scale=rope_temporal_coordinate_scale,
        )
        self.learnable_channel_embeddings = learnable_channel_embeddings
        self.random_channel_embeddings = random_channel_embeddings
        self.encoder_embedding_size = encoder_embedding_size
        self.encoder_to_decoder_embed = nn.Linear(
            encoder_embedding_size, decoder_embedding_size, bias=True
        )
        if output_embedding_size is None:
            output_embedding_size = encoder_embedding_size
        self.output_embedding_size = output_embedding_size
        self.to_output_embed = nn.Linear(
            decoder_embedding_size, output_embedding_size, bias=True
        )
        # THIS is the learnable mask token
        self.mask_token = nn.Parameter(torch.zeros(decoder_embedding_size))

        self.input_norm = nn.LayerNorm(encoder_embedding_size)
        self.norm = nn.LayerNorm(decoder_embedding_size)

        self.use_attention_pooler = use_attention_pooler
        self.location_tokens_to_decoder_embed: nn.Linear | None = None
        if use_attention_pooler:
            if pooler_dim is None:
                raise ValueError(
                    "pooler_dim is required when use_attention_pooler is True"
                )
            self.location_tokens_to_decoder_embed = nn.Linear(
                pooler_dim, decoder_embedding_size, bias=True
            )

        self.apply(self._init_weights)

    def add_masks(self, x: dict[str, Tensor]) -> dict[str, Tensor]:
        """Replace tokens that should be decoded (MaskValue.DECODER_ONLY) with the learnable mask token.

        in a dimension-agnostic way using einops. We assume the final dimension of each token tensor
        is the embedding dimension matching self.mask_token's size.
        """
        output_dict = {}
        available_modalities = return_modalities_from_dict(x)
        modalities_to_process = get_modalities_to_process(
            available_modalities, self.supported_modality_names
        )
        for modality in modalities_to_process:
            x_modality = x[modality]
            mask_name = MaskedOlmoEarthSample.get_masked_modality_name(modality)
            mask_modality = x[mask_name]
            # A boolean mask: True where tokens must be replaced by the mask token
            kept_mask = mask_modality == MaskValue.DECODER.value

            # Build the einops pattern and dimension dict
            spatial_dims = x_modality.shape[
                :-1
            ]  # all dimensions except the last (embedding)
            pattern_input, dim_dict = self._construct_einops_pattern(spatial_dims)

            mask_token_broadcasted = repeat(self.mask_token, pattern_input, **dim_dict)

            # Where kept_mask is True, use the broadcasted mask token
            x_modality = torch.where(
                kept_mask.unsqueeze(-1).bool(), mask_token_broadcasted, x_modality
            )

            output_dict[modality] = x_modality

        return output_dict

    # TODO: GIVE more explicit function names
    @staticmethod
    def split_x_y(tokens: Tensor, mask: Tensor) -> tuple[Tensor, ...]:
        """Splits tokens into three groups based on mask values.

        This function:
        1. Sorts tokens according to the mask and gathers them in order.
        2. Chooses tokens to be decoded (x) based on the mask value DECODER.
        3. Chooses tokens to be used as context (y) based on the mask value ONLINE_ENCODER.
        4. Identifies missing tokens (z) based on the mask value MISSING.
        5. Returns boolean masks for x, y, and z along with indices to revert to the original ordering.

        Args:
            tokens: Tokens to split of shape [B, T, D].
            mask: Mask of shape [B, T].

        Returns:
            tokens_to_decode: Tokens to be decoded of shape [B, X_len, D].
            unmasked_tokens: Tokens to be used as context of shape [B, Y_len, D].
            tokens_to_decode_mask: Binary mask for x tokens of shape [B, X_len].
            unmasked_tokens_mask: Binary mask for y tokens of shape [B, Y_len].
            indices: Indices for restoring the original token ordering of shape [B, T].
            seqlens_tokens_to_decode: Sequence lengths of tokens to decode of shape [B].
            seqlens_unmasked_tokens: Sequence lengths of unmasked tokens of shape [B].
            max_length_of_decoded_tokens: Maximum length of decoded tokens of shape [1].
            max_length_of_unmasked_tokens: Maximum length of unmasked tokens of shape [1].
        """
        # Set Missing Masks to Target Encoder ONLY so that we can have all unused tokens in the middle
        org_mask_dtype = mask.dtype
        missing_mask = mask == MaskValue.MISSING.value
        mask[missing_mask] = MaskValue.TARGET_ENCODER_ONLY.value

        # Sort tokens by mask value (descending order)
        sorted_mask, indices = torch.sort(
            mask.int(), dim=1, descending=True, stable=True
        )
        tokens = tokens.gather(1, indices[:, :, None].expand_as(tokens))

        # Create binary masks for Encoder and Decoder
        binarized_decoder_mask = sorted_mask == MaskValue.DECODER.value
        binarized_online_encoder_mask = sorted_mask == MaskValue.ONLINE_ENCODER.value

        seqlens_unmasked_tokens = binarized_online_encoder_mask.sum(dim=-1)
        max_length_of_unmasked_tokens = seqlens_unmasked_tokens.max()
        seqlens_tokens_to_decode = binarized_decoder_mask.sum(dim=-1)
        max_length_of_decoded_tokens = seqlens_tokens_to_decode.max()

        # the y mask is going to be used to determine which of the y values take. True values
        # take part in the attention (we don't take the inverse here, unlike in the decoder)
        tokens_to_decode = tokens[:, :max_length_of_decoded_tokens]
        tokens_to_decode_mask = binarized_decoder_mask[
            :, :max_length_of_decoded_tokens
        ].to(org_mask_dtype)

        unmasked_tokens = tokens[:, -max_length_of_unmasked_tokens:]
        # the x_mask is just going to be used in the reconstruction, to know which
        # x tokens to add back into the token list. TODO is this even necessary? it could
        # get padded with noise tokens since we don't care about reconstruction at all
        # for a whole bunch of tokens
        unmasked_tokens_mask = binarized_online_encoder_mask[
            :, -max_length_of_unmasked_tokens:
        ].to(org_mask_dtype)

        return (
            tokens_to_decode,
            unmasked_tokens,
            tokens_to_decode_mask,
            unmasked_tokens_mask,
            indices,
            seqlens_tokens_to_decode,
            seqlens_unmasked_tokens,
            max_length_of_decoded_tokens,
            max_length_of_unmasked_tokens,
        )

    @staticmethod
    def combine_x_y(
        tokens_to_decode: Tensor,
        unmasked_tokens: Tensor,
        tokens_to_decode_mask: Tensor,
        unmasked_tokens_mask: Tensor,
        indices: Tensor,
    ) -> Tensor:
        """Reintegrate the separated token sequences into their original order.

        The token masks zero out positions which are not used/needed,
        and the final scatter step re-applies the original ordering tracked in 'indices'.

        Args:
            tokens_to_decode: Key/value tokens of shape [B, X_len, D].
            unmasked_tokens: Query tokens of shape [B, Y_len, D].
            tokens_to_decode_mask: Binary mask for tokens to decode of shape [B, X_len].
            unmasked_tokens_mask: Binary mask for unmasked tokens of shape [B, Y_len].
            indices: Indices for restoring the original token ordering of shape [B, T].

        Returns:
            A merged tokens tensor of shape [B, T, D] with all tokens in their
            original positions.
        """
        # Get dimensions
        B, T = indices.shape[0], indices.shape[1]
        D = tokens_to_decode.shape[-1]
        tokens = torch.zeros(
            (B, T, D), dtype=tokens_to_decode.dtype, device=tokens_to_decode.device
        )
        tokens[:, -unmasked_tokens.shape[1] :] = (
            unmasked_tokens * unmasked_tokens_mask.unsqueeze(-1)
        )
        tokens[:, : tokens_to_decode.shape[1]] += (
            tokens_to_decode * tokens_to_decode_mask.unsqueeze(-1)
        )
        tokens = tokens.scatter(1, indices[:, :, None].expand_as(tokens), tokens)
        return tokens

    def is_any_data_to_be_decoded(self, modality_mask: Tensor) -> bool:
        """Check if any data is to be decoded for a given modality."""
        return (MaskValue.DECODER.value == modality_mask).any()

    def apply_fsdp(self, **fsdp_kwargs: Any) -> None:
        """Apply FSDP to the model."""
        super().apply_fsdp(**fsdp_kwargs)
        fully_shard(self, **fsdp_kwargs)


class Predictor(PredictorBase):
    """Predictor module that generates predictions from encoded tokens."""

    cross_attn = True

    def apply_attn(
        self,
        x: dict[str, Tensor],
        timestamps: Tensor,
        patch_size: int,
        input_res: int,
        location_tokens: Tensor | None = None,
        location_query_positions: Tensor | None = None,
    ) -> dict[str, Tensor]:
        """Apply attention to the tokens."""
        tokens_only_dict, original_masks_dict, modalities_to_dims_dict = (
            self.split_tokens_masks_and_dims(x)
        )
        tokens_dict = self.composite_encodings(
            tokens_only_dict, timestamps, patch_size, input_res
        )
        positions = self.build_rope_positions(
            tokens_only_dict,
            original_masks_dict,
            patch_size,
            input_res,
            timestamps=timestamps,
        )
        tokens_dict.update(original_masks_dict)
        all_tokens, mask = self.collapse_and_combine_hwtc(tokens_dict)
        # X contains the tokens to decode, Y contains the tokens to attend to for context
        (
            tokens_to_decode,
            unmasked_tokens,
            tokens_to_decode_mask,
            unmasked_tokens_mask,
            indices,
            seqlens_tokens_to_decode,
            seqlens_unmasked_tokens,
            max_length_of_tokens_to_decode,
            max_length_of_unmasked_tokens,
        ) = self.split_x_y(all_tokens, mask)
        if positions is not None:
            positions_to_decode, unmasked_positions = self.split_x_y_positions(
                positions,
                indices,
                max_length_of_tokens_to_decode,
                max_length_of_unmasked_tokens,
            )
        else:
            positions_to_decode = None
            unmasked_positions = None
        # Pack x tokens
        if self.use_flash_attn:
            og_shape_tokens_to_decode = tokens_to_decode.shape
            tokens_to_decode = self.pack_tokens(
                tokens_to_decode, tokens_to_decode_mask.bool()
            )
            if positions_to_decode is not None:
                positions_to_decode = self.pack_tokens(
                    positions_to_decode, tokens_to_decode_mask.bool()
                )
            og_shape_unmasked_tokens = unmasked_tokens.shape
            unmasked_tokens = self.pack_tokens(
                unmasked_tokens, unmasked_tokens_mask.bool()
            )
            if unmasked_positions is not None:
                unmasked_positions = self.pack_tokens(
                    unmasked_positions, unmasked_tokens_mask.bool()
                )
            cu_seqlens_tokens_to_decode = get_cumulative_sequence_lengths(
                seqlens_tokens_to_decode
            )
            cu_seqlens_unmasked_tokens = get_cumulative_sequence_lengths(
                seqlens_unmasked_tokens
            )
        else:
            cu_seqlens_tokens_to_decode = None
            cu_seqlens_unmasked_tokens = None

        # Decoder context: either the visible patch tokens (default) or, for the AttentionPooler,
        # the encoder location-token grid (projected to the decoder dim). The decode
        # queries are mask tokens at masked-patch coords; they attend only to this context.
        if location_tokens is not None:
            if self.location_tokens_to_decoder_embed is None:
                raise ValueError(
                    "Predictor received location_tokens but was built without "
                    "use_attention_pooler=True"
                )
            # Cross-attention consumes a token sequence, so flatten the grid here.
            # location_query_positions is already flat and in the same row-major order.
            context = self.location_tokens_to_decoder_embed(
                rearrange(location_tokens, "b h w d -> b (h w) d")
            )
            context_positions = location_query_positions
            batch_size, num_location_tokens = context.shape[0], context.shape[1]
            if self.use_flash_attn:
                # Every location token is valid, so "packing" for varlen is just a flatten --
                # a view, not the gather pack_tokens does for a real validity mask --
                # and every sample contributes the same num_location_tokens keys, so
                # cu_seqlens is a fixed stride.
                context = torch.flatten(context, end_dim=1)
                if context_positions is not None:
                    context_positions = torch.flatten(context_positions, end_dim=1)
                cu_seqlens_context = get_cumulative_sequence_lengths(
                    torch.full(
                        (batch_size,),
                        num_location_tokens,
                        dtype=torch.int32,
                        device=context.device,
                    )
                )
            else:
                cu_seqlens_context = None
            max_length_of_context = num_location_tokens
            context_attn_mask = None
        else:
            context = unmasked_tokens
            context_positions = unmasked_positions
            cu_seqlens_context = cu_seqlens_unmasked_tokens
            max_length_of_context = max_length_of_unmasked_tokens
            context_attn_mask = (
                unmasked_tokens_mask.bool() if not self.use_flash_attn else None
            )

        for blk in self.blocks:
            # note that we are not taking the inverse of the mask, since split_x_y gives us
            # true values for values we want to take part in attention
            tokens_to_decode = blk(
                x=tokens_to_decode,
                y=context,
                attn_mask=context_attn_mask,
                cu_seqlens_q=cu_seqlens_tokens_to_decode,
                cu_seqlens_k=cu_seqlens_context,
                max_seqlen_q=max_length_of_tokens_to_decode,
                max_seqlen_k=max_length_of_context,
                rope_positions=positions_to_decode,
                rope_positions_y=context_positions,
            )

        if self.use_flash_attn:
            tokens_to_decode = self.unpack_tokens(
                tokens_to_decode,
                tokens_to_decode_mask.bool(),
                og_shape_tokens_to_decode,
            )
            unmasked_tokens = self.unpack_tokens(
                unmasked_tokens, unmasked_tokens_mask.bool(), og_shape_unmasked_tokens
            )

        x = self.combine_x_y(
            tokens_to_decode=tokens_to_decode,
            unmasked_tokens=unmasked_tokens,
            tokens_to_decode_mask=tokens_to_decode_mask,
            unmasked_tokens_mask=unmasked_tokens_mask,
            indices=indices,
        )
        tokens_per_modality_dict = self.split_and_expand_per_modality(
            x, modalities_to_dims_dict
        )
        tokens_per_modality_dict.update(original_masks_dict)
        return tokens_per_modality_dict

    def forward(
        self,
        x: TokensAndMasks,
        timestamps: Tensor,
        patch_size: int,
        input_res: int = BASE_GSD,
        location_tokens: Tensor | None = None,
        location_query_positions: Tensor | None = None,
    ) -> TokensAndMasks:
        """Generate predictions from encoded token representations.

        Args:
            x: TokensAndMasks containing the encoded tokens to make predictions from
            timestamps: Timestamps of the tokens
            patch_size: Patch size of the tokens
            input_res: Input resolution of the tokens
            location_tokens: Optional encoder location-token grid ``[B, n_h, n_w, pooler_dim]``.
                When provided (AttentionPooler), the decoder cross-attends to it
                instead of the visible patch tokens; it is flattened to a token
                sequence here.
            location_query_positions: Optional flat ``[B, n_h * n_w, 2]`` location-query coordinates
                for RoPE, row-major to match the flattened grid.

        Returns:
            TokensAndMasks containing the predicted tokens and their masks
        """
        decoder_emedded_dict = x.as_dict(return_none=False)
        # Apply Input Norms and encoder to decoder embeds to each modality
        available_modalities = x.modalities
        modalities_to_process = get_modalities_to_process(
            available_modalities, self.supported_modality_names
        )
        for modality in modalities_to_process:
            x_modality = getattr(x, modality)
            # Although, we do not account for missing tokens both proj and normalize are on token dimension so there is no mixing with real tokens
            x_modality = self.input_norm(x_modality)
            x_modality = self.encoder_to_decoder_embed(x_modality)
            masked_modality_name = x.get_masked_modality_name(modality)
            decoder_emedded_dict[modality] = x_modality
            decoder_emedded_dict[masked_modality_name] = getattr(
                x, masked_modality_name
            )

        tokens_only_dict = self.add_masks(decoder_emedded_dict)
        decoder_emedded_dict.update(tokens_only_dict)
        tokens_and_masks = self.apply_attn(
            decoder_emedded_dict,
            timestamps,
            patch_size,
            input_res,
            location_tokens=location_tokens,
            location_query_positions=location_query_positions,
        )
        # TODO: Factor this out into a more readable function
        output_dict = {}
        available_modalities = return_modalities_from_dict(tokens_and_masks)
        modalities_to_process = get_modalities_to_process(
            available_modalities, self.supported_modality_names
        )
        for modality in modalities_to_process:
            masked_modality_name = MaskedOlmoEarthSample.get_masked_modality_name(
                modality
            )
            modality_mask = tokens_and_masks[masked_modality_name]
            # patchify masked data
            per_modality_output_tokens = []
            modality_data = tokens_and_masks[modality]

            num_band_sets = self.tokenization_config.get_num_bandsets(modality)
            for idx in range(num_band_sets):
                per_channel_modality_data = modality_data[..., idx, :]
                output_data = self.to_output_embed(self.norm(per_channel_modality_data))
                per_modality_output_tokens.append(output_data)
            output_dict[modality] = torch.stack(per_modality_output_tokens, dim=-2)
            output_dict[masked_modality_name] = modality_mask
        return TokensAndMasks(**output_dict)


@dataclass
class EncoderConfig(Config):
    """Configuration for the Encoder."""

    supported_modality_names: list[str]

    embedding_size: int = 16
    # This is the base patch size for the patch embedder
    max_patch_size: int = 8
    min_patch_size: int = 1
    num_heads: int = 2
    mlp_ratio: float = 1.0
    depth: int = 2
    drop_path: float = 0.1
    max_sequence_length: int = 12
    num_register_tokens: int = 0
    learnable_channel_embeddings: bool = True
    random_channel_embeddings: bool = False
    num_projection_layers: int = 1
    aggregate_then_project: bool = True
    use_flash_attn: bool = False
    frozen_patch_embeddings: bool = False
    qk_norm: bool = False
    log_token_norm_stats: bool = False
    tokenization_config: TokenizationConfig | None = None
    use_linear_patch_embed: bool = False
    band_dropout_rate: float = 0.0
    random_band_dropout: bool = False
    band_dropout_modalities: list[str] | None = None
    patch_embed_hidden_sizes: list[int] | None = None
    post_proj_hidden_sizes: list[int] | None = None
    position_encoding: str = "absolute"
    rope_base: float = 10000.0
    rope_coordinate_scale: float = 1.0
    rope_mixed_base: float = 10.0
    temporal_rope_dim_frac: float = 0.25
    rope_temporal_base: float | None = None
    rope_temporal_coordinate_scale: float = 1.0
    # Deprecated alias for ``position_encoding``. Kept as a field (not dropped)
    # so old checkpoint configs deserialized via Config.from_dict still carry it
    # through to __post_init__ for reconciliation.
    spatial_pos_encoding: str | None = None
    # Dense spatial attention pooler (see AttentionPoolerConfig); None -> plain encoder.
    attention_pooler_config: AttentionPoolerConfig | None = None

    def __post_init__(self) -> None:
        """Reconcile the deprecated alias and coerce a raw ``attention_pooler_config`` dict."""
        if isinstance(self.attention_pooler_config, dict):
            self.attention_pooler_config = AttentionPoolerConfig(
                **{
                    k: v
                    for k, v in self.attention_pooler_config.items()
                    if k != Config.CLASS_NAME_FIELD
                }
            )
        self.position_encoding = resolve_position_encoding(
            self.position_encoding, self.spatial_pos_encoding
        )
        self.spatial_pos_encoding = None

    def validate(self) -> None:
        """Validate the configuration."""
        if len(self.supported_modalities) == 0:
            raise ValueError("At least one modality must be added!")
        else:
            for modality in self.supported_modalities:
                if modality not in Modality.values():
                    raise ValueError(f"Modality {modality} is not supported")
        if self.tokenization_config is not None:
            self.tokenization_config.validate()
        if self.position_encoding not in PositionEncoding.values():
            raise ValueError(
                f"position_encoding must be one of {PositionEncoding.values()}, "
                f"got {self.position_encoding}"
            )
        if self.rope_base <= 0:
            raise ValueError(f"rope_base must be positive, got {self.rope_base}")
        if self.rope_coordinate_scale <= 0:
            raise ValueError(
                f"rope_coordinate_scale must be positive, got {self.rope_coordinate_scale}"
            )
        if self.attention_pooler_config is not None:
            self.attention_pooler_config.validate(
                encoder_num_heads=self.num_heads,
                position_encoding=self.position_encoding,
            )
        if self.rope_mixed_base <= 0:
            raise ValueError(
                f"rope_mixed_base must be positive, got {self.rope_mixed_base}"
            )
        if not 0.0 < self.temporal_rope_dim_frac < 1.0:
            raise ValueError(
                f"temporal_rope_dim_frac must be in (0, 1), got "
                f"{self.temporal_rope_dim_frac}"
            )
        if self.rope_temporal_base is not None and self.rope_temporal_base <= 0:
            raise ValueError(
                f"rope_temporal_base must be positive, got {self.rope_temporal_base}"
            )
        if self.rope_temporal_coordinate_scale <= 0:
            raise ValueError(
                "rope_temporal_coordinate_scale must be positive, got "
                f"{self.rope_temporal_coordinate_scale}"
            )
        validate_position_encoding(
            position_encoding=self.position_encoding,
            head_dim=self.embedding_size // self.num_heads,
            temporal_rope_dim_frac=self.temporal_rope_dim_frac,
        )

    @property
    def supported_modalities(self) -> list[ModalitySpec]:
        """Get the supported modalities."""
        return get_modality_specs_from_names(self.supported_modality_names)

    def build(self) -> "Encoder":
        """Build the encoder."""
        self.validate()
        kwargs = self.as_dict(exclude_none=True, recurse=False)
        # supported_modality_names is replaced by supported_modalities
        kwargs.pop("supported_modality_names")
        kwargs["supported_modalities"] = self.supported_modalities
        logger.info(f"Encoder kwargs: {kwargs}")
        return Encoder(**kwargs)


@dataclass
class PredictorConfig(Config):
    """Configuration for the Predictor."""

    supported_modality_names: list[str]
    encoder_embedding_size: int = 16
    decoder_embedding_size: int = 16
    depth: int = 2
    mlp_ratio: float = 1.0
    num_heads: int = 2
    max_sequence_length: int = 12
    drop_path: float = 0.0
    learnable_channel_embeddings: bool = True
    random_channel_embeddings: bool = False
    output_embedding_size: int | None = None
    use_flash_attn: bool = False
    qk_norm: bool = False
    tokenization_config: TokenizationConfig | None = None
    position_encoding: str = "absolute"
    rope_base: float = 10000.0
    rope_coordinate_scale: float = 1.0
    rope_mixed_base: float = 10.0
    temporal_rope_dim_frac: float = 0.25
    rope_temporal_base: float | None = None
    rope_temporal_coordinate_scale: float = 1.0
    # Deprecated alias for ``position_encoding``. Kept as a field (not dropped)
    # so old checkpoint configs deserialized via Config.from_dict still carry it
    # through to __post_init__ for reconciliation.
    spatial_pos_encoding: str | None = None
    # AttentionPooler: when True the decoder cross-attends to the
    # encoder location-token grid (of width pooler_dim) instead of the visible patch tokens.
    use_attention_pooler: bool = False
    pooler_dim: int | None = None

    def __post_init__(self) -> None:
        """Reconcile the deprecated ``spatial_pos_encoding`` alias."""
        self.position_encoding = resolve_position_encoding(
            self.position_encoding, self.spatial_pos_encoding
        )
        self.spatial_pos_encoding = None

    def validate(self) -> None:
        """Validate the configuration."""
        if len(self.supported_modalities) == 0:
            raise ValueError("At least one modality must be added!")
        else:
            for modality in self.supported_modalities:
                if modality not in Modality.values():
                    raise ValueError(f"Modality {modality} is not supported")
        if self.use_attention_pooler and self.pooler_dim is None:
            raise ValueError("pooler_dim must be set when use_attention_pooler is True")
        if self.tokenization_config is not None:
            self.tokenization_config.validate()
        if self.position_encoding not in PositionEncoding.values():
            raise ValueError(
                f"position_encoding must be one of {PositionEncoding.values()}, "
                f"got {self.position_encoding}"
            )
        if self.rope_base <= 0:
            raise ValueError(f"rope_base must be positive, got {self.rope_base}")
        if self.rope_coordinate_scale <= 0:
            raise ValueError(
                f"rope_coordinate_scale must be positive, got {self.rope_coordinate_scale}"
            )
        if self.rope_mixed_base <= 0:
            raise ValueError(
                f"rope_mixed_base must be positive, got {self.rope_mixed_base}"
            )
        if not 0.0 < self.temporal_rope_dim_frac < 1.0:
            raise ValueError(
                f"temporal_rope_dim_frac must be in (0, 1), got "
                f"{self.temporal_rope_dim_frac}"
            )
        if self.rope_temporal_base is not None and self.rope_temporal_base <= 0:
            raise ValueError(
                f"rope_temporal_base must be positive, got {self.rope_temporal_base}"
            )
        if self.rope_temporal_coordinate_scale <= 0:
            raise ValueError(
                "rope_temporal_coordinate_scale must be positive, got "
                f"{self.rope_temporal_coordinate_scale}"
            )
        validate_position_encoding(
            position_encoding=self.position_encoding,
            head_dim=self.decoder_embedding_size // self.num_heads,
            temporal_rope_dim_frac=self.temporal_rope_dim_frac,
        )

    @property
    def supported_modalities(self) -> list[ModalitySpec]:
        """Get the supported modalities."""
        return get_modality_specs_from_names(self.supported_modality_names)

    def build(self) -> "PredictorBase":
        """Build the predictor."""
        self.validate()
        kwargs = self.as_dict(exclude_none=True, recurse=False)
        # supported_modality_names is replaced by supported_modalities
        kwargs.pop("supported_modality_names")
        kwargs["supported_modalities"] = self.supported_modalities
        logger.info(f"Predictor kwargs: {kwargs}")
        return Predictor(**kwargs)
