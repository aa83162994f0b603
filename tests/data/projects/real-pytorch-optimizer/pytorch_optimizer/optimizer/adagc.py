import math
from collections.abc import Callable

import torch

from pytorch_optimizer.base.exception import NoComplexParameterError, NoSparseGradientError
from pytorch_optimizer.base.optimizer import BaseOptimizer
from pytorch_optimizer.base.type import Betas, Closure, Defaults, Loss, ParamGroup, ParamsT
from pytorch_optimizer.optimizer.utils.foreach import (
    compile_foreach_step,
    foreach_addcdiv_,
    group_tensors_by_device_and_dtype,
)
from pytorch_optimizer.optimizer.utils.gradient import get_global_gradient_norm


class AdaGC(BaseOptimizer):
    """Adam with adaptive gradient clipping for stable training.

    Args:
        params: Parameters to optimize or dictionaries defining parameter groups.
        lr: Learning rate.
        betas: Decay rates for the first and second moments.
        beta: Smoothing coefficient for the exponential moving average (EMA).
        lambda_abs: Absolute clipping threshold to prevent unstable updates from gradient explosions.
        lambda_rel: Relative clipping threshold to prevent unstable updates from gradient explosions.
        warmup_steps: Number of warmup steps.
        weight_decay: Weight decay coefficient.
        weight_decouple: Apply weight decay to parameters instead of adding it to the gradient.
        fixed_decay: Apply decoupled weight decay without scaling it by the learning rate.
        eps: Term added to the denominator to improve numerical stability.
        maximize: Maximize the objective instead of minimizing it.
        foreach: Use batched tensor operations after warmup. `None` enables them for supported parameter groups.
            Float16 updates remain eager when compilation is requested.

    """

    _supports_compiled_foreach = True

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-3,
        betas: Betas = (0.9, 0.999),
        beta: float = 0.98,
        lambda_abs: float = 1.0,
        lambda_rel: float = 1.05,
        warmup_steps: int = 100,
        weight_decay: float = 1e-1,
        weight_decouple: bool = True,
        fixed_decay: bool = False,
        eps: float = 1e-8,
        maximize: bool = False,
        foreach: bool | None = None,
        **kwargs,
    ):
        self.validate_learning_rate(lr)
        self.validate_betas(betas)
        self.validate_range(beta, 'beta', 0.0, 1.0, '[)')
        self.validate_positive(lambda_abs, 'lambda_abs')
        self.validate_positive(lambda_rel, 'lambda_rel')
        self.validate_non_negative(warmup_steps, 'warmup_steps')
        self.validate_non_negative(weight_decay, 'weight_decay')
        self.validate_non_negative(eps, 'eps')

        self.maximize = maximize
        self.foreach = foreach
        self._compiled_step_foreach: Callable | None = None

        defaults: Defaults = {
            'lr': lr,
            'foreach': foreach,
            'betas': betas,
            'beta': beta,
            'lambda_abs': lambda_abs,
            'lambda_rel': lambda_rel,
            'warmup_steps': warmup_steps,
            'weight_decay': weight_decay,
            'weight_decouple': weight_decouple,
            'fixed_decay': fixed_decay,
            'eps': eps,
            **kwargs,
        }

        super().__init__(params, defaults)

    def __str__(self) -> str:
        return 'AdaGC'

    def _compile_foreach(self, compile_kwargs: dict | None = None) -> None:
        self._compiled_step_foreach = compile_foreach_step(self._step_foreach, compile_kwargs)

    def init_group(self, group: ParamGroup, **kwargs) -> None:
        if 'step' not in group:
            group['step'] = 0

        for p in group['params']:
            if p.grad is None:
                continue

            grad = p.grad
            if grad.is_sparse:
                raise NoSparseGradientError(str(self))

            if torch.is_complex(p):
                raise NoComplexParameterError(str(self))

            state = self.state[p]

            if 'exp_avg' not in state:
                state['exp_avg'] = torch.zeros_like(grad)
                state['exp_avg_sq'] = torch.zeros_like(grad)

    def _step_foreach(
        self,
        group: ParamGroup,
        params: list[torch.Tensor],
        grads: list[torch.Tensor],
        state: dict[str, list[torch.Tensor]],
        bias_correction2_sq: float | torch.Tensor,
        step_size: float | torch.Tensor,
    ) -> None:
        beta1, beta2 = group['betas']

        if self.maximize:
            torch._foreach_neg_(grads)

        self.apply_weight_decay_foreach(
            params, grads, group['lr'], group['weight_decay'], group['weight_decouple'], group['fixed_decay']
        )

        norms = torch._foreach_clamp_min(torch._foreach_norm(grads), group['eps'])
        ratios = torch._foreach_clamp_min(state['gamma'], group['eps'])
        torch._foreach_mul_(ratios, group['lambda_rel'])
        torch._foreach_div_(ratios, norms)
        torch._foreach_clamp_max_(ratios, 1.0)
        clipped_grads = torch._foreach_mul(grads, ratios)

        torch._foreach_lerp_(state['gamma'], torch._foreach_norm(clipped_grads), weight=1.0 - group['beta'])

        torch._foreach_lerp_(state['exp_avg'], clipped_grads, weight=1.0 - beta1)
        torch._foreach_mul_(state['exp_avg_sq'], beta2)
        torch._foreach_addcmul_(state['exp_avg_sq'], clipped_grads, clipped_grads, value=1.0 - beta2)

        de_noms = torch._foreach_sqrt(state['exp_avg_sq'])
        torch._foreach_div_(de_noms, bias_correction2_sq)
        torch._foreach_add_(de_noms, group['eps'])

        foreach_addcdiv_(params, state['exp_avg'], de_noms, value=-step_size)

    @torch.no_grad()
    def step(self, closure: Closure = None) -> Loss:
        loss: Loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()

        can_cache_norm = all(group['weight_decouple'] or group['weight_decay'] == 0.0 for group in self.param_groups)
        global_norm = None

        for group in self.param_groups:
            self.init_group(group)
            group['step'] += 1

            beta1, beta2 = group['betas']

            bias_correction1: float = self.debias(beta1, group['step'])
            bias_correction2_sq: float = math.sqrt(self.debias(beta2, group['step']))

            if (
                self.can_use_foreach(group, group.get('foreach', self.foreach))
                and group['step'] >= group['warmup_steps']
                and all('gamma' in self.state[p] for p in group['params'] if p.grad is not None)
            ):
                params, grads, state = self.collect_trainable_params(
                    group, self.state, state_keys=['exp_avg', 'exp_avg_sq', 'gamma']
                )

                for batch in group_tensors_by_device_and_dtype(params, grads, state):
                    update = self._step_foreach
                    if self._compiled_step_foreach is not None and batch['params'][0].dtype != torch.float16:
                        update = self._compiled_step_foreach

                    update(
                        group, batch['params'], batch['grads'], batch, bias_correction2_sq,
                        group['lr'] / bias_correction1,
                    )

                continue

            grad_norm = None
            warmup_scale: float | torch.Tensor = 1.0

            for p in group['params']:
                if p.grad is None:
                    continue

                grad = p.grad

                self.maximize_gradient(grad, maximize=self.maximize)

                state = self.state[p]

                self.apply_weight_decay(
                    p=p,
                    grad=grad,
                    lr=group['lr'],
                    weight_decay=group['weight_decay'],
                    weight_decouple=group['weight_decouple'],
                    fixed_decay=group['fixed_decay'],
                )

                exp_avg, exp_avg_sq = state['exp_avg'], state['exp_avg_sq']
                gamma = state.get('gamma')

                if gamma is None or group['step'] < group['warmup_steps']:
                    if grad_norm is None or not can_cache_norm:
                        if not can_cache_norm or global_norm is None:
                            global_norm = get_global_gradient_norm(self.param_groups).sqrt_()

                        grad_norm = global_norm.add(group['eps']).reshape(())
                        warmup_scale = min(group['lambda_abs'] / grad_norm, 1.0)

                    g_hat = grad.mul(warmup_scale)

                    g_hat_norm = g_hat.norm()

                    state['gamma'] = g_hat_norm if gamma is None else torch.minimum(gamma, g_hat_norm, out=gamma)
                else:
                    h_t = (
                        group['lambda_rel'] * gamma.clamp_min(group['eps']) / grad.norm().clamp_min(group['eps'])
                    ).clamp_max_(1.0)
                    g_hat = grad.mul(h_t)

                    gamma.lerp_(g_hat.norm(), weight=1.0 - group['beta'])

                exp_avg.lerp_(g_hat, weight=1.0 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(g_hat, g_hat, value=1.0 - beta2)

                de_nom = exp_avg_sq.sqrt().div_(bias_correction2_sq).add_(group['eps'])

                p.addcdiv_(exp_avg, de_nom, value=-group['lr'] / bias_correction1)

        return loss
