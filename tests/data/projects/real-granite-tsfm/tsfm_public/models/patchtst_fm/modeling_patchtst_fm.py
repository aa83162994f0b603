# Copyright contributors to the TSFM project
#
"""PatchTST-FM model implementation"""

import contextlib
import math
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import rearrange
from transformers.modeling_utils import PreTrainedModel
from transformers.utils import ModelOutput, logging

from .basic import (
    ConformerBlock,
    TransformerBlock,
    make_attn_mask,
)
from .configuration_patchtst_fm import PatchTSTFMConfig
from .normalization import RevIN
from .tools import count_parameters


logger = logging.get_logger(__name__)


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, d_model, max_len=5000, type="add"):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)
        self.type = type

    def forward(self, x, offset: Optional[int] = 0):
        positions = torch.arange(start=offset, end=x.size(-2) + offset, device=x.device).unsqueeze(0)
        pe = self.embedding(positions)
        if x.ndim == 4:
            pe = pe.unsqueeze(1)
        if self.type == "add":
            return x + pe
        elif self.type == "mul":
            return x * pe
        else:
            raise ValueError(f"Invalid type: {self.type}")


class ResidualBlock(nn.Module):
    def __init__(self, d_in, d_out, d_hidden):
        super().__init__()

        self.layer1 = nn.Linear(d_in, d_hidden)
        self.layer2 = nn.Linear(d_hidden, d_out)
        self.residual = nn.Linear(d_in, d_out)
        self.activation = nn.Sigmoid()

    def forward(self, x):
        return self.layer2(self.activation(self.layer1(x))) + self.residual(x)


class PatchTSTFMPreTrainedModel(PreTrainedModel):
    # Weight initialization
    config_class = PatchTSTFMConfig
    base_model_prefix = "model"
    main_input_name = "inputs"
    supports_gradient_checkpointing = False


@dataclass
class PatchTSTFMModelOutput(ModelOutput):
    loss_mask: Optional[torch.Tensor] = None
    normed_target: Optional[torch.Tensor] = None
    hidden_states: Optional[Tuple[torch.FloatTensor]] = None
    quantile_outputs: Optional[torch.FloatTensor] = None
    # List of (B, num_heads, N, N) weight tensors, one per layer.
    # Only populated when output_attentions=True is passed to forward().
    attentions: Optional[List[torch.FloatTensor]] = None


@dataclass
class PatchTSTFMPretrainingOutput(ModelOutput):
    loss: Optional[torch.Tensor] = None
    hidden_states: Optional[Tuple[torch.FloatTensor]] = None
    quantile_outputs: Optional[torch.Tensor] = None


@dataclass
class PatchTSTFMPredictionOutput(ModelOutput):
    hidden_states: Optional[Tuple[torch.FloatTensor]] = None
    prediction_outputs: Optional[torch.Tensor | List[torch.Tensor]] = None
    quantile_outputs: Optional[torch.Tensor | List[torch.Tensor]] = None


class PatchTSTFMModel(PatchTSTFMPreTrainedModel):
    def __init__(self, config: PatchTSTFMConfig):
        super().__init__(config)
        self.config = config
        self.quantile_levels = config.quantile_levels
        self.pos_embed = LearnedPositionalEmbedding(d_model=config.d_model, max_len=config.n_patch, type="add")
        assert config.d_model % config.n_head == 0, "[QuantileDecoder] d_model must be divisible by n_head"
        self.is_causal = False if not hasattr(self.config, "is_causal") else self.config.is_causal
        if (
            self.config.patch_stride is not None
            and (self.config.patch_stride != self.config.d_patch)
            and config.patch_loss_windowing is None
        ):
            raise ValueError("Windowing type must be specified with overlapping patch striding.")

        # Select block type based on configuration
        conv_block_type = None
        block_class = None
        self.decode_func = self.decode
        if "conformer" in config.block_type:
            block_class = ConformerBlock
            if config.block_type == "conformer":
                conv_block_type = "default"
            else:
                raise ValueError(f"Invalid convolution block type {config.block_type}")

        # Create blocks
        self.max_kernel_size = 0  # will stay 0 for non-conformer models
        if "conformer" in config.block_type:
            kernel_sizes = (
                config.conv_kernel_size
                if isinstance(config.conv_kernel_size, list)
                else [config.conv_kernel_size for _ in range(config.n_layer)]
            )
            assert (
                len(kernel_sizes) == config.n_layer
            ), f"Supplied list is convo sizes has {len(kernel_sizes)} elements but we need {config.n_layer}"
            self.max_kernel_size = max(kernel_sizes)  # this is needed for inference pruning
            blst = []
            logmsg = "Stacked blocks: "
            logsep = ""
            for l, ks in enumerate(kernel_sizes):
                if ks <= 0:  # Indication to use regular Transformer instead of Conformer
                    logmsg += logsep + f"({l}):Transformer"
                    if config.block_type == "conformer_attnres":
                        raise NotImplementedError(
                            "TransformerBlock does not yet support attention residuals. Use Conformer only."
                        )
                    blst.append(
                        TransformerBlock(
                            config.d_model,
                            config.n_head,
                            mlp_ratio=4.0,
                            norm_first=config.norm_first,
                            dropout=0.1,
                            mlp_type=config.mlp_type,
                            qkv_bias=config.qkv_bias,
                        )
                    )
                else:
                    if self.is_causal and config.block_type != "conformer":
                        raise NotImplementedError(
                            f"Causal convolution not yet implemented for block type {config.block_type}"
                        )
                    logmsg += logsep + f"({l}):{block_class.__name__}-{ks}"
                    kwds = {
                        "d_model": config.d_model,
                        "num_heads": config.n_head,
                        "is_causal": self.is_causal,
                        "conv_block_type": conv_block_type,
                        "conv_kernel_size": ks,
                        "mlp_ratio": 4.0,
                        "norm_first": config.norm_first,
                        "dropout": 0.1,
                        "mlp_type": config.mlp_type,
                        "qkv_bias": config.qkv_bias,
                    }
                    blst.append(block_class(**kwds))
                logsep = " --> "
            logger.info(logmsg)
            self.blocks = nn.ModuleList(blst)
        else:
            self.blocks = nn.ModuleList(
                [
                    TransformerBlock(
                        config.d_model,
                        config.n_head,
                        mlp_ratio=4.0,
                        norm_first=config.norm_first,
                        dropout=0.1,
                        mlp_type=config.mlp_type,
                        qkv_bias=config.qkv_bias,
                    )
                    for _ in range(config.n_layer)
                ]
            )
        self.in_layer = ResidualBlock(config.d_patch * 2, config.d_model, config.d_model)
        self.out_layer = ResidualBlock(config.d_model, config.d_patch * (config.num_quantile + 1), config.d_model)
        if hasattr(config, "prehead_norm") and config.prehead_norm:
            self.prehead_norm = nn.LayerNorm(config.d_model, elementwise_affine=True, eps=1e-6)
        else:
            self.prehead_norm = None
        self.norm_fn = RevIN(dim=-1, std_min=1e-5, use_sinh=True)

        # Patch loss window: shape [1, 1, d_patch], broadcast over [B, N, D]
        if config.patch_loss_windowing is not None:
            w = self._make_patch_window(config.d_patch, config.patch_loss_windowing)
            self.register_buffer("patch_loss_window", w)

        self.post_init()

    @staticmethod
    def _make_patch_window(d_patch: int, windowing: str) -> torch.Tensor:
        """Return a [1, 1, d_patch] weight tensor for patch-level loss weighting."""
        if windowing == "triangular":
            half = d_patch / 2.0
            w = torch.tensor([1.0 - abs(i - (half - 0.5)) / half for i in range(d_patch)])
        elif windowing == "hamming":
            w = torch.tensor([0.54 - 0.46 * math.cos(2 * math.pi * i / (d_patch - 1)) for i in range(d_patch)])
        elif windowing == "rectangular":
            w = torch.ones(d_patch)
        else:
            raise ValueError("Uknown patch windowing type", windowing)
        w = w / w.mean()
        return w.view(1, 1, d_patch)

    def _overlap_add(
        self,
        q_pred: torch.Tensor,
        original_length: int,
        stride: int,
    ) -> torch.Tensor:
        """Fold strided-patch predictions back on original time axis.

        Args:
            q_pred:         [B, n_patch * d_patch, Q]  — strided-patch output
            original_length: T
            stride:          patch_stride used to produce q_pred

        Returns:
            [B, original_length, Q]  — average over overlapping patches
        """
        assert self.patch_loss_window is not None, "Windowing not initialized"
        d_patch = self.config.d_patch
        B, _, Q = q_pred.shape
        # Reshape to [B, n_patch, d_patch, Q]
        n_patch = (original_length - d_patch) // stride + 1
        q_patches = q_pred.reshape(B, n_patch, d_patch, Q)  # [B, N, D, Q]

        # Window weights [1, 1, d_patch, 1] — same as patch_loss_window but with Q dim
        win = self.patch_loss_window.squeeze(0).unsqueeze(-1)  # [1, d_patch, 1]
        # win = win.unsqueeze(0)                                   # [1, 1, d_patch, 1]

        # accumulate weighted predictions and weight counts
        accum = torch.zeros(B, original_length, Q, device=q_pred.device, dtype=q_pred.dtype)
        counts = torch.zeros(B, original_length, 1, device=q_pred.device, dtype=q_pred.dtype)
        for i in range(n_patch):
            t_start = i * stride
            t_end = t_start + d_patch
            accum[:, t_start:t_end, :] += q_patches[:, i, :, :] * win  # [B, D, Q]
            counts[:, t_start:t_end, :] += win  # [B, D, 1]

        return accum / counts.clamp(min=1e-6)  # [B, original_length, Q]

    def model_summary(self):
        s = ""
        model_name = "PatchTST-FM"
        s += f"{'=' * 5:<10} {model_name} {'=' * 5:>9}\n"
        s += f"{'Transformer:':<20} {count_parameters(self.blocks)[0] / 1e6:>8.2f}M\n"
        s += f"{'=' * 30}\n"
        p = count_parameters(self)
        s += f"{'Trainable:':<20} {p[1] / 1e6:>8.2f}M\n"
        s += f"{'Frozen:':<20} {p[2] / 1e6:>8.2f}M\n"
        s += f"{'Total:':<20} {p[0] / 1e6:>8.2f}M\n"
        s += f"{'=' * 30}\n"
        return s

    def forward(
        self,
        inputs: torch.Tensor,
        pred_mask: torch.Tensor,
        miss_mask: torch.Tensor,
        pad_mask: torch.Tensor,
        output_hidden_states: Optional[bool] = False,
        output_attentions: bool = False,
        return_loss: bool = True,
        return_dict: Optional[bool] = None,
        context_length: Optional[int] = None,
        override_patch_stride: Optional[int] = None,
        attn_window: Optional[int] = None,
        # **kwargs,
    ) -> PatchTSTFMModelOutput:
        x = inputs  # .to(self.device)
        pad_mask = pad_mask.bool()  # to(self.device).bool()
        pred_mask = pred_mask.bool()  # to(self.device).bool()
        miss_mask = miss_mask.bool()  # to(self.device).bool()
        if x.ndim > 2:
            x = rearrange(x, "B N T -> (B N) T")
            pad_mask = rearrange(pad_mask, "B N T -> (B N) T")
            pred_mask = rearrange(pred_mask, "B N T -> (B N) T")
            miss_mask = rearrange(miss_mask, "B N T -> (B N) T")

        B, T = x.shape
        ts_mask = pred_mask | pad_mask | miss_mask

        x_target = self.norm_fn.fit_transform(x, mask=ts_mask)
        x_input = torch.where(ts_mask, torch.zeros_like(x_target), x_target)

        stride = override_patch_stride if override_patch_stride is not None else self.config.patch_stride
        if stride is not None:
            # perform striding
            x_patch = x_input.unfold(
                dimension=1, size=self.config.d_patch, step=stride
            ).contiguous()  # [B, n_patch, d_patch]
            mask_patch = ts_mask.unfold(dimension=1, size=self.config.d_patch, step=stride).contiguous()
            pad_patch_mask = (
                pad_mask.unfold(dimension=1, size=self.config.d_patch, step=stride).float().mean(dim=-1).gt(0.9)
            )
        else:
            # nonstrided branch
            x_patch = x_input.reshape(B, self.config.n_patch, self.config.d_patch)
            mask_patch = ts_mask.reshape(B, self.config.n_patch, self.config.d_patch)
            pad_patch_mask = pad_mask.reshape(B, self.config.n_patch, self.config.d_patch).float().mean(dim=-1).gt(0.9)

        # determine the earliest index where the padding ends
        if context_length == self.config.context_length:
            idx = 0
        elif context_length is not None and self.config.use_pruning:
            Tfluff = self.config.context_length - context_length
            if stride is not None:
                idx = max(
                    (Tfluff - self.config.d_patch) // stride
                    - (self.config.d_patch // stride)
                    * (self.max_kernel_size // 2),  # we account for conv1d kernel edge effect here
                    0,
                )
            else:
                idx = Tfluff // self.config.d_patch
            x_patch = x_patch[:, idx:]
            mask_patch = mask_patch[:, idx:]
            pad_patch_mask = pad_patch_mask[:, idx:]
        else:
            idx = 0

        q_pred, q_raw, all_attn = self.decode_func(
            x=x_patch,
            mask=mask_patch,
            t_pad_mask=pad_patch_mask,
            output_attentions=output_attentions,
            offset=idx,
            attn_window=attn_window,
        )
        q_pred = q_pred.permute(0, 2, 3, 1)  # q_pred is now [B, N, D, Q+1]

        B, N, D, Q = q_pred.shape
        q_pred = q_pred.reshape(B, N * D, Q)

        # pad back to the original length
        if context_length is not None and self.config.use_pruning:
            q_pred = F.pad(q_pred, (0, 0, idx * D, 0), value=0.0)

        if output_hidden_states:
            hidden_states = q_raw.reshape(B, N * D, Q)
        else:
            hidden_states = None

        loss_mask = (pred_mask & ~pad_mask & ~miss_mask).float()

        if return_loss:  # because if False we save unfolds here
            if stride is not None:
                # Reindex x_target and loss_mask into strided-patch space [B, n_patch * d_patch]
                # so they align with q_pred which was produced patch-by-patch.
                x_target = x_target.unfold(dimension=1, size=self.config.d_patch, step=stride).reshape(
                    B, self.config.n_patch * self.config.d_patch
                )
                loss_mask = loss_mask.unfold(dimension=1, size=self.config.d_patch, step=stride).reshape(
                    B, self.config.n_patch * self.config.d_patch
                )

        # return here q_pred, loss_mask, and x_target
        return PatchTSTFMModelOutput(
            normed_target=x_target,
            quantile_outputs=q_pred,
            loss_mask=loss_mask,
            hidden_states=hidden_states,
            attentions=all_attn,
        )

    def decode(
        self,
        x,
        mask,
        t_pad_mask=None,
        offset: Optional[int] = 0,
        output_attentions: bool = False,
        attn_window: Optional[int] = None,
    ):
        B, N, D = x.shape
        # x = self.in_layer(torch.cat([x, t, 1 - mask], dim=-1))
        x = self.in_layer(torch.cat([x, ~mask], dim=-1))  # B x n_patch X d_model
        if t_pad_mask is not None and t_pad_mask.any():
            pad_attn_mask = make_attn_mask(t_pad_mask, t_pad_mask).unsqueeze(1)
        else:
            pad_attn_mask = None

        if attn_window is not None:
            # attention band: position (i, j) is blocked when |i - j| > attn_window
            idx = torch.arange(N, device=x.device)
            band = (idx.unsqueeze(0) - idx.unsqueeze(1)).abs() > attn_window  # [N, N] bool
            band_mask = torch.zeros(N, N, device=x.device, dtype=torch.float32)
            band_mask.masked_fill_(band, float("-inf"))
            band_mask = band_mask.unsqueeze(0).unsqueeze(0)  # [1, 1, N, N] — broadcasts over B and heads
            # Combine with padding mask
            pad_attn_mask = band_mask if pad_attn_mask is None else pad_attn_mask + band_mask

        x = self.pos_embed(x, offset=offset)  # bs x num_patches x 2*seq_len

        all_attn = [] if output_attentions else None
        for block in self.blocks:
            block_out = block(x, pad_attn_mask, output_attentions=output_attentions)
            if output_attentions:
                x, attn_w = block_out
                all_attn.append(attn_w.cpu())
            else:
                x = block_out
        if self.prehead_norm is not None:
            x = self.out_layer(self.prehead_norm(x))
        else:
            x = self.out_layer(x)
        q_raw = x.reshape(B, N, self.config.num_quantile + 1, self.config.d_patch).permute(
            0, 2, 1, 3
        )  # [ B, Q+1, N, D ]
        q = q_raw[:, 0, :, :].unsqueeze(1) + torch.cumsum(
            F.softplus(q_raw[:, 1:, :, :]) / self.config.num_quantile, dim=1
        )
        return q, q_raw, all_attn


class PatchTSTFMForPretraining(PatchTSTFMPreTrainedModel):
    def __init__(self, config: PatchTSTFMConfig):
        super().__init__(config)

        self.config = config
        self.backbone = PatchTSTFMModel(config)

        self.post_init()

    def forward(
        self,
        inputs: torch.Tensor,
        pred_mask: torch.Tensor,
        miss_mask: torch.Tensor,
        pad_mask: torch.Tensor,
        output_hidden_states: Optional[bool] = False,
        return_loss: bool = True,
        return_dict: Optional[bool] = None,
    ) -> PatchTSTFMPretrainingOutput:
        model_outputs = self.backbone(
            inputs,
            pred_mask=pred_mask,
            miss_mask=miss_mask,
            pad_mask=pad_mask,
            output_hidden_states=output_hidden_states,
            return_dict=True,
        )

        q_pred = model_outputs.quantile_outputs
        x_target = model_outputs.normed_target
        loss_mask = model_outputs.loss_mask

        if return_loss:
            x_target = x_target.unsqueeze(-1)
            quantiles = torch.tensor(self.backbone.quantile_levels, device=x_target.device).view(1, 1, -1)
            loss = 2 * torch.abs((x_target - q_pred) * ((x_target <= q_pred).float() - quantiles))
            # Apply per-position patch window weighting to the loss mask.
            # loss_mask: [B, n_patch*d_patch] -> reshape to [B, n_patch, d_patch],
            # weight by patch_loss_window [1, 1, d_patch] then flatten back.
            cfg = self.backbone.config
            win_loss_mask = (
                (
                    loss_mask.reshape(-1, cfg.n_patch, cfg.d_patch)  # [B, n_patch*d_patch]  # [B, n_patch, d_patch]
                    .mul(self.backbone.patch_loss_window)  # broadcast [1,1,d_patch]
                    .reshape(-1, cfg.n_patch * cfg.d_patch)  # [B, n_patch*d_patch]
                )
                if cfg.patch_loss_windowing is not None
                else loss_mask
            )
            loss = loss * win_loss_mask.unsqueeze(-1)
            loss = loss.sum(dim=1) / torch.clamp(win_loss_mask.sum(dim=1, keepdim=True), min=1)
            loss = loss.sum(dim=-1).mean() / math.sqrt(self.config.num_quantile)
        else:
            loss = None

        x_pred = q_pred.permute(0, 2, 1)  # [B, Q, T]
        x_pred = self.backbone.norm_fn.inverse_transform(x_pred)

        return PatchTSTFMPretrainingOutput(
            quantile_outputs=x_pred, loss=loss, hidden_states=model_outputs.hidden_states
        )


class PatchTSTFMForPrediction(PatchTSTFMPreTrainedModel):
    main_input_name = "past_values"

    def __init__(self, config: PatchTSTFMConfig):
        super().__init__(config)

        self.config = config
        self.backbone = PatchTSTFMModel(config)

        self.post_init()

    def model_summary(self) -> str:
        return self.backbone.model_summary()

    def forward(
        self,
        past_values: List[torch.Tensor] | torch.Tensor,
        past_observed_mask: Optional[List[torch.Tensor] | torch.Tensor] = None,
        pad_mask: Optional[List[torch.Tensor] | torch.Tensor] = None,
        # future_values: Optional[torch.Tensor] = None,  # future use
        # future_observed_mask: Optional[torch.Tensor] = None,  # future use
        prediction_length: Optional[int] = None,
        quantile_levels: Optional[List[float]] = None,
        output_hidden_states: Optional[bool] = False,
        return_loss: Optional[bool] = False,
        return_dict: Optional[bool] = None,
        attn_window: Optional[int] = None,
    ) -> PatchTSTFMPredictionOutput | Tuple:
        """Forward pass for time series forecasting with PatchTST-FM model.

        This method performs forecasting on time series data, supporting both single tensor and list of tensors
        as input. It handles variable-length sequences, missing values, and padding, and produces both point
        forecasts and quantile predictions.

        Args:
            past_values (List[torch.Tensor] | torch.Tensor): Historical time series values. Can be either:
                - A single tensor of shape (batch_size, context_length, num_features)
                - A list of tensors with potentially different lengths for each sample
            past_observed_mask (Optional[List[torch.Tensor] | torch.Tensor], optional): Boolean mask indicating
                which values in past_values are observed (True). If None, automatically
                computed from NaN values in past_values. Defaults to None. Note that missing values are considered
                to be the values that are not observed (False values in past_observed_mask) and not part of the
                padded values indicated by pad_mask.
            pad_mask (Optional[List[torch.Tensor] | torch.Tensor], optional): Boolean mask indicating padded
                positions in the input sequences. Used when sequences have different lengths. Defaults to None.
            prediction_length (Optional[int], optional): Number of time steps to forecast into the future.
                If None, uses the model's configured prediction_length. Defaults to None.
            quantile_levels (Optional[List[float]], optional): Specific quantile levels to return from the
                model's predictions. Must be a subset of the model's configured quantile_levels. If None,
                returns all configured quantiles. Defaults to None.
            output_hidden_states (Optional[bool], optional): Whether to return the hidden states from the
                transformer backbone. Defaults to False.
            return_loss (bool, optional): Whether to compute and return loss (currently unused in prediction).
                Defaults to False.
            return_dict (Optional[bool], optional): Whether to return a ModelOutput object. If None, uses
                model's default behavior. Defaults to None.

        Raises:
            ValueError: If both past_values and past_observed_mask are not torch.Tensor when list_input is False.
            ValueError: If requested quantile_levels are not found in the model's configured quantile levels.

        Returns:
            PatchTSTFMPredictionOutput: A dataclass containing:
                - prediction_outputs: Point forecast (mean estimate) of shape (batch_size, num_features, prediction_length)
                  or list of tensors for variable-length inputs
                - quantile_outputs: Quantile predictions of shape (batch_size, num_quantiles, prediction_length, num_features)
                  or list of tensors for variable-length inputs
                - hidden_states: Optional transformer hidden states if output_hidden_states=True
        """
        return_dict = return_dict if return_dict is not None else self.config.use_return_dict
        forecast_len = prediction_length if prediction_length else self.config.prediction_length
        list_input = isinstance(past_values, list)

        cl = self.config.context_length
        ul = -1
        # logger.info(
        #     f"Context Len: {cl} | Forecast Len: {forecast_len} | Input is tensor: {not list_input}",
        # )

        if past_observed_mask is None:
            if list_input:
                past_observed_mask = [~sample.isnan() for sample in past_values]
            else:
                past_observed_mask = ~past_values.isnan()

        # Use 2x pretrain_mask_cont when randomize_cpm is enabled to account for maximum possible CPM
        effective_mask_cont = (
            self.config.pretrain_mask_cont * 2 if self.config.randomize_cpm else self.config.pretrain_mask_cont
        )
        fl = max(
            forecast_len,
            ul,
            self.config.d_patch * max(effective_mask_cont, 2),
        )

        if list_input:
            cl = [cl] * len(past_values)
            fl = [fl] * len(past_values)
            forecast_samples, hidden_states = self.forecast_single_step(
                past_values,
                forecast_length=fl,
                observed_inputs_mask=past_observed_mask,
                input_pad_mask=pad_mask,
                context_length=cl,
                output_hidden_states=output_hidden_states,
            )
            forecast_samples = [sample[:, :forecast_len] for sample in forecast_samples]
        else:
            if not (isinstance(past_values, torch.Tensor) and isinstance(past_observed_mask, torch.Tensor)):
                raise ValueError("Both the `past_values` and `past_observed_mask` should be of type torch.Tensor.")

            forecast_samples, hidden_states = self.forecast_single_step_fast(
                past_values,
                forecast_length=fl,
                observed_inputs_mask=past_observed_mask,
                input_pad_mask=pad_mask,
                context_length=cl,
                output_hidden_states=output_hidden_states,
                attn_window=attn_window,
            )
            forecast_samples = forecast_samples[:, :, :forecast_len]

        # forecast_samples: (batch x num quantiles x forecast length)

        # Integrate quantile function to estimate mean
        # Q(p) = F^{-1}(p) = x
        # F(Q(p)) = p
        # f(Q(p)) Q'(p) = 1
        # f(Q(p)) = 1/Q'(p)
        # mu = \int x f(x) dx = \int Q(p) dp

        # Old approach
        # quant_prob = 0.5 - (0.5 - torch.tensor(self.config.quantile_levels)).abs()
        # quant_prob /= quant_prob.sum()  # normalize quantile weights
        # quant_prob = quant_prob.view(1, -1, 1, 1).to(self.device)
        # point_forecast: torch.Tensor = (forecast_samples * quant_prob).sum(dim=1)

        q_levels = torch.tensor(self.config.quantile_levels, device=forecast_samples[0].device)
        with torch.no_grad():
            if not list_input:
                point_forecast: torch.Tensor = torch.trapz(forecast_samples, q_levels, dim=1)
                # extend tails
                point_forecast += forecast_samples[:, 0] * q_levels[0] + forecast_samples[:, -1] * (1 - q_levels[-1])
            else:
                point_forecast: List[torch.Tensor] = [
                    torch.trapz(sample, q_levels, dim=0) + sample[0] * q_levels[0] + sample[-1] * (1 - q_levels[-1])
                    for sample in forecast_samples
                ]

        if quantile_levels is not None:
            try:
                quantile_indices = [self.config.quantile_levels.index(q) for q in quantile_levels]
            except ValueError as e:
                raise ValueError(
                    f"Quantile levels {quantile_levels} not found in model config. Available quantile levels: {self.config.quantile_levels}."
                ) from e
            if list_input:
                forecast_samples = [sample[quantile_indices, :] for sample in forecast_samples]
            else:
                forecast_samples = forecast_samples[:, quantile_indices, :]

        if not return_dict:
            return (point_forecast, forecast_samples, hidden_states)
        else:
            return PatchTSTFMPredictionOutput(
                prediction_outputs=point_forecast, quantile_outputs=forecast_samples, hidden_states=hidden_states
            )

    def forecast_single_step_fast(
        self,
        x: torch.Tensor,
        observed_inputs_mask: torch.BoolTensor,
        forecast_length: int,
        context_length: int,
        input_pad_mask: Optional[torch.BoolTensor] = None,
        output_hidden_states: Optional[bool] = False,
        attn_window: Optional[int] = None,
    ) -> tuple[torch.Tensor, Any]:
        # x: batch size x context x features
        # observed_inputs_mask: batch size x context x features
        # input_pad_mask: batch size x context x features
        # forecast_len: list of forecast lengths
        # context_len: list of context lengths
        # output_hidden_states: whether to return hidden states

        device = x.device
        context_provided = x.shape[1]
        context = min(context_provided + forecast_length, context_length)
        s = context - forecast_length  # part of the context that was provided

        # x and observed_inputs_mask should be 2d or 3d
        x = x.unsqueeze(-1) if x.ndim == 2 else x
        x_mean = x.nanmean(dim=1, keepdim=True)  # mean across context dimension
        x_in = x[:, -s:, ...]

        miss_mask = (
            ~observed_inputs_mask.bool() & ~input_pad_mask.bool()
            if input_pad_mask is not None
            else ~observed_inputs_mask.bool()
        )
        miss_mask = miss_mask.unsqueeze(-1) if miss_mask.ndim == 2 else miss_mask
        miss_mask = miss_mask[:, -s:, ...]
        if input_pad_mask is None:
            pad_mask = torch.zeros_like(x_in, dtype=torch.bool)
        else:
            pad_mask = input_pad_mask[:, -s:, ...].type_as(miss_mask)

        nan_mask = torch.isnan(x_in)
        x_in = torch.where(nan_mask, x_mean.expand_as(x_in), x_in)

        batch_size, _, n_dim = x_in.shape
        forecast_shape = (batch_size, forecast_length, n_dim)

        pred_mask = torch.cat(
            [torch.zeros_like(x_in, dtype=torch.bool), torch.ones(forecast_shape, device=device, dtype=torch.bool)],
            dim=1,
        )
        miss_mask = torch.cat([miss_mask, torch.zeros(forecast_shape, device=device, dtype=torch.bool)], dim=1)
        pad_mask = torch.cat([pad_mask, torch.zeros(forecast_shape, device=device, dtype=torch.bool)], dim=1)
        x_in = torch.cat([x_in, x_mean.repeat((1, forecast_length, 1))], dim=1)

        sample_len = s + forecast_length  # x_in.shape[1]

        if sample_len == self.config.context_length:
            # just pass

            inputs = x_in
            # inputs.append(x_in)
            # pred_mask.append(pred_mask_i)
            # pad_mask.append(pad_mask_i)
            # miss_mask.append(miss_mask_i)
            # time_index.append(time_index_i)
            ts_ends = (0, sample_len)

        elif sample_len < self.config.context_length:
            left_pad = self.config.context_length - sample_len

            pad = x_mean.repeat((1, left_pad, 1))
            inputs = torch.cat((pad, x_in), dim=1)  # append left_pad + sample_len = context_len, num_channels

            pred_mask = F.pad(pred_mask, (0, 0, left_pad, 0), mode="constant", value=False)
            pad_mask = F.pad(pad_mask, (0, 0, left_pad, 0), mode="constant", value=True)
            miss_mask = F.pad(miss_mask, (0, 0, left_pad, 0), mode="constant", value=False)
            # time_index = F.pad(time_index, (left_pad, 0), mode="constant", value=-1)

            ts_ends = (left_pad, left_pad + sample_len)
        else:  # sample_len > self.config.context_length
            # not supported for now
            raise ValueError(
                "Please ensure that provided sample plus the desired forecast is less than the model maximum context length."
            )

        # we are B T N, but backbone wants (B N) T
        inputs = rearrange(inputs, "B T N -> (B N) T")
        pred_mask = rearrange(pred_mask, "B T N -> (B N) T")
        miss_mask = rearrange(miss_mask, "B T N -> (B N) T")
        pad_mask = rearrange(pad_mask, "B T N -> (B N) T")

        with get_autocast_context(inputs.device):
            model_output = self.backbone(
                inputs=inputs,
                pred_mask=pred_mask,
                miss_mask=miss_mask,
                pad_mask=pad_mask,
                return_loss=False,
                output_hidden_states=output_hidden_states,
                override_patch_stride=None,
                context_length=context,
                attn_window=attn_window,
            )
            outputs = model_output.quantile_outputs  # [B*N_ch, strided_T or orig_T, Q]

        # Perform destriding if applicable
        if (
            hasattr(self.backbone.config, "patch_stride")
            and self.backbone.config.patch_stride is not None
            and self.backbone.config.patch_stride != self.backbone.config.d_patch
        ):
            # outputs is in strided-patch space; fold back to original axis
            outputs = self.backbone._overlap_add(
                outputs,
                original_length=self.backbone.config.context_length,
                stride=self.backbone.config.patch_stride,
            )  # [B*N_ch, context_length, Q]

        outputs = outputs.permute(0, 2, 1)
        outputs = self.backbone.norm_fn.inverse_transform(outputs)
        outputs = rearrange(outputs, "(B N) Q T -> B Q T N", B=batch_size)

        # sample_length <= self.config.context_length
        # ts_ends should always be self.config.context_length

        x_preds = outputs[:, :, ts_ends[0] : ts_ends[1]]
        x_preds = x_preds[:, :, -forecast_length:]

        return x_preds, model_output.hidden_states

    def forecast_single_step(
        self,
        x: List[torch.Tensor] | torch.Tensor,
        observed_inputs_mask: List[torch.Tensor] | torch.Tensor,
        forecast_length: List[int],
        context_length: List[int],
        input_pad_mask: List[torch.Tensor] | torch.Tensor | None = None,
        output_hidden_states: Optional[bool] = False,
    ) -> tuple[list[torch.Tensor], Any]:
        """
        x: list of torch.Tensor of time series, can be of different lengths
        """

        inputs = []
        pad_mask = []
        pred_mask = []
        miss_mask = []
        ts_ends = []
        time_index = []
        sample_lengths = []

        device = x[0].device
        batch_size = len(x)

        # x: batch x time x num_channels
        # x_i: time x num_channels
        # context is full window of input to backbone
        # old_context + forecast = context
        max_context_length = max(context_length)
        for i, (x_i, observed_inputs_mask_i, c_i, f_i) in enumerate(
            zip(x, observed_inputs_mask, context_length, forecast_length)
        ):
            c_i = min(x_i.shape[0] + f_i, c_i)
            s_i = c_i - f_i  # part of the context that was provided
            x_in = x_i[-s_i:]
            x_in = x_in.unsqueeze(-1) if x_in.ndim == 1 else x_in
            miss_mask_i = ~observed_inputs_mask_i[-s_i:].bool()
            miss_mask_i = miss_mask_i.unsqueeze(-1) if miss_mask_i.ndim == 1 else miss_mask_i
            if input_pad_mask is None:
                pad_mask_i = torch.zeros_like(x_in, dtype=torch.bool)
            else:
                pad_mask_i = input_pad_mask[i][-s_i:].bool()
                miss_mask_i = miss_mask_i & ~pad_mask_i
            x_in_mean = x_in.nanmean(dim=0)

            # Fill NaNs in x_in with corresponding values from x_in_mean for each dimension
            nan_mask = torch.isnan(x_in)
            x_in = torch.where(nan_mask, x_in_mean.unsqueeze(0).expand_as(x_in), x_in)

            f_i_shape = (f_i,) + x_in.shape[1:]

            pred_mask_i = torch.cat(
                [torch.zeros_like(x_in, dtype=torch.bool), torch.ones(f_i_shape, device=device, dtype=torch.bool)],
                dim=0,
            )
            miss_mask_i = torch.cat([miss_mask_i, torch.zeros(f_i_shape, device=device, dtype=torch.bool)], dim=0)
            pad_mask_i = torch.cat([pad_mask_i, torch.zeros(f_i_shape, device=device, dtype=torch.bool)], dim=0)
            x_in = torch.cat([x_in, torch.ones(f_i_shape, device=device) * x_in_mean], dim=0)
            sample_len = x_in.shape[0]
            time_index_i = (
                torch.arange(
                    self.config.context_length - sample_len + 1,
                    self.config.context_length + 1,
                    device=device,
                ).float()
                / self.config.context_length
            )
            if sample_len == self.config.context_length:
                inputs.append(x_in)
                pred_mask.append(pred_mask_i)
                pad_mask.append(pad_mask_i)
                miss_mask.append(miss_mask_i)
                time_index.append(time_index_i)
                ts_ends.append(torch.tensor([0, sample_len], dtype=torch.int, device=device))
                sample_lengths.append(sample_len)
            elif sample_len < self.config.context_length:  # padding
                left_pad = self.config.context_length - sample_len

                # manual pad, since torch pad does not support tensor pad values
                pad = x_in_mean.unsqueeze(dim=0).repeat((left_pad, 1))
                inputs.append(torch.cat((pad, x_in)))  # append left_pad + sample_len = context_len, num_channels

                # inputs.append(
                #     F.pad(
                #         x_in,
                #         (left_pad, 0),
                #         mode="constant",
                #         value=x_in.nanmean(dim=0).item(),
                #     )
                # )
                pred_mask.append(F.pad(pred_mask_i, (0, 0, left_pad, 0), mode="constant", value=False))
                pad_mask.append(F.pad(pad_mask_i, (0, 0, left_pad, 0), mode="constant", value=True))
                miss_mask.append(F.pad(miss_mask_i, (0, 0, left_pad, 0), mode="constant", value=False))
                time_index.append(F.pad(time_index_i, (left_pad, 0), mode="constant", value=-1))
                ts_ends.append(torch.tensor([left_pad, left_pad + sample_len], dtype=torch.int, device=device))
                sample_lengths.append(sample_len)
            else:  # subsample
                inputs.append(
                    F.interpolate(
                        x_in.view(1, 1, -1),
                        size=self.config.context_length,
                        mode="nearest",
                    ).squeeze()
                )
                pred_mask.append(
                    F.interpolate(
                        pred_mask_i.view(1, 1, -1).float(),
                        size=self.config.context_length,
                        mode="nearest",
                    )
                    .squeeze()
                    .bool()
                )
                pad_mask.append(
                    F.interpolate(
                        pad_mask_i.view(1, 1, -1).float(),
                        size=self.config.context_length,
                        mode="nearest",
                    )
                    .squeeze()
                    .bool()
                )
                miss_mask.append(
                    F.interpolate(
                        miss_mask_i.view(1, 1, -1).float(),
                        size=self.config.context_length,
                        mode="nearest",
                    )
                    .squeeze()
                    .bool()
                )
                time_index.append(
                    F.interpolate(
                        time_index_i.view(1, 1, -1),
                        size=self.config.context_length,
                        mode="nearest",
                    ).squeeze()
                )
                ts_ends.append(torch.tensor([0, self.config.context_length], dtype=torch.int, device=device))
                sample_lengths.append(sample_len)

        inputs = torch.stack(inputs, dim=0)
        pred_mask = torch.stack(pred_mask, dim=0)
        pad_mask = torch.stack(pad_mask, dim=0)
        miss_mask = torch.stack(miss_mask, dim=0)
        time_index = torch.stack(time_index, dim=0)
        ts_ends = torch.stack(ts_ends, dim=0)

        # we are B T N, but backbone wants (B N) T
        inputs = rearrange(inputs, "B T N -> (B N) T")
        pred_mask = rearrange(pred_mask, "B T N -> (B N) T")
        miss_mask = rearrange(miss_mask, "B T N -> (B N) T")
        pad_mask = rearrange(pad_mask, "B T N -> (B N) T")

        with get_autocast_context(inputs.device):
            model_output = self.backbone(
                inputs=inputs,
                pred_mask=pred_mask,
                miss_mask=miss_mask,
                pad_mask=pad_mask,
                return_loss=False,
                output_hidden_states=output_hidden_states,
                override_patch_stride=None,
                context_length=max_context_length,
            )
            outputs = model_output.quantile_outputs  # [B*N_ch, strided_T or orig_T, Q]

        # Perform destriding if applicable
        if (
            hasattr(self.backbone.config, "patch_stride")
            and self.backbone.config.patch_stride is not None
            and self.backbone.config.patch_stride != self.backbone.config.d_patch
        ):
            # outputs is in strided-patch space; fold back to original axis
            outputs = self.backbone._overlap_add(
                outputs,
                original_length=self.backbone.config.context_length,
                stride=self.backbone.config.patch_stride,
            )  # [B*N_ch, context_length, Q]

        outputs = outputs.permute(0, 2, 1)  # [B*N_ch, Q, T]
        outputs = self.backbone.norm_fn.inverse_transform(outputs)
        outputs = rearrange(outputs, "(B N) Q T -> B Q T N", B=batch_size)

        x_preds = []
        for i in range(outputs.shape[0]):
            if sample_lengths[i] <= self.config.context_length:
                x_pred = outputs[i][:, ts_ends[i][0] : ts_ends[i][1]]
            else:
                # to do: check me
                x_pred = F.interpolate(outputs[i].unsqueeze(1), size=sample_lengths[i], mode="linear").squeeze(1)
            x_preds.append(x_pred[:, -forecast_length[i] :])
        return x_preds, model_output.hidden_states


def get_autocast_context(device):
    if device.type in ("cuda", "mps"):
        return torch.autocast(
            device_type=device.type,
            dtype=torch.bfloat16,
        )

    # cpu: no autocast
    return contextlib.nullcontext()
