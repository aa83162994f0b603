"""
SCAO v3 — Sparse Curvature-Aware Adaptive Optimizer
====================================================

Incremental patch over v2. All v1/v2 checkpoints load without changes.
New args are optional and default to safe v2 behaviour.

New in v3:
  R1  Adaptive warmup   — exits Phase 1 early when grad norm stabilises
  R2  Dynamic sparsity  — per-layer mask threshold scaled by grad norm ratio
  R3  Lazy precond      — event-driven factor updates instead of fixed freq
  R4  gSNR clipping     — element-wise SNR mask before the parameter update
  R5  Adaptive rank     — adjusts preconditioner k proportional to layer activity

The default parameter update is AdamW. Curvature changes the gradient supplied
to AdamW after warmup, rather than adding another moment estimator.

Scale presets
-------------
  <1B   scao_sub1b()   k_min=4, sparsity=0.4, lookahead disabled
  1–3B  scao_1b()
  3B    scao_3b()
  7B    scao_7b()
  40B   scao_40b()     lazy_precond, int8 EMA, gSNR
  125B  scao_125b()    FSDP/Megatron, state offload-friendly
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable

import torch
from torch import Tensor
from torch.optim import Optimizer

from .filters import (
    _AdaptiveWarmupScheduler,
    _DynamicSparseFilter,
    _gsnr_clip,
    _LazyPrecondTrigger,
    _SparseGradFilter,
)
from .preconditioner import SparsePreconditioner, _broadcast_precond
from .presets import (
    scao_1b,
    scao_3b,
    scao_7b,
    scao_40b,
    scao_125b,
    scao_sub1b,
)


class SCAO(Optimizer):
    """
    Sparse Curvature-Aware Adaptive Optimizer v3.

    v1/v2 args are unchanged. New v3 args are all optional:

        dynamic_sparsity (bool):
            Enable per-layer adaptive sparsity (R2). Recommended for QLoRA
            at any scale. Default: True.

        adaptive_warmup (bool):
            Early-exit warmup when curvature stabilises (R1). Default: True.
        warmup_stability_threshold (float):
            Relative grad norm change below which a step counts as stable.
            Default: 0.05.
        warmup_patience (int):
            Consecutive stable steps required to exit warmup. Default: 5.

        lazy_precond (bool):
            Event-driven preconditioner updates instead of fixed frequency (R3).
            Enable at 40B+. Default: False.
        lazy_delta_threshold (float):
            Relative grad norm change that triggers a lazy update. Default: 0.1.
        lazy_max_skip (int):
            Hard cap on steps between preconditioner updates. Default: 50.

        use_gsnr_clip (bool):
            Element-wise SNR masking before the parameter update (R4).
            Default: False.
        gsnr_threshold (float):
            Elements with SNR below this are zeroed. Default: 0.5.

        adaptive_rank (bool):
            Adjusts preconditioner k based on per-layer grad norm ratio (R5).
            Default: False.
        preconditioner_enabled (bool):
            Whether to allocate and apply the Kronecker/diagonal preconditioner
            for this parameter group. Set to False for very large embeddings or
            output heads in 100B+ fine-tuning when the curvature overhead is not
            worth the memory/latency tradeoff.
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.01,
        precond_freq: int = 20,
        epsilon_sparse: float = 0.05,
        k_min: int = 8,
        k_max: int = 128,
        rho: float = 0.999,
        tau: float | None = 1.0,
        warmup_steps: int = 100,
        blend_steps: int = 50,
        min_precond_updates: int = 2,
        max_precond_dim: int = 4096,
        use_newton_schulz: bool = False,
        use_int8_ema: bool = False,
        async_precond: bool = True,
        beta3: float = 0.99,
        sparsity: float = 0.0,
        noise_std_init: float = 0.0,
        noise_anneal: float = 0.998,
        noise_relative: bool = False,
        lars_coeff: float = 0.0,
        lookahead_k: int = 0,
        lookahead_alpha: float = 0.5,
        # v3 (Disabled by default to match v2 memory footprint)
        dynamic_sparsity: bool = False,
        adaptive_warmup: bool = False,
        warmup_stability_threshold: float = 0.05,
        warmup_patience: int = 5,
        lazy_precond: bool = False,
        lazy_delta_threshold: float = 0.1,
        lazy_max_skip: int = 50,
        use_gsnr_clip: bool = False,
        gsnr_threshold: float = 0.5,
        adaptive_rank: bool = False,
        preconditioner_enabled: bool = True,
        factor_mode: str = "full",
        curvature_mode: str = "dense",
        curvature_rank: int | None = None,
        update_rule: str = "adamw",
    ) -> None:
        if lr < 0:
            raise ValueError(f"Invalid lr: {lr}")
        if not (0.0 <= betas[0] < 1.0):
            raise ValueError(f"Invalid beta1: {betas[0]}")
        if not (0.0 <= betas[1] < 1.0):
            raise ValueError(f"Invalid beta2: {betas[1]}")
        if not (0.0 <= beta3 < 1.0):
            raise ValueError(f"Invalid beta3: {beta3}")
        if precond_freq < 1:
            raise ValueError(f"precond_freq must be >= 1, got {precond_freq}")
        if min_precond_updates < 0:
            raise ValueError(
                f"min_precond_updates must be >= 0, got {min_precond_updates}"
            )
        if not 0.0 <= sparsity < 1.0:
            raise ValueError(f"sparsity must be in [0, 1), got {sparsity}")
        if noise_std_init < 0.0:
            raise ValueError(f"noise_std_init must be >= 0, got {noise_std_init}")
        if factor_mode not in {"full", "wide"}:
            raise ValueError("factor_mode must be 'full' or 'wide'")
        if update_rule != "adamw":
            raise ValueError("Only the stable update_rule='adamw' is supported")
        if curvature_mode != "dense" or curvature_rank is not None:
            raise ValueError(
                "Only the stable dense curvature path is supported; "
                "use curvature_mode='dense' and curvature_rank=None"
            )

        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "precond_freq": precond_freq, "epsilon_sparse": epsilon_sparse,
            "k_min": k_min, "k_max": k_max, "rho": rho, "tau": tau,
            "warmup_steps": warmup_steps, "blend_steps": blend_steps,
            "min_precond_updates": min_precond_updates,
            "max_precond_dim": max_precond_dim, "use_newton_schulz": use_newton_schulz,
            "use_int8_ema": use_int8_ema, "beta3": beta3, "lars_coeff": lars_coeff,
            "preconditioner_enabled": preconditioner_enabled,
            "factor_mode": factor_mode,
            "curvature_mode": curvature_mode,
            "curvature_rank": curvature_rank,
            "update_rule": update_rule,
        }
        super().__init__(params, defaults)

        self._precond_stream: torch.cuda.Stream | None = None
        if async_precond and torch.cuda.is_available():
            self._precond_stream = torch.cuda.Stream()
        self._precond_async_pending: bool = False

        self._callbacks: list = []
        self._global_step: int = 0
        self._noise_std: float = noise_std_init
        self._noise_anneal: float = noise_anneal
        self._noise_relative: bool = noise_relative
        self._lookahead_k: int = lookahead_k
        self._lookahead_alpha: float = lookahead_alpha
        self._slow_weights: dict[int, Tensor] = {}
        self._sparsity: float = sparsity
        self._dynamic_sparsity: bool = dynamic_sparsity
        self._sparse_filters: dict[int, _DynamicSparseFilter | _SparseGradFilter] = {}
        self._global_norm_ema: float = 1.0

        self._adaptive_warmup: bool = adaptive_warmup
        self._warmup_scheduler = _AdaptiveWarmupScheduler(
            warmup_steps=warmup_steps,
            stability_threshold=warmup_stability_threshold,
            patience=warmup_patience,
            min_warmup=max(20, warmup_steps // 5),
        )

        self._lazy_precond: bool = lazy_precond
        self._lazy_triggers: dict[int, _LazyPrecondTrigger] = {}
        self._lazy_delta_threshold: float = lazy_delta_threshold
        self._lazy_max_skip: int = lazy_max_skip
        self._use_gsnr_clip: bool = use_gsnr_clip
        self._gsnr_threshold: float = gsnr_threshold
        self._adaptive_rank: bool = adaptive_rank
        # Cache for the warmup scheduler result — computed once per global step
        # in step() and reused for all parameters in _step_group().
        self._in_warmup_global: bool = True

    # -----------------------------------------------------------------------
    # Lookahead
    # -----------------------------------------------------------------------

    @torch.no_grad()
    def _lookahead_sync(self) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                pid = id(p)
                if pid not in self._slow_weights:
                    self._slow_weights[pid] = p.data.clone()
                slow = self._slow_weights[pid]
                slow.add_(self._lookahead_alpha * (p.data - slow))
                p.data.copy_(slow)

    # -----------------------------------------------------------------------
    # LARS trust ratio
    # -----------------------------------------------------------------------

    @staticmethod
    def _lars_scale(p: Tensor, update: Tensor, lars_coeff: float, weight_decay: float) -> float:
        p_norm = p.data.norm()
        u_norm = update.norm()
        if p_norm == 0 or u_norm == 0:
            return 1.0
        return float(lars_coeff * p_norm / (u_norm + weight_decay * p_norm + 1e-8))

    # -----------------------------------------------------------------------
    # R5: Adaptive rank
    # -----------------------------------------------------------------------

    def _maybe_adjust_rank(self, precond: SparsePreconditioner, grad_norm: float, group: dict) -> None:
        """
        Reallocates preconditioner rank budget toward high-activity layers.
        ratio > 2.0 → layer is a dominant curvature contributor → increase k.
        ratio < 0.5 → layer is near-flat → shrink k to free HBM.
        Requires SparsePreconditioner.k to support dynamic assignment.
        """
        if not self._adaptive_rank:
            return
        ratio = grad_norm / (self._global_norm_ema + 1e-8)
        current_k = precond.k
        if ratio > 2.0:
            new_k = min(group["k_max"], int(current_k * 1.25))
        elif ratio < 0.5:
            new_k = max(group["k_min"], int(current_k * 0.8))
        else:
            return
        if new_k != current_k:
            precond.k = new_k

    # -----------------------------------------------------------------------
    # State initialisation
    # -----------------------------------------------------------------------

    def _init_state(self, p: Tensor, group: dict) -> None:
        state = self.state[p]
        if len(state) > 0:
            return
        state["step"] = 0
        state["scao_step"] = 0
        # All moment buffers in fp32 regardless of param dtype to avoid
        # precision loss when accumulating bf16/fp16 gradients.
        state["exp_avg"] = torch.zeros_like(p, dtype=torch.float32,
                                            memory_format=torch.preserve_format)
        state["exp_avg_sq"] = torch.zeros_like(p, dtype=torch.float32,
                                               memory_format=torch.preserve_format)
        if group.get("preconditioner_enabled", True):
            state["preconditioner"] = SparsePreconditioner(
                param=p,
                epsilon_sparse=group["epsilon_sparse"],
                k_min=group["k_min"],
                k_max=group["k_max"],
                rho=group["rho"],
                max_precond_dim=group["max_precond_dim"],
                use_newton_schulz=group["use_newton_schulz"],
                use_int8_ema=group["use_int8_ema"],
                factor_mode=group["factor_mode"],
                curvature_mode=group["curvature_mode"],
                curvature_rank=group["curvature_rank"],
            )

    # -----------------------------------------------------------------------
    # Grad norm (feeds R1, R2, R5)
    # -----------------------------------------------------------------------

    def _compute_avg_grad_norm(self) -> float:
        norms = [float(p.grad.norm()) for g in self.param_groups for p in g["params"] if p.grad is not None]
        if not norms:
            return 0.0
        avg = sum(norms) / len(norms)
        # Slow EMA avoids overreaction to single noisy batches
        self._global_norm_ema = 0.95 * self._global_norm_ema + 0.05 * avg
        return avg

    def _noise_scale_for(self, grad: Tensor) -> float:
        """Return the current additive-noise scale for one effective gradient.

        Relative noise is expressed as a fraction of the gradient RMS, making
        the same configuration meaningful across LoRA adapters with very
        different gradient magnitudes. It is opt-in; zero noise remains the
        default for reproducible baselines.
        """
        if not self._noise_relative:
            return self._noise_std
        return self._noise_std * float(grad.norm()) / math.sqrt(grad.numel())

    # -----------------------------------------------------------------------
    # Main step
    # -----------------------------------------------------------------------

    @torch.no_grad()
    def step(self, closure: Callable[[], Tensor] | None = None) -> Tensor | None:  # type: ignore[override]
        loss: Tensor | None = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()

        # Any curvature update queued by the previous step must complete before
        # this step can read preconditioner factors. This keeps async execution
        # deterministic without forcing a sync immediately after every update.
        self.synchronize_precond()

        self._global_step += 1

        # Compute before iterating params so R2/R5 filters see a consistent ref
        avg_norm = self._compute_avg_grad_norm()

        if self._dynamic_sparsity:
            for f in self._sparse_filters.values():
                if isinstance(f, _DynamicSparseFilter):
                    f.set_global_norm_ref(self._global_norm_ema)

        # R1: evaluate warmup scheduler ONCE per global step (not once per parameter).
        # Calling update() per-parameter would corrupt _stable_count by incrementing
        # it N times per step (N = number of parameters) instead of once per step.
        if self._adaptive_warmup:
            self._in_warmup_global = self._warmup_scheduler.update(
                self._global_step, avg_norm
            )
        else:
            # Per-param warmup is determined by `step <= warmup_steps` in _step_group.
            # Set the global flag to a correct proxy for logging (warmup_active metric).
            warmup_steps_max = max(
                (g.get("warmup_steps", 100) for g in self.param_groups), default=100
            )
            self._in_warmup_global = self._global_step <= warmup_steps_max

        for group in self.param_groups:
            self._step_group(group, avg_norm)

        self._noise_std *= self._noise_anneal

        if self._lookahead_k > 0 and self._global_step % self._lookahead_k == 0:
            self._lookahead_sync()

        if self._callbacks:
            self.synchronize_precond()
            from .logging import collect_metrics
            metrics = collect_metrics(self)
            metrics["noise_std"] = self._noise_std
            metrics["global_norm_ema"] = self._global_norm_ema
            # Reuse the already-computed warmup flag — do NOT call update() again here,
            # that would corrupt the scheduler's stability counter a second time.
            metrics["warmup_active"] = self._in_warmup_global
            for cb in self._callbacks:
                cb(metrics)

        return loss

    # -----------------------------------------------------------------------
    # Per-group update
    # -----------------------------------------------------------------------

    def _step_group(self, group: dict, avg_norm: float) -> None:
        lr           = group["lr"]
        beta1, beta2 = group["betas"]
        eps          = group["eps"]
        weight_decay = group["weight_decay"]
        precond_freq = group["precond_freq"]
        tau          = group["tau"]
        warmup_steps = group["warmup_steps"]
        min_pu       = group["min_precond_updates"]
        lars_coeff   = group["lars_coeff"]

        for p in group["params"]:
            if p.grad is None:
                continue
            if p.grad.is_sparse:
                raise RuntimeError("SCAO does not support sparse gradients.")

            self._init_state(p, group)
            state = self.state[p]
            state["step"] += 1
            step = state["step"]
            pid  = id(p)

            grad = p.grad.float()
            grad_norm = float(grad.norm())

            # Optional research features are deliberately opt-in.  In particular,
            # absolute noise is unsafe for LoRA gradients, whose scale is often
            # orders of magnitude below a generic noise standard deviation.
            # Keep curvature and update statistics on the same effective gradient.
            #
            # R2: instantiate filter type once per parameter
            if self._sparsity > 0.0:
                if pid not in self._sparse_filters:
                    if self._dynamic_sparsity:
                        self._sparse_filters[pid] = _DynamicSparseFilter(
                            base_sparsity=self._sparsity
                        )
                    else:
                        self._sparse_filters[pid] = _SparseGradFilter(self._sparsity)
                grad = self._sparse_filters[pid](grad)

            noise_scale = self._noise_scale_for(grad)
            if noise_scale > 1e-9:
                grad = grad + torch.randn_like(grad) * noise_scale

            # Decoupled weight decay applied before the gradient step (AdamW-style)
            if weight_decay != 0.0:
                p.mul_(1.0 - lr * weight_decay)

            exp_avg      = state["exp_avg"]
            exp_avg_sq   = state["exp_avg_sq"]
            precond: SparsePreconditioner | None = state.get("preconditioner")

            if precond is not None:
                self._maybe_adjust_rank(precond, grad_norm, group)

            # R1: adaptive warmup — use the per-step flag computed once in step().
            # Non-adaptive path falls back to the per-param step counter.
            in_warmup = (
                self._in_warmup_global
                if self._adaptive_warmup
                else (step <= warmup_steps)
            ) or (precond is not None and precond.precond_step < min_pu)

            if in_warmup:
                exp_avg.mul_(beta1).add_(grad, alpha=1.0 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1.0 - beta2)
                bc1 = 1.0 - beta1 ** step
                bc2 = 1.0 - beta2 ** step
                denom = (exp_avg_sq.sqrt() / math.sqrt(bc2)).add_(eps)
                # Accumulate curvature during warmup so Phase 2 starts warm
                if precond is not None and step % precond_freq == 0:
                    self._update_precond_async(precond, grad)
                p.add_((exp_avg / denom).to(p.dtype), alpha=-(lr / bc1))
                continue

            # -------------------------------------------------------------------
            # Phase 2: preconditioned update
            # -------------------------------------------------------------------

            if not state.get("scao_phase_started", False):
                state["scao_phase_started"] = True
                state["phase2_start_step"]  = step
                state["scao_step"]          = 0

            state["scao_step"] += 1
            scao_step = state["scao_step"]

            # R3: lazy trigger replaces fixed-frequency schedule
            if self._lazy_precond:
                if pid not in self._lazy_triggers:
                    self._lazy_triggers[pid] = _LazyPrecondTrigger(
                        self._lazy_delta_threshold, self._lazy_max_skip
                    )
                should_update = self._lazy_triggers[pid].should_update(grad_norm)
            else:
                should_update = (step % precond_freq == 0)

            g_precond = precond.precondition(grad) if precond is not None else grad
            if tau is not None and precond is not None:
                g_precond = self._curvature_clip(g_precond, precond, grad, tau, eps)

            # Linear blend from raw gradient to preconditioned over blend_steps,
            # preventing a cold-start spike at the Phase 1→2 transition
            blend_steps = group.get("blend_steps", 50)
            blend = min(1.0, scao_step / blend_steps) if blend_steps > 0 else 1.0
            g_eff = blend * g_precond.float() + (1.0 - blend) * grad

            exp_avg.mul_(beta1).add_(g_eff, alpha=1.0 - beta1)

            # Bias correction uses the global step because the moment buffers
            # were already updated during warmup.
            bc1 = 1.0 - beta1 ** step
            bc2 = 1.0 - beta2 ** step
            exp_avg_sq.mul_(beta2).addcmul_(g_eff, g_eff, value=1.0 - beta2)
            update = (exp_avg / bc1) / ((exp_avg_sq / bc2).sqrt().add_(eps))

            # R4: element-wise SNR mask applied to the final update direction.
            # Evaluated after moments are updated so the SNR estimate reflects current
            # signal quality (avoids cold-start bias). Zeroes update components where
            # |m| / sqrt(v) < gsnr_threshold, suppressing high-variance low-signal dirs.
            if self._use_gsnr_clip:
                update = _gsnr_clip(update, exp_avg, exp_avg_sq, eps, self._gsnr_threshold)

            trust = self._lars_scale(p, update, lars_coeff, weight_decay) if lars_coeff > 0 else 1.0
            # `update` already contains bias-corrected m_hat (= exp_avg / bc1).
            # Dividing by bc1 here would apply bias correction twice — use lr*trust only.
            p.add_(update.to(p.dtype), alpha=-(lr * trust))

            # Update curvature after the parameter update has consumed the
            # current factors. Async work can overlap the remaining optimizer
            # bookkeeping and is fenced at the start of the next step.
            if should_update and precond is not None:
                self._update_precond_async(precond, grad)

    # -----------------------------------------------------------------------
    # Helpers
    # -----------------------------------------------------------------------

    def _update_precond_async(self, precond: SparsePreconditioner, grad: Tensor) -> None:
        """
        Trigger async curvature update. Detach and clone to avoid holding
        references to the original grad tensor which might be needed for
        other param groups or overlapping steps.
        """
        # Detach ensures we don't hold the graph.
        # Clone ensures the data is isolated for the async stream.
        g_detached = grad.detach()
        if self._precond_stream is not None:
            g_update = g_detached.clone()
            with torch.cuda.stream(self._precond_stream):
                precond.update_curvature(g_update)
            self._precond_async_pending = True
        else:
            precond.update_curvature(g_detached)

    @staticmethod
    def _curvature_clip(
        g_precond: Tensor,
        precond: SparsePreconditioner,
        grad: Tensor,
        tau: float,
        eps: float,
    ) -> Tensor:
        nat_norm = precond.natural_grad_norm(grad, eps=eps)
        if nat_norm > tau:
            g_precond = g_precond * (tau / nat_norm.clamp(min=eps))
        return g_precond

    def synchronize_precond(self) -> None:
        """Block until all pending async preconditioner updates complete.
        Call before checkpointing or evaluation when async_precond=True."""
        if self._precond_stream is not None and self._precond_async_pending:
            self._precond_stream.synchronize()
            self._precond_async_pending = False

    def sync_preconditioner(
        self,
        process_group: torch.distributed.ProcessGroup | None = None,
    ) -> None:
        """Broadcast optimizer state from rank 0 to all ranks.
        Not needed during normal DDP training; call only after loading
        a checkpoint on rank 0 before resuming distributed training."""
        import torch.distributed as dist
        if not dist.is_available() or not dist.is_initialized():
            warnings.warn(
                "sync_preconditioner() called but distributed is not initialised.",
                RuntimeWarning, stacklevel=2,
            )
            return
        for state in self.state.values():
            for key in ("exp_avg", "exp_avg_sq", "exp_avg_diff"):
                if key in state:
                    dist.broadcast(state[key], src=0, group=process_group)
            if "step" in state:
                step_t = torch.tensor([state["step"]], dtype=torch.int64)
                dist.broadcast(step_t, src=0, group=process_group)
                state["step"] = int(step_t.item())
            precond = state.get("preconditioner")
            if precond is not None:
                _broadcast_precond(precond, process_group)

    # -----------------------------------------------------------------------
    # Callbacks
    # -----------------------------------------------------------------------

    def add_callback(self, callback: Callable[[dict[str, object]], None]) -> None:
        self._callbacks.append(callback)

    def remove_callback(self, callback: Callable[[dict[str, object]], None]) -> None:
        try:
            self._callbacks.remove(callback)
        except ValueError:
            pass

    def clear_callbacks(self) -> None:
        self._callbacks.clear()

    # -----------------------------------------------------------------------
    # Checkpoint serialisation
    # -----------------------------------------------------------------------

    def state_dict(self) -> dict:
        """
        Return serialisable state dict.  Preconditioner tensors are included,
        as well as SCAO-specific runtime state (noise level, global step,
        warmup scheduler state, etc.) so that checkpoint round-trips are exact.
        """
        self.synchronize_precond()
        base = super().state_dict()
        # SparsePreconditioner state is not handled by the base class
        base["_scao_precond"] = {
            idx: state["preconditioner"].state_dict()
            for idx, state in enumerate(self.state.values())
            if "preconditioner" in state
        }
        # Save SCAO-specific runtime state so load_state_dict restores a
        # numerically identical optimizer (prevents checkpoint round-trip mismatches).
        base["_scao_runtime"] = {
            "global_step":      self._global_step,
            "noise_std":        self._noise_std,
            "global_norm_ema":  self._global_norm_ema,
            "warmup_prev_norm": self._warmup_scheduler._prev_norm,
            "warmup_stable_count": self._warmup_scheduler._stable_count,
            "warmup_early_exit_step": self._warmup_scheduler._early_exit_step,
        }
        return base

    def load_state_dict(self, state_dict: dict) -> None:
        # Work on a shallow copy to avoid mutating the caller's dictionary.
        state_dict = dict(state_dict)
        extra_precond  = state_dict.pop("_scao_precond",  {})
        runtime        = state_dict.pop("_scao_runtime",  {})
        super().load_state_dict(state_dict)
        for group in self.param_groups:
            # Older checkpoints did not record the update rule. Load them on
            # the supported AdamW path rather than reviving a retired update.
            group["update_rule"] = "adamw"
            group.setdefault("curvature_mode", "dense")
            group.setdefault("curvature_rank", None)
        for idx, state in enumerate(self.state.values()):
            if idx in extra_precond and "preconditioner" in state:
                state["preconditioner"].load_state_dict(extra_precond[idx])
        # Restore runtime state if available (checkpoints from older versions
        # will simply keep the defaults set in __init__).
        if runtime:
            self._global_step       = int(runtime.get("global_step",      self._global_step))
            self._noise_std         = float(runtime.get("noise_std",       self._noise_std))
            self._global_norm_ema   = float(runtime.get("global_norm_ema", self._global_norm_ema))
            ws = self._warmup_scheduler
            ws._prev_norm           = float(runtime.get("warmup_prev_norm",       ws._prev_norm))
            ws._stable_count        = int(runtime.get("warmup_stable_count",       ws._stable_count))
            ws._early_exit_step     = runtime.get("warmup_early_exit_step",        ws._early_exit_step)

    # -----------------------------------------------------------------------
    # Diagnostics
    # -----------------------------------------------------------------------

    def current_ranks(self) -> dict[int, int]:
        return {
            idx: state["preconditioner"].k
            for idx, state in enumerate(self.state.values())
            if "preconditioner" in state
        }

    def precond_stats(self) -> dict[str, object]:
        ks = list(self.current_ranks().values())
        if not ks:
            return {}
        return {
            "num_precond_layers": len(ks),
            "rank_min": min(ks),
            "rank_max": max(ks),
            "rank_mean": sum(ks) / len(ks),
            "global_norm_ema": self._global_norm_ema,
            "warmup_exited_early": self._warmup_scheduler.exited_early,
            "actual_warmup_steps": self._warmup_scheduler.actual_warmup_steps,
        }



__all__ = [
    "SCAO",
    "scao_sub1b",
    "scao_1b",
    "scao_3b",
    "scao_7b",
    "scao_40b",
    "scao_125b",
    "_SparseGradFilter",
    "_DynamicSparseFilter",
    "_AdaptiveWarmupScheduler",
    "_gsnr_clip",
    "_LazyPrecondTrigger",
]
