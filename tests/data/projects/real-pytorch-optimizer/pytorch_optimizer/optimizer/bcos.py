from typing import Literal

import torch

from pytorch_optimizer.base.exception import NoComplexParameterError, NoSparseGradientError
from pytorch_optimizer.base.optimizer import BaseOptimizer
from pytorch_optimizer.base.type import Closure, Defaults, Loss, ParamGroup, ParamsT
from pytorch_optimizer.optimizer.utils.foreach import foreach_addcdiv_, group_tensors_by_device_and_dtype

Mode = Literal['g', 'm', 'c']


class BCOS(BaseOptimizer):
    """Stochastic approximation with block coordinate optimal step sizes.

    Args:
        params: Parameters to optimize or dictionaries defining parameter groups.
        lr: Learning rate.
        beta: Decay rate for momentum and its second moment estimator.
        beta2: Separate second moment decay rate. `None` uses `beta`.
        mode: Search direction and estimator: `'g'` for gradients, `'m'` for momentum, or `'c'` for conditional
            momentum.
        simple_cond: Use the simplified conditional estimator in mode `c`.
        weight_decay: Weight decay coefficient.
        weight_decouple: Apply weight decay to parameters instead of adding it to the gradient.
        eps: Term added to the denominator to improve numerical stability.
        maximize: Maximize the objective instead of minimizing it.
        foreach: Use batched tensor operations. `None` enables them for supported parameter groups.

    """

    _supports_compiled_foreach = True

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-3,
        beta: float = 0.9,
        beta2: float | None = None,
        mode: Mode = 'c',
        simple_cond: bool = False,
        weight_decay: float = 0.1,
        weight_decouple: bool = True,
        eps: float = 1e-6,
        maximize: bool = False,
        foreach: bool | None = None,
        **kwargs,
    ):
        self.validate_learning_rate(lr)
        self.validate_range(beta, 'beta', 0.0, 1.0)
        self.validate_options(mode, 'mode', ['g', 'm', 'c'])
        self.validate_non_negative(weight_decay, 'weight_decay')
        self.validate_non_negative(eps, 'eps')

        self.mode = mode
        self.simple_cond = simple_cond
        self.maximize = maximize
        self.foreach = foreach

        defaults: Defaults = {
            'lr': lr,
            'beta': beta,
            'beta2': beta2,
            'weight_decay': weight_decay,
            'foreach': foreach,
            'weight_decouple': weight_decouple,
            'eps': eps,
            **kwargs,
        }
        super().__init__(params, defaults)

    def __str__(self) -> str:
        return 'BCOS'

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

            if self.mode in ('m', 'c') and 'm' not in state:
                state['m'] = grad.clone()
                self.maximize_gradient(state['m'], maximize=self.maximize)

            if self.mode in ('g', 'm') and 'v' not in state:
                state['v'] = grad.square()

    def compute_v(self, grad: torch.Tensor, m: torch.Tensor, beta: float, beta2: float | None) -> torch.Tensor:
        g2 = grad.square()

        if self.simple_cond:
            beta_v: float = 1.0 - (1.0 - beta) ** 2 if beta2 is None else beta2
            return beta_v * m.square() + (1.0 - beta_v) * g2

        return (
            (3.0 * beta ** 2 - 2.0 * beta ** 3) * m.square()
            + (1.0 - beta) ** 2 * g2
            + 2.0 * beta * (1.0 - beta) ** 2 * m * grad
        )  # fmt: skip

    def _step_foreach(
        self,
        group: ParamGroup,
        params: list[torch.Tensor],
        grads: list[torch.Tensor],
        state: dict[str, list[torch.Tensor]],
    ) -> None:
        beta, beta2 = group['beta'], group['beta2']

        if self.maximize:
            torch._foreach_neg_(grads)

        self.apply_weight_decay_foreach(
            params, grads, group['lr'], group['weight_decay'], group['weight_decouple'], False
        )

        directions = grads
        if self.mode in ('m', 'c'):
            directions = state['m']
            torch._foreach_lerp_(directions, grads, weight=1.0 - beta)

        if self.mode in ('g', 'm'):
            vs = state['v']
            beta_v = beta if beta2 is None else beta2
            torch._foreach_lerp_(vs, torch._foreach_pow(directions, 2), weight=1.0 - beta_v)
        else:
            grad_sqs = torch._foreach_pow(grads, 2)
            moment_sqs = torch._foreach_pow(directions, 2)
            if self.simple_cond:
                beta_v = 1.0 - (1.0 - beta) ** 2 if beta2 is None else beta2
                vs = torch._foreach_mul(moment_sqs, beta_v)
                torch._foreach_add_(vs, torch._foreach_mul(grad_sqs, 1.0 - beta_v))
            else:
                vs = torch._foreach_mul(moment_sqs, 3.0 * beta ** 2 - 2.0 * beta ** 3)
                torch._foreach_add_(vs, torch._foreach_mul(grad_sqs, (1.0 - beta) ** 2))
                cross_terms = torch._foreach_mul(directions, 2.0 * beta * (1.0 - beta) ** 2)
                torch._foreach_mul_(cross_terms, grads)
                torch._foreach_add_(vs, cross_terms)

        de_noms = torch._foreach_sqrt(vs)
        torch._foreach_add_(de_noms, group['eps'])
        foreach_addcdiv_(params, directions, de_noms, value=-group['lr'])

    @torch.no_grad()
    def step(self, closure: Closure = None) -> Loss:
        loss: Loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()

        for group in self.param_groups:
            self.init_group(group)
            group['step'] += 1

            beta, beta2 = group['beta'], group['beta2']

            if self.can_use_foreach(group, group.get('foreach', self.foreach)):
                state_keys = (['m'] if self.mode in ('m', 'c') else []) + (['v'] if self.mode in ('g', 'm') else [])
                params, grads, state = self.collect_trainable_params(group, self.state, state_keys=state_keys)
                for batch in group_tensors_by_device_and_dtype(params, grads, state):
                    self._step_foreach(group, batch['params'], batch['grads'], batch)
                continue

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
                    fixed_decay=False,
                )

                old_m: torch.Tensor | None = state.get('m', None)

                if self.mode in ('m', 'c'):
                    m = state['m']
                    m.lerp_(grad, weight=1.0 - beta)
                    d = m
                else:
                    d = grad

                if self.mode in ('g', 'm'):
                    beta_v: float = beta if beta2 is None else beta2

                    v = state['v']
                    v.lerp_(d.square(), weight=1.0 - beta_v)
                else:
                    v: torch.Tensor = self.compute_v(grad, old_m, beta, beta2)

                p.addcdiv_(d, v.sqrt().add_(group['eps']), value=-group['lr'])

        return loss
