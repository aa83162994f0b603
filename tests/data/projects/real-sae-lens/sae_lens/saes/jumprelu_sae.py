from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import nn
from typing_extensions import override

from sae_lens.saes.sae import (
    SAE,
    SAEConfig,
    TrainCoefficientConfig,
    TrainingSAE,
    TrainingSAEConfig,
    TrainStepInput,
    TrainStepOutput,
)


def rectangle(x: torch.Tensor) -> torch.Tensor:
    return ((x > -0.5) & (x < 0.5)).to(x)


class Step(torch.autograd.Function):
    @staticmethod
    def forward(
        x: torch.Tensor,
        threshold: torch.Tensor,
        bandwidth: float,  # noqa: ARG004
        ste_to_input: bool,  # noqa: ARG004
    ) -> torch.Tensor:
        return (x > threshold).to(x)

    @staticmethod
    def setup_context(
        ctx: Any,
        inputs: tuple[torch.Tensor, torch.Tensor, float, bool],
        output: torch.Tensor,
    ) -> None:
        x, threshold, bandwidth, ste_to_input = inputs
        del output
        ctx.save_for_backward(x, threshold)
        ctx.bandwidth = bandwidth
        ctx.ste_to_input = ste_to_input

    @staticmethod
    def backward(  # type: ignore[override]
        ctx: Any, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor, None, None]:
        x, threshold = ctx.saved_tensors
        bandwidth = ctx.bandwidth
        ste = (1.0 / bandwidth) * rectangle((x - threshold) / bandwidth) * grad_output
        threshold_grad = torch.sum(-ste, dim=0)
        # the step function depends on x only through (x - threshold), so the
        # estimator's gradient wrt x is the negation of its gradient wrt threshold
        x_grad = ste if ctx.ste_to_input else None
        return x_grad, threshold_grad, None, None


class JumpReLU(torch.autograd.Function):
    @staticmethod
    def forward(
        x: torch.Tensor,
        threshold: torch.Tensor,
        bandwidth: float,  # noqa: ARG004
        ste_to_input: bool,  # noqa: ARG004
    ) -> torch.Tensor:
        return (x * (x > threshold)).to(x)

    @staticmethod
    def setup_context(
        ctx: Any,
        inputs: tuple[torch.Tensor, torch.Tensor, float, bool],
        output: torch.Tensor,
    ) -> None:
        x, threshold, bandwidth, ste_to_input = inputs
        del output
        ctx.save_for_backward(x, threshold)
        ctx.bandwidth = bandwidth
        ctx.ste_to_input = ste_to_input

    @staticmethod
    def backward(  # type: ignore[override]
        ctx: Any, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, None, None]:
        x, threshold = ctx.saved_tensors
        bandwidth = ctx.bandwidth
        ste = (
            (threshold / bandwidth)
            * rectangle((x - threshold) / bandwidth)
            * grad_output
        )
        threshold_grad = torch.sum(-ste, dim=0)
        x_grad = (x > threshold) * grad_output
        if ctx.ste_to_input:
            x_grad = x_grad + ste
        return x_grad, threshold_grad, None, None


@dataclass
class JumpReLUSAEConfig(SAEConfig):
    """
    Configuration class for a JumpReLUSAE.
    """

    @override
    @classmethod
    def architecture(cls) -> str:
        return "jumprelu"


class JumpReLUSAE(SAE[JumpReLUSAEConfig]):
    """
    JumpReLUSAE is an inference-only implementation of a Sparse Autoencoder (SAE)
    using a JumpReLU activation. For each unit, if its pre-activation is
    <= threshold, that unit is zeroed out; otherwise, it follows a user-specified
    activation function (e.g., ReLU etc.).

    It implements:

      - initialize_weights: sets up parameters, including a threshold.
      - encode: computes the feature activations using JumpReLU.
      - decode: reconstructs the input from the feature activations.

    SAE.forward() automatically calls encode and decode,
    including any error-term processing if configured.
    """

    b_enc: nn.Parameter
    threshold: nn.Parameter

    def __init__(self, cfg: JumpReLUSAEConfig, use_error_term: bool = False):
        super().__init__(cfg, use_error_term)

    @override
    def initialize_weights(self) -> None:
        super().initialize_weights()
        self.threshold = nn.Parameter(
            torch.zeros(self.cfg.d_sae, dtype=self.dtype, device=self.device)
        )
        self.b_enc = nn.Parameter(
            torch.zeros(self.cfg.d_sae, dtype=self.dtype, device=self.device)
        )

    @override
    def encode(self, x: torch.Tensor) -> torch.Tensor:
        """
        Encode the input tensor into the feature space using JumpReLU.
        The threshold parameter determines which units remain active.
        """
        sae_in = self.process_sae_in(x)
        hidden_pre = self.hook_sae_acts_pre(sae_in @ self.W_enc + self.b_enc)

        # 1) Apply the base "activation_fn" from config (e.g., ReLU).
        base_acts = self.activation_fn(hidden_pre)

        # 2) Zero out any unit whose (hidden_pre <= threshold).
        #    We cast the boolean mask to the same dtype for safe multiplication.
        jump_relu_mask = (hidden_pre > self.threshold).to(base_acts.dtype)

        # 3) Multiply the normally activated units by that mask.
        return self.hook_sae_acts_post(base_acts * jump_relu_mask)

    @override
    def decode(self, feature_acts: torch.Tensor) -> torch.Tensor:
        """
        Decode the feature activations back to the input space.
        Follows the same steps as StandardSAE: apply scaling, transform, hook, and optionally reshape.
        """
        sae_out_pre = feature_acts @ self.W_dec + self.b_dec
        sae_out_pre = self.hook_sae_recons(sae_out_pre)
        sae_out_pre = self.run_time_activation_norm_fn_out(sae_out_pre)
        return self.reshape_fn_out(sae_out_pre, self.d_head)

    @override
    @torch.no_grad()
    def fold_W_dec_norm(self):
        """
        Override to properly handle threshold adjustment with W_dec norms.
        When we scale the encoder weights, we need to scale the threshold
        by the same factor to maintain the same sparsity pattern.
        """
        # Save the current threshold before calling parent method
        current_thresh = self.threshold.clone()

        # Handle W_enc, W_dec, and b_enc adjustment
        W_dec_norms = self.fold_and_get_W_dec_norm()

        # Scale the threshold by the same factor as we scaled b_enc
        # This ensures the same features remain active/inactive after folding
        self.threshold.data = current_thresh * W_dec_norms


@dataclass
class JumpReLUTrainingSAEConfig(TrainingSAEConfig):
    """
    Configuration class for training a JumpReLUTrainingSAE.

    Args:
        jumprelu_init_threshold: initial threshold for the JumpReLU activation
        jumprelu_bandwidth: bandwidth for the JumpReLU activation
        jumprelu_sparsity_loss_mode: mode for the sparsity loss, either "step" or "tanh" or "quadratic". "step" is Google Deepmind's L0 loss, "tanh" is Anthropic's sparsity loss, "quadratic" is Google Deepmind (GemmaScope2).
        l0_coefficient: coefficient for the l0 sparsity loss
        l0_warm_up_steps: number of warm-up steps for the l0 sparsity loss
        pre_act_loss_coefficient: coefficient for the pre-activation loss. Set to None to disable. Set to 3e-6 to match Anthropic's setup.
        jumprelu_tanh_scale: scale for the tanh sparsity loss. Only relevant for "tanh" sparsity loss mode.
        jumprelu_ste_to_input: whether the straight-through estimator also passes gradient to the pre-activations, and so to the encoder, rather than to the threshold alone. False matches DeepMind's JumpReLU, True matches Anthropic's setup.
        target_l0: target number of active latents for the quadratic sparsity loss. Must be set when using "quadratic" sparsity loss mode, and is ignored otherwise.
    """

    jumprelu_init_threshold: float = 0.01
    jumprelu_bandwidth: float = 0.05
    # step is Google Deepmind, tanh is Anthropic, quadratic is Google Deepmind (GemmaScope2)
    jumprelu_sparsity_loss_mode: Literal["step", "tanh", "quadratic"] = "step"
    l0_coefficient: float = 1.0
    l0_warm_up_steps: int = 0

    # anthropic's auxiliary loss to avoid dead features
    pre_act_loss_coefficient: float | None = None

    # only relevant for tanh sparsity loss mode
    jumprelu_tanh_scale: float = 4.0

    # Anthropic passes the STE gradient to all model params, DeepMind only to the threshold
    jumprelu_ste_to_input: bool = False

    # must be set for quadratic sparsity loss mode
    target_l0: float | None = None

    @override
    @classmethod
    def architecture(cls) -> str:
        return "jumprelu"


class JumpReLUTrainingSAE(TrainingSAE[JumpReLUTrainingSAEConfig]):
    """
    JumpReLUTrainingSAE is a training-focused implementation of a SAE using a JumpReLU activation.

    Similar to the inference-only JumpReLUSAE, but with:

      - A learnable threshold parameter.
      - A specialized auxiliary loss term for sparsity (L0 or similar).

    The threshold is parameterized directly rather than as exp(log_threshold).
    Adam moves a parameter by at most ~lr per step, so a log parameterization
    moves the threshold multiplicatively and barely shifts a small init within
    a typical lr * steps budget (issue #494). This diverges from DeepMind's
    JumpReLU, which trains log(threshold) partly for positivity; that is kept
    here by projecting the parameter in training_forward_pass.

    Methods of interest include:

    - initialize_weights: sets up W_enc, b_enc, W_dec, b_dec, and threshold.
    - encode_with_hidden_pre_jumprelu: runs a forward pass for training.
    - training_forward_pass: calculates MSE and auxiliary losses, returning a TrainStepOutput.
    """

    b_enc: nn.Parameter
    threshold: nn.Parameter

    def __init__(self, cfg: JumpReLUTrainingSAEConfig, use_error_term: bool = False):
        super().__init__(cfg, use_error_term)
        _validate_jumprelu_config(cfg)

        # We'll store a bandwidth for the training approach, if needed
        self.bandwidth = cfg.jumprelu_bandwidth

        # Kept in float32 whatever the SAE dtype, since Adam's ~lr sized steps on an
        # O(1) threshold round away in bfloat16; cast to the compute dtype at use.
        self.threshold = nn.Parameter(
            torch.full(
                (self.cfg.d_sae,),
                cfg.jumprelu_init_threshold,
                dtype=torch.float32,
                device=self.device,
            )
        )

    @override
    def initialize_weights(self) -> None:
        """
        Initialize parameters like the base SAE, but also add b_enc.
        """
        super().initialize_weights()
        # Encoder Bias
        self.b_enc = nn.Parameter(
            torch.zeros(self.cfg.d_sae, dtype=self.dtype, device=self.device)
        )

    @override
    def _apply(self, *args: Any, **kwargs: Any) -> "JumpReLUTrainingSAE":
        out = super()._apply(*args, **kwargs)
        # nn.Module.to() casts every float parameter, and the load paths call it
        # with cfg.dtype, so restore the threshold invariant from __init__.
        threshold = self._parameters.get("threshold")
        if threshold is not None and threshold.dtype != torch.float32:
            threshold.data = threshold.data.float()
        return out

    @override
    def training_forward_pass(self, step_input: TrainStepInput) -> TrainStepOutput:
        # Keep the threshold non-negative; below zero the gate passes negative
        # pre-activations through. Projected on .data rather than clamped in the
        # graph, which would zero the threshold's gradient and pin any latent
        # that reaches zero there permanently.
        with torch.no_grad():
            self.threshold.data.clamp_(min=0.0)
        return super().training_forward_pass(step_input)

    @override
    def encode_with_hidden_pre(
        self, x: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        sae_in = self.process_sae_in(x)

        hidden_pre = self.hook_sae_acts_pre(sae_in @ self.W_enc + self.b_enc)
        feature_acts = self.hook_sae_acts_post(
            JumpReLU.apply(
                hidden_pre,
                self.threshold.to(hidden_pre.dtype),
                self.bandwidth,
                self.cfg.jumprelu_ste_to_input,
            )
        )

        return feature_acts, hidden_pre  # type: ignore

    @override
    def calculate_aux_loss(
        self,
        step_input: TrainStepInput,
        feature_acts: torch.Tensor,
        hidden_pre: torch.Tensor,
        sae_out: torch.Tensor,
    ) -> dict[str, torch.Tensor]:
        """Calculate architecture-specific auxiliary loss terms."""

        threshold = self.threshold.to(hidden_pre.dtype)
        W_dec_norm = self.W_dec.norm(dim=1)
        if self.cfg.jumprelu_sparsity_loss_mode in ("step", "quadratic"):
            l0 = torch.sum(
                Step.apply(  # type: ignore
                    hidden_pre,
                    threshold,
                    self.bandwidth,
                    self.cfg.jumprelu_ste_to_input,
                ),
                dim=-1,
            )
            if self.cfg.jumprelu_sparsity_loss_mode == "quadratic":
                # Gemma Scope 2 quadratic penalty around a target L0
                target_l0 = self.cfg.target_l0
                if target_l0 is None:
                    raise ValueError(
                        "cfg.target_l0 must be set for quadratic sparsity loss mode."
                    )
                per_item_l0_loss = 2 / target_l0 * (l0 - target_l0) ** 2
            else:
                per_item_l0_loss = l0
            l0_loss = (step_input.coefficients["l0"] * per_item_l0_loss).mean()
        elif self.cfg.jumprelu_sparsity_loss_mode == "tanh":
            per_item_l0_loss = torch.tanh(
                self.cfg.jumprelu_tanh_scale * feature_acts * W_dec_norm
            ).sum(dim=-1)
            l0_loss = (step_input.coefficients["l0"] * per_item_l0_loss).mean()
        else:
            raise ValueError(
                f"Invalid sparsity loss mode: {self.cfg.jumprelu_sparsity_loss_mode}"
            )
        losses = {"l0_loss": l0_loss}

        if self.cfg.pre_act_loss_coefficient is not None:
            losses["pre_act_loss"] = calculate_pre_act_loss(
                self.cfg.pre_act_loss_coefficient,
                threshold,
                hidden_pre,
                step_input.dead_neuron_mask,
                W_dec_norm,
            )
        return losses

    @override
    def get_coefficients(self) -> dict[str, float | TrainCoefficientConfig]:
        return {
            "l0": TrainCoefficientConfig(
                value=self.cfg.l0_coefficient,
                warm_up_steps=self.cfg.l0_warm_up_steps,
            ),
        }

    @override
    @torch.no_grad()
    def fold_W_dec_norm(self):
        """
        Override to properly handle threshold adjustment with W_dec norms.
        """
        # Save the current threshold before we call the parent method
        current_thresh = self.threshold.clone()

        # Handle W_enc, W_dec, and b_enc adjustment
        W_dec_norms = self.fold_and_get_W_dec_norm()

        # Scale the threshold by the same factor as we scaled b_enc
        # This ensures the same features remain active/inactive after folding
        self.threshold.data = current_thresh * W_dec_norms

    @override
    def process_state_dict_for_loading(self, state_dict: dict[str, Any]) -> None:
        """Convert log_threshold from older checkpoints to threshold"""
        if "log_threshold" in state_dict:
            log_threshold = state_dict["log_threshold"]
            del state_dict["log_threshold"]
            state_dict["threshold"] = torch.exp(log_threshold).detach().contiguous()


def calculate_pre_act_loss(
    pre_act_loss_coefficient: float,
    threshold: torch.Tensor,
    hidden_pre: torch.Tensor,
    dead_neuron_mask: torch.Tensor | None,
    W_dec_norm: torch.Tensor,
) -> torch.Tensor:
    """
    Calculate Anthropic's pre-activation loss, except we only calculate this for latents that are actually dead.
    """
    if dead_neuron_mask is None or not dead_neuron_mask.any():
        return hidden_pre.new_tensor(0.0)
    per_item_loss = (
        (threshold - hidden_pre).relu() * dead_neuron_mask * W_dec_norm
    ).sum(dim=-1)
    return pre_act_loss_coefficient * per_item_loss.mean()


def _validate_jumprelu_config(cfg: JumpReLUTrainingSAEConfig) -> None:
    if cfg.jumprelu_sparsity_loss_mode == "quadratic":
        if cfg.target_l0 is None:
            raise ValueError(
                "cfg.target_l0 must be set for quadratic sparsity loss mode."
            )
        if cfg.target_l0 <= 0:
            raise ValueError("cfg.target_l0 must be greater than 0.")
        if cfg.target_l0 > cfg.d_sae:
            raise ValueError(
                f"cfg.target_l0 must be less than or equal to cfg.d_sae "
                f"({cfg.d_sae}), got {cfg.target_l0}."
            )
