from collections import OrderedDict
from collections.abc import Callable, Sequence

import torch
from torch import nn
from torch.optim import Optimizer

from pytorch_optimizer.base.optimizer import BaseOptimizer
from pytorch_optimizer.base.type import Closure, Defaults, Loss, OptimizerInstanceOrClass, ParamGroup, State


def polyval(x: torch.Tensor, coef: torch.Tensor) -> torch.Tensor:
    """Evaluate the error-function polynomial on the unit disk.

    Args:
        x: Variable at which to evaluate the polynomial.
        coef: Coefficients of the polynomial, ordered from highest degree to lowest.

    """
    powers = x.unsqueeze(-1).expand(*x.shape, coef.numel() - 1).cumprod(dim=-1)
    return ((powers * coef[:-1].flip(0)).sum(dim=-1) + coef[-1])[0]


class ERF1994(nn.Module):
    """Approximate the complex error function using rational polynomials.

    Args:
        num_coefs: The number of polynomial coefficients to use in the approximation.

    """

    def __init__(self, num_coefs: int = 128) -> None:
        super().__init__()

        self.n: int = num_coefs

        self.i: torch.Tensor = torch.complex(torch.tensor(0.0), torch.tensor(1.0))
        self.m = 2 * self.n
        self.m2 = 2 * self.m
        self.k = torch.linspace(-self.m + 1, self.m - 1, self.m2 - 1)
        self.l = torch.sqrt(self.n / torch.sqrt(torch.tensor(2.0)))
        self.theta = self.k * torch.pi / self.m
        self.t = self.l * torch.tan(self.theta / 2.0)
        self.f = torch.exp(-self.t ** 2) * (self.l ** 2 + self.t ** 2)  # fmt: skip
        self.f = torch.cat([torch.zeros_like(self.f[:1]), self.f])
        self.a = torch.fft.fft(torch.fft.fftshift(self.f)).real / self.m2
        self.a = torch.flipud(self.a[1:self.n + 1])  # fmt: skip

    def w_algorithm(self, z: torch.Tensor) -> torch.Tensor:
        """Compute the Faddeeva function of a complex number.

        Args:
            z: A tensor of complex numbers.

        """
        self.l = self.l.to(z.device)
        self.i = self.i.to(z.device)
        self.a = self.a.to(z.device)

        iz = self.i * z
        lp_iz, ln_iz = self.l + iz, self.l - iz

        z_ = lp_iz / ln_iz
        p = polyval(z_.unsqueeze(0), self.a)
        return 2 * p / ln_iz.pow(2) + (1.0 / torch.sqrt(torch.tensor(torch.pi))) / ln_iz

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        """Compute the error function of a complex number.

        Args:
            z: A tensor of complex numbers.

        """
        sign_r = torch.sign(z.real)
        sign_i = torch.sign(z.imag)
        z = torch.complex(torch.abs(z.real), torch.abs(z.imag))
        out = -torch.exp(torch.log(self.w_algorithm(z * self.i)) - z ** 2) + 1  # fmt: skip
        return torch.complex(out.real * sign_r, out.imag * sign_i)


class TRAC(BaseOptimizer):
    """Optimizer wrapper with parameter free scale adaptation.

    Args:
        optimizer: Base optimizer.
        betas: Decay rates for the online learners whose scale estimates are combined.
        num_coefs: Number of polynomial coefficients to use in the approximation.
        s_prev: Initial scale value.
        eps: Term added to the denominator to improve numerical stability.

    Examples:
        ```python
        model = YourModel()
        optimizer = TRAC(AdamW(model.parameters()))

        for input, output in data:
            optimizer.zero_grad()
            loss = loss_fn(model(input), output)
            loss.backward()
            optimizer.step()
        ```

    """

    def __init__(
        self,
        optimizer: OptimizerInstanceOrClass,
        betas: Sequence[float] = (0.9, 0.99, 0.999, 0.9999, 0.99999, 0.999999),
        num_coefs: int = 128,
        s_prev: float = 1e-8,
        eps: float = 1e-8,
        **kwargs,
    ):
        self.validate_positive(num_coefs, 'num_coefs')
        self.validate_non_negative(s_prev, 's_prev')
        self.validate_non_negative(eps, 'eps')

        self._optimizer_step_pre_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_step_post_hooks: dict[int, Callable] = OrderedDict()
        self._patch_step_function()

        self.optimizer: Optimizer = self.load_optimizer(optimizer, **kwargs)

        self.betas = betas
        self.s_prev = s_prev
        self.eps = eps

        self.erf: nn.Module = ERF1994(num_coefs=num_coefs)
        self.f_term: torch.Tensor = self.s_prev / self.erf_imag(1.0 / torch.sqrt(torch.tensor(2.0)))

        self.defaults: Defaults = self.optimizer.defaults

    def __str__(self) -> str:
        return 'TRAC'

    @property
    def param_groups(self):
        return self.optimizer.param_groups

    @property
    def state(self) -> State:
        return self.optimizer.state

    def state_dict(self) -> State:
        state_dict = self.optimizer.state_dict()
        if 'trac' in state_dict['state']:
            parameter_indices = {
                p: index
                for group, saved_group in zip(self.param_groups, state_dict['param_groups'])
                for p, index in zip(group['params'], saved_group['params'])
            }
            state_dict['state']['trac'] = {
                parameter_indices.get(key, key): value for key, value in state_dict['state']['trac'].items()
            }
        return state_dict

    def load_state_dict(self, state_dict: State) -> None:
        saved_trac = state_dict['state'].get('trac')
        if saved_trac is not None:
            parameters = [p for group in self.param_groups for p in group['params']]
            references = [value for key, value in saved_trac.items() if isinstance(key, torch.Tensor)]
            if not references:
                references = [
                    saved_trac.get(index) for group in state_dict['param_groups'] for index in group['params']
                ]

            metadata = {key: value for key, value in saved_trac.items() if isinstance(key, str)}
            if (
                len(references) != len(parameters)
                or len(saved_trac) != len(metadata) + len(parameters)
                or any(
                    not isinstance(ref, torch.Tensor) or ref.shape != p.shape for p, ref in zip(parameters, references)
                )
            ):
                raise ValueError('TRAC state does not match the current parameters')

            trac_state = {
                key: value.to(device=parameters[0].device) if isinstance(value, torch.Tensor) else value
                for key, value in metadata.items()
            }
            trac_state.update({p: ref.to(p) for p, ref in zip(parameters, references)})
            state_dict = {**state_dict, 'state': {**state_dict['state'], 'trac': trac_state}}

        self.optimizer.load_state_dict(state_dict)

    def init_group(self, group: ParamGroup, **kwargs) -> None:
        if 'step' not in group:
            group['step'] = 0

        updates: dict[torch.Tensor, torch.Tensor] = kwargs.get('updates', {})

        for p in group['params']:
            self.state['trac'][p] = updates[p].clone()

    @torch.no_grad()
    def zero_grad(self, set_to_none: bool = True) -> None:
        self.optimizer.zero_grad(set_to_none=set_to_none)

    @torch.no_grad()
    def erf_imag(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.is_floating_point(x):
            x = x.real.to(torch.float32)

        ix = torch.complex(torch.zeros_like(x), x)

        return self.erf(ix).imag

    @torch.no_grad()
    def backup_params_and_grads(self) -> tuple[dict, dict]:
        updates, grads = {}, {}

        for group in self.param_groups:
            for p in group['params']:
                updates[p] = p.clone()
                grads[p] = p.grad.clone() if p.grad is not None else None

        return updates, grads

    @torch.no_grad()
    def trac_step(self, updates: dict, grads: dict) -> None:
        self.state['trac']['step'] += 1

        deltas = {}

        s = self.state['trac']['s']
        h = torch.zeros((1,), device=s.device)

        for group in self.param_groups:
            for p in group['params']:
                if grads[p] is None:
                    continue

                theta_ref = self.state['trac'][p]
                update = updates[p]

                deltas[p] = (update - theta_ref) / s.add(self.eps)
                update.neg_().add_(p)

                grad, delta = grads[p], deltas[p]

                product = torch.dot(delta.flatten(), grad.flatten())
                h.add_(product)

                delta.add_(update)

                p.copy_(theta_ref)

        betas = self.state['trac']['betas']
        variance = self.state['trac']['variance']
        sigma = self.state['trac']['sigma']

        variance.mul_(betas.pow(2)).add_(h.pow(2))
        sigma.mul_(betas).sub_(h)

        term = self.erf_imag(sigma / (2.0 * variance).sqrt_().add_(self.eps)).mul_(self.f_term)
        s.copy_(torch.sum(term))

        scale = max(s, 0.0)

        for group in self.param_groups:
            for p in group['params']:
                if grads[p] is None:
                    continue

                p.add_(deltas[p] * scale)

    @torch.no_grad()
    def step(self, closure: Closure = None) -> Loss:
        updates, grads = self.backup_params_and_grads()

        if closure is not None:

            def trac_closure():
                with torch.enable_grad():
                    loss = closure()

                for p in grads:
                    grads[p] = p.grad.clone() if p.grad is not None else None

                return loss

            loss = self.optimizer.step(trac_closure)
        else:
            loss = self.optimizer.step()

        if not updates:
            return loss

        if 'trac' not in self.state:
            device = next(iter(updates)).device

            self.state['trac'] = {
                'betas': torch.tensor(self.betas, device=device),
                's': torch.zeros(1, device=device),
                'variance': torch.zeros(len(self.betas), device=device),
                'sigma': torch.full((len(self.betas),), 1e-8, device=device),
                'step': 0,
            }

            for group in self.param_groups:
                self.init_group(group, updates=updates)

        self.trac_step(updates, grads)

        return loss
