import random
from collections import OrderedDict
from collections.abc import Callable, Iterable

import numpy as np
import torch
from torch import nn
from torch.optim import Optimizer

from pytorch_optimizer.base.optimizer import BaseOptimizer
from pytorch_optimizer.base.type import Closure, Defaults, Loss, ParamGroup, State


def flatten_grad(grads: list[torch.Tensor]) -> torch.Tensor:
    """Flatten and concatenate a list of gradient tensors."""
    return torch.cat([grad.flatten() for grad in grads])


def un_flatten_grad(grads: torch.Tensor, shapes: list[int]) -> list[torch.Tensor]:
    """Restore a flat gradient to tensors with the supplied shapes."""
    idx: int = 0
    un_flatten_grads: list[torch.Tensor] = []
    for shape in shapes:
        length = np.prod(shape)
        un_flatten_grads.append(grads[idx:idx + length].view(shape).clone())  # fmt: skip
        idx += int(length)
    return un_flatten_grads


class PCGrad(BaseOptimizer):
    """Wrap an optimizer with gradient projection for conflicting task objectives.

    Learning rate schedulers and checkpoints use the wrapped optimizer's parameter groups and state.
    Checkpoint hooks receive the wrapped optimizer.

    Args:
        optimizer: Optimizer instance.
        reduction: Reduction method for gradients.

    """

    def __init__(self, optimizer: Optimizer, reduction: str = 'mean'):
        self.validate_options(reduction, 'reduction', ['mean', 'sum'])

        self.optimizer = optimizer
        self.reduction = reduction

        self._optimizer_step_pre_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_step_post_hooks: dict[int, Callable] = OrderedDict()
        self.defaults: Defaults = self.optimizer.defaults
        self._patch_step_function()

    @property
    def param_groups(self):
        return self.optimizer.param_groups

    @property
    def state(self) -> State:
        return self.optimizer.state

    def add_param_group(self, param_group: ParamGroup) -> None:
        self.optimizer.add_param_group(param_group)

    def state_dict(self) -> State:
        return self.optimizer.state_dict()

    def load_state_dict(self, state_dict: State) -> None:
        self.optimizer.load_state_dict(state_dict)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        return self.optimizer.register_state_dict_pre_hook(hook, prepend=prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        return self.optimizer.register_state_dict_post_hook(hook, prepend=prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        return self.optimizer.register_load_state_dict_pre_hook(hook, prepend=prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        return self.optimizer.register_load_state_dict_post_hook(hook, prepend=prepend)

    @torch.no_grad()
    def init_group(self):
        self.zero_grad()

    def zero_grad(self, set_to_none: bool = True) -> None:
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def step(self, closure: Closure = None) -> Loss:
        return self.optimizer.step(closure)

    def set_grad(self, grads: list[torch.Tensor], has_grads: list[torch.Tensor] | None = None) -> None:
        idx: int = 0
        for group in self.optimizer.param_groups:
            for p in group['params']:
                p.grad = grads[idx] if has_grads is None or torch.any(has_grads[idx]) else None
                idx += 1

    def retrieve_grad(self) -> tuple[list[torch.Tensor], list[int], list[torch.Tensor]]:
        """Collect gradients, shapes, and masks for parameters with gradients."""
        grad, shape, has_grad = [], [], []
        for group in self.optimizer.param_groups:
            for p in group['params']:
                if p.grad is None:
                    shape.append(p.shape)
                    grad.append(torch.zeros_like(p, device=p.device))
                    has_grad.append(torch.zeros_like(p, device=p.device))
                    continue

                shape.append(p.grad.shape)
                grad.append(p.grad.clone())
                has_grad.append(torch.ones_like(p, device=p.device))

        return grad, shape, has_grad

    def pack_grad(self, objectives: Iterable) -> tuple[list[torch.Tensor], list[list[int]], list[torch.Tensor]]:
        """Compute and flatten gradients for each task loss.

        Args:
            objectives: Scalar task loss tensors to backpropagate.

        """
        grads, shapes, has_grads = [], [], []
        for objective in objectives:
            self.optimizer.zero_grad(set_to_none=True)
            objective.backward(retain_graph=True)

            grad, shape, has_grad = self.retrieve_grad()

            grads.append(flatten_grad(grad))
            has_grads.append(flatten_grad(has_grad))
            shapes.append(shape)

        return grads, shapes, has_grads

    def project_conflicting(self, grads: list[torch.Tensor], has_grads: list[torch.Tensor]) -> torch.Tensor:
        """Remove conflicting task gradient components and combine task gradients.

        Args:
            grads: A list of the gradient of the parameters.
            has_grads: A list of masks representing whether the parameter has gradient.

        """
        shared: torch.Tensor = torch.stack(has_grads).prod(0).bool()

        pc_grad = [grad.clone() for grad in grads]

        for g_i in pc_grad:
            random.shuffle(grads)
            for g_j in grads:
                coefficient = torch.dot(g_i, g_j).clamp_max_(0.0) / g_j.square().sum().clamp_min_(
                    torch.finfo(g_j.dtype).tiny
                )
                g_i.sub_(coefficient * g_j)

        merged_grad = torch.stack(pc_grad).sum(dim=0)

        if self.reduction == 'mean':
            merged_grad = torch.where(shared, merged_grad / len(pc_grad), merged_grad)

        return merged_grad

    def pc_backward(self, objectives: Iterable[nn.Module]) -> None:
        """Set parameter gradients after projecting conflicting task gradients.

        Args:
            objectives: Scalar task loss tensors to backpropagate.

        """
        grads, shapes, has_grads = self.pack_grad(objectives)

        pc_grad = self.project_conflicting(grads, has_grads)
        pc_grad = un_flatten_grad(pc_grad, shapes[0])
        has_grad = un_flatten_grad(torch.stack(has_grads).sum(dim=0), shapes[0])

        self.set_grad(pc_grad, has_grad)
