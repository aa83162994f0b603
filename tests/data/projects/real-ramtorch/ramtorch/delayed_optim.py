"""Dense Adam, Lion, and Muon with optional *update-level* extrapolation (EF).

For the ordinary optimizer's full update ``u`` at the CURRENT weights, apply
``p <- p - u - c * (u - previous_update)``. Moments are advanced exactly once;
this is not gradient extrapolation, a second optimizer step, or a base-optimizer
wrapper. The first completed ``step()`` is ordinary; correction starts on the
second call, matching a paper indexing convention with an initial no-op and
``t <= 1`` startup. Each parameter group saves its logical call count as
``ef_step``. Only actual calls count: an externally skipped call does nothing.

Parameters, gradients, moments, and saved updates use float32 or float64 on the
parameter's device (including CPU). AdamEF and Lion optionally fuse CUDA updates
with ``use_triton=True``; eager remains the default. No low-precision/master-weight
conversion, sparse/complex parameters, AMP GradScaler integration, native
``fused=True``/foreach options, capturable execution, or differentiable steps
are supported. Finite
precision arithmetic can differ from native optimizers by rounding order; in
particular, an update is computed explicitly, never recovered by subtracting
rounded old/new parameters. Tiny updates may leave a parameter unchanged while
still being present in EF history. Muon's transient Newton--Schulz working
matrices use the explicitly selected ``ns_dtype`` (FP32 by default), independently
of ambient autocast; its persistent optimizer state still uses parameter dtype.

With ``ef_coefficient > 0``, the only additional persistent tensor per active
parameter is ``previous_update``: the UNCORRECTED update, including its learning
rate and weight decay. A scheduler change therefore compares the new update to
the update at the previous call's learning rate, without rescaling history.
With coefficient zero, no history tensor is allocated. Missing gradients (and
frozen parameters, even with an attached gradient) leave weights, moments, and
per-parameter Adam steps unchanged, but zero any existing history. The logical
group counter still advances, so a first active parameter on a later call uses
zero history and receives correction immediately.

State is keyed by stable Parameter identities, not their storage pointers, so
same-shape/dtype/device storage rebinding by PipeDream-2BW is supported. Standard
optimizer ``state_dict`` / ``load_state_dict`` preserve moments, update history,
and startup counters. Parameters must be restored separately; this is NOT full
pipeline checkpoint/resume support.
"""
from __future__ import annotations

import math
from numbers import Integral, Real

import torch
from torch.optim import Optimizer

__all__ = ["AdamEF", "Lion", "Muon"]


def _nonnegative(name, value):
    if (isinstance(value, bool) or not isinstance(value, Real)
            or not math.isfinite(value) or value < 0):
        raise ValueError(f"{name} must be a finite nonnegative real scalar, got {value!r}")


def _counter(name, value):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
        raise ValueError(f"{name} must be a nonnegative integer, got {value!r}")


def _dense_real(name, tensor):
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor")
    if tensor.layout != torch.strided or tensor.dtype not in (torch.float32, torch.float64):
        raise ValueError(f"{name} must be dense real float32/float64; "
                         f"got {tensor.layout}, {tensor.dtype}")


class _UpdateEFOptimizer(Optimizer):
    """Shared validation/history, without an inner optimizer or weight backup."""

    _moment_names = ()
    _has_adam_step = False

    def __init__(self, params, defaults):
        defaults = dict(defaults, ef_step=0)
        self._validate_group(defaults)
        super().__init__(params, defaults)

    def _validate_group(self, group):
        for name in ("lr", "weight_decay", "ef_coefficient"):
            _nonnegative(name, group[name])
        betas = group["betas"]
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise ValueError("betas must contain exactly two real scalars in [0, 1)")
        for i, beta in enumerate(betas):
            _nonnegative(f"betas[{i}]", beta)
            if beta >= 1:
                raise ValueError(f"betas[{i}] must be less than 1, got {beta!r}")
        _counter("ef_step", group["ef_step"])
        for name in ("fused", "foreach", "capturable", "differentiable", "maximize", "amsgrad"):
            if group.get(name, False):
                raise ValueError(f"{type(self).__name__} does not support {name}=True")

    def add_param_group(self, param_group):
        """Add a validated group with its own fresh logical startup counter."""
        if not isinstance(param_group, dict):
            raise TypeError("param_group must be a dict")
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, torch.Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters must have a deterministic order, not a set")
        else:
            params = list(params)
        if len({id(parameter) for parameter in params}) != len(params):
            raise ValueError("each parameter must occur only once in an optimizer group")
        group["params"] = params
        candidate = dict(self.defaults, **group)
        self._validate_group(candidate)
        for parameter in params:
            self._validate_parameter(candidate, parameter)
        super().add_param_group(group)

    def _validate_parameter(self, group, parameter):
        _dense_real("parameter", parameter)

    def _state_spec(self, group):
        """Return per-group state requirements without mutating optimizer metadata."""
        return self._moment_names, self._has_adam_step

    def _state_shape(self, group, parameter, name):
        """Expected persistent tensor shape; matrix optimizers may use row state."""
        return parameter.shape

    def _validate_state(self, group, parameter, state, *, loading=False):
        if not isinstance(state, dict):
            raise ValueError("parameter optimizer state must be a dict")
        if not state:
            return
        moment_names, has_adam_step = self._state_spec(group)
        expected = set(moment_names)
        if has_adam_step:
            expected.add("step")
            _counter("Adam step", state.get("step"))
            if not 0 < state["step"] <= group["ef_step"]:
                raise ValueError("Adam step must be positive and no greater than ef_step")
        if group["ef_coefficient"] > 0:
            expected.add("previous_update")
        if set(state) != expected:
            raise ValueError(f"invalid {type(self).__name__} state keys: "
                             f"expected {sorted(expected)}, got {sorted(state)}")
        if group["ef_step"] == 0:
            raise ValueError("initialized optimizer state requires a positive ef_step")
        for name in expected - {"step"}:
            value = state[name]
            _dense_real(f"state[{name!r}]", value)
            expected_shape = self._state_shape(group, parameter, name)
            if value.shape != expected_shape:
                raise ValueError(f"state[{name!r}] shape {tuple(value.shape)} does not "
                                 f"match expected shape {tuple(expected_shape)}")
            if not loading and (value.dtype != parameter.dtype or value.device != parameter.device):
                raise ValueError(f"state[{name!r}] must match the parameter dtype/device; "
                                 "only same-dtype/device storage rebinding is supported")

    def load_state_dict(self, state_dict):
        """Restore this optimizer's state, validating counters and tensor shapes.

        As with PyTorch optimizers, parameters are matched by group order, not
        names. Floating state is cast/moved to each destination parameter by
        PyTorch; unsupported saved dtypes/layouts are rejected before casting.
        This accepts this optimizer's format, not native Adam/AdamW checkpoints.
        """
        if not isinstance(state_dict, dict) or not {"state", "param_groups"} <= state_dict.keys():
            raise ValueError("optimizer state_dict requires 'state' and 'param_groups'")
        saved_groups = state_dict["param_groups"]
        saved_state = state_dict["state"]
        if not isinstance(saved_groups, (list, tuple)) or not isinstance(saved_state, dict):
            raise ValueError("invalid optimizer state_dict structure")
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state_dict has a different number of parameter groups")
        parameter_ids = set()
        for group, current in zip(saved_groups, self.param_groups):
            if not isinstance(group, dict) or not (set(self.defaults) | {"params"}) <= group.keys():
                raise ValueError("loaded parameter group is missing hyperparameters or ef_step")
            self._validate_group(group)
            if len(group["params"]) != len(current["params"]):
                raise ValueError("loaded parameter group has a different number of parameters")
            for key, parameter in zip(group["params"], current["params"]):
                if not isinstance(key, Integral) or key in parameter_ids:
                    raise ValueError("loaded parameter IDs must be unique integers")
                parameter_ids.add(key)
                self._validate_parameter(group, parameter)
                self._validate_state(group, parameter, saved_state.get(key, {}), loading=True)
        if not set(saved_state) <= parameter_ids:
            raise ValueError("loaded optimizer state contains unknown parameter IDs")
        return super().load_state_dict(state_dict)

    def _prepare_step(self):
        # Validate all groups/gradients before mutating any weights or counters.
        if hasattr(self, "grad_scale") or hasattr(self, "found_inf"):
            raise RuntimeError("AMP GradScaler integration is not supported")
        for group in self.param_groups:
            self._validate_group(group)
            for parameter in group["params"]:
                self._validate_parameter(group, parameter)
                state = self.state.get(parameter, {})
                self._validate_state(group, parameter, state)
                if parameter.requires_grad and parameter.grad is not None:
                    _dense_real("gradient", parameter.grad)

    def _apply_update(self, parameter, state, group, update):
        coefficient = group["ef_coefficient"]
        if coefficient == 0:
            parameter.sub_(update)
            return
        previous = state.get("previous_update")
        if group["ef_step"] > 1:
            # Keep 'update' unmodified: history is u, never the corrected update
            # or the displacement recovered from rounded parameter arithmetic.
            correction = update.clone() if previous is None else update - previous
            correction.mul_(coefficient).add_(update)
            parameter.sub_(correction)
        else:
            parameter.sub_(update)
        if previous is None:
            state["previous_update"] = update.detach().clone(memory_format=torch.preserve_format)
        else:
            previous.copy_(update)

    def _skip_parameter(self, parameter):
        state = self.state.get(parameter)
        if state and "previous_update" in state:
            state["previous_update"].zero_()


class _TritonUpdateEFOptimizer(_UpdateEFOptimizer):
    """Optional pointwise backend; never changes CPU/default eager behavior."""

    def _validate_group(self, group):
        super()._validate_group(group)
        if not isinstance(group["use_triton"], bool):
            raise ValueError("use_triton must be a bool")

    def _validate_parameter(self, group, parameter):
        super()._validate_parameter(group, parameter)
        if group["use_triton"]:
            from ._delayed_optim_triton import require_backend
            require_backend(parameter)

    def _validate_state(self, group, parameter, state, *, loading=False):
        super()._validate_state(group, parameter, state, loading=loading)
        if group["use_triton"]:
            for value in state.values():
                if isinstance(value, torch.Tensor):
                    if type(value) not in (torch.Tensor, torch.nn.Parameter) or not value.is_contiguous():
                        raise ValueError("Triton optimizer state must be ordinary contiguous tensors")

    def _prepare_step(self):
        super()._prepare_step()
        # Preflight every gradient, including later groups, before any counters
        # or weights change. This backend never silently copies strided tensors.
        for group in self.param_groups:
            if group["use_triton"]:
                for parameter in group["params"]:
                    if parameter.requires_grad and parameter.grad is not None:
                        if (type(parameter.grad) not in (torch.Tensor, torch.nn.Parameter)
                                or not parameter.grad.is_contiguous()):
                            raise ValueError("Triton optimizer gradients must be ordinary contiguous tensors")

    def load_state_dict(self, state_dict):
        # Existing eager checkpoints predate this backend flag. Missing means
        # eager, never silently opt an old checkpoint into CUDA-only execution.
        if isinstance(state_dict, dict) and isinstance(state_dict.get("param_groups"), (list, tuple)):
            state_dict = dict(state_dict, param_groups=[
                dict(group, use_triton=group.get("use_triton", False)) if isinstance(group, dict) else group
                for group in state_dict["param_groups"]])
        return super().load_state_dict(state_dict)


def _adam_update(parameter, grad, state, *, lr, betas, eps):
    """Advance Adam moments once and return its bias-corrected, undecayed update."""
    if not state:
        state["step"] = 0
        state["exp_avg"] = torch.zeros_like(parameter, memory_format=torch.preserve_format)
        state["exp_avg_sq"] = torch.zeros_like(parameter, memory_format=torch.preserve_format)
    state["step"] += 1
    beta1, beta2 = betas
    moment, variance = state["exp_avg"], state["exp_avg_sq"]
    moment.lerp_(grad, 1 - beta1)
    variance.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bias1 = 1 - beta1 ** state["step"]
    bias2 = 1 - beta2 ** state["step"]
    denominator = variance.sqrt().div_(math.sqrt(bias2)).add_(eps)
    return moment.div(denominator).mul_(lr / bias1)


class AdamEF(_TritonUpdateEFOptimizer):
    r"""Adam with optional update-level EF, not extrapolated gradients.

    Args:
        params: Parameters or parameter-group dictionaries.
        lr: Finite nonnegative learning rate (default: 1e-3).
        betas: Moment coefficients in [0, 1) (default: (0.9, 0.999)).
        eps: Finite nonnegative denominator epsilon (default: 1e-8).
        weight_decay: Finite nonnegative decay coefficient (default: 0).
        ef_coefficient: Finite nonnegative EF coefficient (default: 1).
            Zero is ordinary Adam, with no update-history allocation.
        decoupled_weight_decay: If False, add decay to the gradient before
            updating either moment, as in Adam. If True, add ``lr * wd * p``
            at CURRENT weights to the uncorrected update, as in AdamW.
        use_triton: Fuse moment, weight, and optional EF updates in one CUDA
            kernel per active tensor (default False). Requires optional Triton,
            ordinary contiguous CUDA FP32/FP64 parameters, gradients and state.
            No CPU fallback. Eager/Triton rounding can differ. State is compatible;
            old checkpoints without this flag load as eager. Cold worker-local
            JIT launches serialize, but warmed launches add no lock or sync.

    For each active parameter, advance the Adam step and moments once, then
    compute ``u = lr * m_hat / (sqrt(v_hat) + eps)`` (plus decoupled decay if
    enabled). Apply ``p -= u + c * (u - u_prev)`` from the SECOND logical group
    call; the first call applies only ``p -= u``. With ``c=0``, math matches
    native Adam (or AdamW for decoupled decay), to arithmetic tolerance rather
    than bitwise equivalence. All arithmetic/history uses the parameter dtype.

    Missing/frozen parameters neither update nor advance their Adam step;
    existing history is zeroed, but group calls still count. The saved update
    includes that call's LR, so LR scheduling does not rescale old history.
    State follows Parameter identity through same-shape/dtype/device storage
    rebinding, and can live on CPU. See module docs for serialization/startup
    semantics and unsupported low-precision/GradScaler/capturable features.
    ``use_triton`` is separate from native PyTorch ``fused=True``.
    """

    _moment_names = ("exp_avg", "exp_avg_sq")
    _has_adam_step = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, ef_coefficient=1.0, decoupled_weight_decay=False,
                 use_triton=False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps,
                                     weight_decay=weight_decay,
                                     ef_coefficient=ef_coefficient,
                                     decoupled_weight_decay=decoupled_weight_decay,
                                     use_triton=use_triton))

    def _validate_group(self, group):
        super()._validate_group(group)
        _nonnegative("eps", group["eps"])
        if not isinstance(group["decoupled_weight_decay"], bool):
            raise ValueError("decoupled_weight_decay must be a bool")

    @torch.no_grad()
    def step(self, closure=None):
        """Perform one logical call; evaluate an optional closure with gradients."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        self._prepare_step()
        for group in self.param_groups:
            group["ef_step"] += 1
            for parameter in group["params"]:
                if not parameter.requires_grad or parameter.grad is None:
                    self._skip_parameter(parameter)
                    continue
                if group["use_triton"]:
                    from ._delayed_optim_triton import step_parameter
                    step_parameter(parameter, self.state[parameter], group, adam=True)
                    continue
                grad = parameter.grad
                if group["weight_decay"] and not group["decoupled_weight_decay"]:
                    grad = grad.add(parameter, alpha=group["weight_decay"])
                state = self.state[parameter]
                update = _adam_update(parameter, grad, state, lr=group["lr"],
                                      betas=group["betas"], eps=group["eps"])
                if group["decoupled_weight_decay"] and group["weight_decay"]:
                    update.add_(parameter, alpha=group["lr"] * group["weight_decay"])
                self._apply_update(parameter, state, group, update)
        return loss


class Muon(_UpdateEFOptimizer):
    r"""Matrix Muon with explicit AdamW groups and optional update-level EF.

    Args:
        params: Parameters or parameter-group dictionaries. Groups default to
            ``use_muon=True`` and require nonempty 2D matrices. Explicitly set
            ``use_muon=False`` for AdamW on biases, stems, heads, embeddings, or
            other parameters; there is no automatic shape/name-based routing.
        lr: Finite nonnegative learning rate (default: 0.02). Each group's
            ``lr`` controls its own Muon or AdamW update independently.
        momentum: Muon momentum in [0, 1) (default: 0.95).
        nesterov: Whether to use Muon Nesterov momentum (default: True).
        weight_decay: Finite nonnegative decoupled decay (default: 0).
        ns_steps: Positive integer Newton--Schulz iterations (default: 5).
        eps: Finite positive normalization epsilon (default: 1e-7).
        ef_coefficient: Finite nonnegative EF coefficient (default: 0).
        betas: AdamW fallback moment coefficients (default: (0.9, 0.999)).
        adamw_eps: Finite nonnegative AdamW epsilon (default: 1e-8).
        adjust_lr_fn: Muon shape scaling: ``'original'`` (default) uses
            ``sqrt(max(1, rows / cols))``; ``'match_rms_adamw'`` uses
            ``0.2 * sqrt(max(rows, cols))``. Does not affect fallback groups.
        ns_dtype: Newton--Schulz working dtype (default: torch.float32), one of
            torch.float32, torch.float64, torch.bfloat16. Parameters, momentum,
            full updates, and EF history remain float32/float64.

    Follows the momentum and LR convention documented for PyTorch 2.9 Muon:
    initialize ``B=0``, advance ``B = momentum*B + g`` (NOT an EMA), and use
    ``q = g + momentum*B`` with Nesterov, otherwise ``q = B``. Cast q to
    ``ns_dtype`` and normalize by its Frobenius norm PLUS eps. Transpose tall
    matrices, then iterate ``A = X @ X.T`` and
    ``X = 3.4445*X + (-4.775*A + 2.0315*(A @ A)) @ X`` exactly ns_steps times.
    Transpose back and cast to the parameter dtype. Ambient CPU/CUDA autocast
    is explicitly disabled for this computation. Native Muon implementations
    often use BF16 Newton--Schulz; the FP32 default and explicit full-update
    arithmetic here do NOT promise native bit parity, even when EF is zero.

    The full update at CURRENT weights is
    ``u = lr*shape_scale*Q + lr*weight_decay*p``: decay uses UNADJUSTED lr.
    Fallback groups compute ordinary bias-corrected AdamW, including decay in
    u. Both paths apply EF exactly once through ``p -= u + c*(u-u_prev)``;
    their first completed logical group call is ordinary. Missing/frozen
    parameters leave weights and moments untouched and zero existing history;
    later first-use parameters receive correction against zero history.
    History is the uncorrected full u, including that call's LR and decay.

    One optimizer object can therefore own every parameter in a 2BW stage.
    Muon state contains only ``momentum_buffer``; AdamW state contains
    ``exp_avg``, ``exp_avg_sq``, and ``step``. Each active parameter adds exactly
    one persistent ``previous_update`` iff c>0. Serialization preserves group
    choices, ns_dtype, and ef_step, not a full pipeline checkpoint. State follows
    Parameter identity through same-shape/dtype/device storage rebinding.
    Low-precision optimizer parameters, sparse/complex tensors, GradScaler,
    fused/foreach, capturable, and differentiable steps are unsupported.
    """

    def __init__(self, params, lr=0.02, momentum=0.95, nesterov=True,
                 weight_decay=0, ns_steps=5, eps=1e-7, ef_coefficient=0,
                 betas=(0.9, 0.999), adamw_eps=1e-8, adjust_lr_fn="original",
                 ns_dtype=torch.float32):
        super().__init__(params, dict(lr=lr, momentum=momentum, nesterov=nesterov,
                                     weight_decay=weight_decay, ns_steps=ns_steps,
                                     eps=eps, ef_coefficient=ef_coefficient,
                                     betas=betas, adamw_eps=adamw_eps,
                                     adjust_lr_fn=adjust_lr_fn, ns_dtype=ns_dtype,
                                     use_muon=True))

    def _validate_group(self, group):
        super()._validate_group(group)
        _nonnegative("momentum", group["momentum"])
        if group["momentum"] >= 1:
            raise ValueError("momentum must be less than 1")
        for name in ("nesterov", "use_muon"):
            if not isinstance(group[name], bool):
                raise ValueError(f"{name} must be a bool")
        _counter("ns_steps", group["ns_steps"])
        if group["ns_steps"] == 0:
            raise ValueError("ns_steps must be a positive integer")
        _nonnegative("eps", group["eps"])
        if group["eps"] == 0:
            raise ValueError("eps must be positive")
        _nonnegative("adamw_eps", group["adamw_eps"])
        if group["adjust_lr_fn"] not in ("original", "match_rms_adamw"):
            raise ValueError("adjust_lr_fn must be 'original' or 'match_rms_adamw'")
        if group["ns_dtype"] not in (torch.float32, torch.float64, torch.bfloat16):
            raise ValueError("ns_dtype must be torch.float32, torch.float64, or torch.bfloat16")

    def _validate_parameter(self, group, parameter):
        super()._validate_parameter(group, parameter)
        if group["use_muon"] and (parameter.ndim != 2 or parameter.numel() == 0):
            raise ValueError("Muon groups require nonempty 2D matrix parameters; "
                             "set use_muon=False explicitly for AdamW fallback")

    def _state_spec(self, group):
        if group["use_muon"]:
            return ("momentum_buffer",), False
        return ("exp_avg", "exp_avg_sq"), True

    @staticmethod
    def _orthogonalize(direction, group):
        # Autocast is thread-local: honor ns_dtype even inside an AMP worker.
        with torch.autocast(device_type=direction.device.type, enabled=False):
            matrix = direction.to(dtype=group["ns_dtype"])
            matrix = matrix / (matrix.norm() + group["eps"])
            transpose = matrix.shape[0] > matrix.shape[1]
            if transpose:
                matrix = matrix.T
            for _ in range(group["ns_steps"]):
                gram = matrix @ matrix.T
                polynomial = -4.775 * gram + 2.0315 * (gram @ gram)
                matrix = 3.4445 * matrix + polynomial @ matrix
            if transpose:
                matrix = matrix.T
            return matrix.to(dtype=direction.dtype)

    @torch.no_grad()
    def step(self, closure=None):
        """Perform one logical call; evaluate an optional closure with gradients."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        self._prepare_step()
        for group in self.param_groups:
            group["ef_step"] += 1
            for parameter in group["params"]:
                if not parameter.requires_grad or parameter.grad is None:
                    self._skip_parameter(parameter)
                    continue
                state = self.state[parameter]
                if group["use_muon"]:
                    if not state:
                        state["momentum_buffer"] = torch.zeros_like(
                            parameter, memory_format=torch.preserve_format)
                    momentum = state["momentum_buffer"]
                    momentum.mul_(group["momentum"]).add_(parameter.grad)
                    direction = (parameter.grad.add(momentum, alpha=group["momentum"])
                                 if group["nesterov"] else momentum)
                    update = self._orthogonalize(direction, group)
                    rows, cols = parameter.shape
                    scale = (math.sqrt(max(1.0, rows / cols))
                             if group["adjust_lr_fn"] == "original" else
                             0.2 * math.sqrt(max(rows, cols)))
                    update.mul_(group["lr"] * scale)
                else:
                    update = _adam_update(parameter, parameter.grad, state, lr=group["lr"],
                                          betas=group["betas"], eps=group["adamw_eps"])
                if group["weight_decay"]:
                    update.add_(parameter, alpha=group["lr"] * group["weight_decay"])
                self._apply_update(parameter, state, group, update)
        return loss


class Lion(_TritonUpdateEFOptimizer):
    r"""Lion with optional update-level EF (ordinary Lion by default).

    Args:
        params: Parameters or parameter-group dictionaries.
        lr: Finite nonnegative learning rate (default: 1e-4).
        betas: Sign/momentum coefficients in [0, 1) (default: (0.9, 0.99)).
        weight_decay: Finite nonnegative decoupled decay (default: 0).
        ef_coefficient: Finite nonnegative EF coefficient (default: 0).
            Zero allocates no update history; one enables standard EF.
        use_triton: Optional CUDA-only fusion, with the same contiguous FP32/FP64
            requirements and checkpoint compatibility as AdamEF. Defaults False.
            No parameter-sized temporary update or extra persistent tensor at c=0.

    Compute ``u = lr * (sign(beta1*m + (1-beta1)*g) + wd*p)`` at
    CURRENT weights using the old momentum, then advance momentum exactly once
    as ``m = beta2*m + (1-beta2)*g``. Apply ``p -= u`` on the first logical
    call and ``p -= u + c*(u-u_prev)`` thereafter. The persistent history is
    the uncorrected ``u`` including that call's LR and decay, not rounded weight
    displacement; scheduler changes do not rescale it. Arithmetic/history uses
    the parameter's float32/float64 dtype, and may differ from other Lion
    implementations by rounding order.

    Missing/frozen parameters keep their weights/momentum and zero any existing
    history. Group calls still advance: a first active parameter after startup
    uses zero history and immediately receives correction. State follows stable
    Parameter identities through storage rebinding and supports CPU placement.
    ``state_dict`` includes optimizer startup/history, not pipeline checkpoints.
    No low-precision, sparse/complex, AMP GradScaler, native fused/foreach,
    capturable, or differentiable step support; only actual step calls count.
    Optional ``use_triton`` fusion is separate from native ``fused=True``.
    """

    _moment_names = ("exp_avg",)

    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0,
                 ef_coefficient=0, use_triton=False):
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay,
                                     ef_coefficient=ef_coefficient, use_triton=use_triton))

    @torch.no_grad()
    def step(self, closure=None):
        """Perform one logical call; evaluate an optional closure with gradients."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        self._prepare_step()
        for group in self.param_groups:
            group["ef_step"] += 1
            beta1, beta2 = group["betas"]
            for parameter in group["params"]:
                if not parameter.requires_grad or parameter.grad is None:
                    self._skip_parameter(parameter)
                    continue
                state = self.state[parameter]
                if group["use_triton"]:
                    from ._delayed_optim_triton import step_parameter
                    step_parameter(parameter, state, group, adam=False)
                    continue
                if not state:
                    state["exp_avg"] = torch.zeros_like(parameter, memory_format=torch.preserve_format)
                moment = state["exp_avg"]
                update = moment.mul(beta1).add_(parameter.grad, alpha=1 - beta1).sign_()
                if group["weight_decay"]:
                    update.add_(parameter, alpha=group["weight_decay"])
                update.mul_(group["lr"])
                moment.mul_(beta2).add_(parameter.grad, alpha=1 - beta2)
                self._apply_update(parameter, state, group, update)
        return loss
