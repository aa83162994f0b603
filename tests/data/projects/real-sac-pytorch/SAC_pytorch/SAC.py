from __future__ import annotations
from functools import partial

import math
from collections import namedtuple

import torch
import torch.nn.functional as F
import torch.distributed as dist

from torch.distributions import Normal
from mean_conc_beta import Beta

from torch import nn, einsum, Tensor, tensor, cat, stack
from torch.nn import Module, ModuleList, Sequential

from assoc_scan import AssocScan

from torch_einops_utils import pack_with_inverse, masked_mean, lens_to_mask, mask_after

from x_transformers import Decoder

from adam_atan2_pytorch import AdoptAtan2 as Adopt

from hl_gauss_pytorch import HLGaussLoss, HLGaussLossFromSupport

from SAC_pytorch.world_model import WorldModel

# tensor typing

import jaxtyping
from beartype import beartype
from beartype.door import is_bearable

class TorchTyping:
    def __init__(self, abstract_dtype):
        self.abstract_dtype = abstract_dtype

    def __getitem__(self, shapes: str):
        return self.abstract_dtype[Tensor, shapes]

Float = TorchTyping(jaxtyping.Float)
Int   = TorchTyping(jaxtyping.Int)
Bool  = TorchTyping(jaxtyping.Bool)

# ein notations
# b - batch
# n - number of actions
# nc - number of continuous actions
# nd - number of discrete actions
# c - critics
# q - quantiles

from einx import get_at
from einops import pack as einops_pack
from einops import rearrange, repeat, reduce
from einops.layers.torch import Rearrange

# EMA for target networks

from ema_pytorch import EMA

# constants

ContinuousOutput = namedtuple('ContinuousOutput', [
    'mu',
    'sigma'
])

SoftActorOutput = namedtuple('SoftActorOutput', [
    'continuous',
    'discrete',
    'state_recon',
    'spr_embed'
], defaults=(None,))

SampledSoftActorOutput = namedtuple('SampledSoftActorOutput', [
    'continuous',
    'continuous_log_prob',
    'continuous_entropy',
    'discrete',
    'discrete_action_logits',
    'state_recon',
    'spr_embed'
], defaults=(None,))

# helpers

def exists(v):
    return v is not None

def default(v, d):
    return v if exists(v) else d

def is_empty(t):
    return t.numel() == 0

def divisible_by(num, den):
    return (num % den) == 0

def compact(arr):
    return [*filter(exists, arr)]

def identity(t):
    return t

def pack(t, pattern):
    return pack_with_inverse(t, pattern)[0]

def cast_tuple(t, length = 1):
    return t if isinstance(t, tuple) else ((t,) * length)

# tensor helpers

def log(t, eps = 1e-20):
    return torch.log(t.clamp(min = eps))

def entropy(t, eps = 1e-20):
    prob = t.softmax(dim = -1)
    return (-prob * log(prob, eps = eps)).sum(dim = -1)

def gumbel_noise(t):
    noise = torch.rand_like(t)
    return -log(-log(noise))

def gumbel_sample(t, temperature = 1., dim = -1):
    assert temperature > 0.
    return ((t / temperature) + gumbel_noise(t)).argmax(dim = dim)

# expectile regression
# for expectile bellman proposed by https://arxiv.org/abs/2406.04081v1, which obviates need for multi critic for alleviating overestimation bias

def expectile_l2_loss(
    x,
    target,
    tau = 0.5,  # 0.5 would be the classic l2 loss - less would weigh negative higher, and more would weigh positive higher
    reduction = 'mean'
):
    assert 0 <= tau <= 1.
    assert reduction in {'mean', 'none'}

    if tau == 0.5:
        return F.mse_loss(x, target, reduction = reduction)

    diff = x - target

    weight = torch.where(diff < 0, tau, 1. - tau)

    loss = (weight * diff.square())

    if reduction == 'mean':
        loss = loss.mean()

    return loss

# FIRE - Frobenius-Isometry Reinitialization
# Han et al. https://arxiv.org/abs/2602.08040

@torch.no_grad()
def apply_fire(
    module,
    num_iters = 20,
    coefs = (1.5, -0.5),
    shrink_perturb = False,
    shrink_perturb_factors = (0.5, 0.01)
):
    a, b = coefs

    for p in module.parameters():
        if p.ndim != 2:
            continue

        t = p.data
        t_norm = t.norm()

        if t_norm == 0.:
            continue

        t = t / t_norm

        dim_out, dim_in = t.shape
        is_wide = dim_out < dim_in

        if is_wide:
            t = t.T

        for _ in range(num_iters):
            A = t.T @ t
            t = a * t + b * (t @ A)

        if is_wide:
            t = t.T

        t = t * (t_norm / t.norm())

        if shrink_perturb:
            scale, noise_scale = shrink_perturb_factors
            noise = torch.randn_like(t)

            t = t.mul_(1. - scale).add_(noise * noise_scale)

        p.data.copy_(t)

# distributed helpers

def is_distributed():
    return dist.is_initialized() and dist.get_world_size() > 1

def maybe_distributed_mean(t):
    if not is_distributed():
        return t

    dist.all_reduce(t)
    t = t / dist.get_world_size()
    return t

# helper classes

def Sequential(*modules):
    return nn.Sequential(*filter(exists, modules))

class ConcatThen(Module):
    """concatenates multiple inputs along the last dimension before the inner modules - used by the spr transition model"""
    def __init__(self, *modules):
        super().__init__()
        self.module = nn.Sequential(*modules)

    def forward(self, *tensors):
        return self.module(einops_pack(tensors, 'b *')[0])

# Simplicial Embeddings
# Lavoie et al - https://arxiv.org/abs/2204.00616
# Obando-Ceron et al - https://openreview.net/forum?id=mCpq1GCKxA

class SEM(Module):
    def __init__(
        self,
        dim,
        temperature = 0.1,
        dim_simplex = 8,
        pre_layernorm = False
    ):
        super().__init__()
        assert divisible_by(dim, dim_simplex), f'{dim} must be divisible by {dim_simplex}'

        self.dim = dim
        self.dim_simplex = dim_simplex
        self.temperature = temperature

        self.norm = nn.LayerNorm(dim, bias = False) if pre_layernorm else nn.Identity()

    def forward(
        self,
        t
    ):
        t = self.norm(t)
        t = rearrange(t, '... (l v) -> ... l v', v = self.dim_simplex)
        t = (t / self.temperature).softmax(dim = -1)
        return rearrange(t, '... l v -> ... (l v)')

# attention residuals - Kimi Team https://arxiv.org/abs/2603.15031
# using the enformer attention pool style

class AttentionResidual(Module):
    def __init__(self, dim):
        super().__init__()
        self.to_attn_logits = nn.Conv1d(dim, dim, 1, bias = False)

        nn.init.dirac_(self.to_attn_logits.weight)

        with torch.no_grad():
            self.to_attn_logits.weight.mul_(2)

    def forward(self, history):
        values = rearrange(stack(history), 'l b d -> b d l')

        logits = self.to_attn_logits(values)
        attn = logits.softmax(dim = -1)

        return einsum('b d l, b d l -> b d', attn, values)

# SimBa - Kaist + SonyAI research

class ReluSquared(Module):
    def forward(self, x):
        return F.relu(x) ** 2

class SimBa(Module):

    @beartype
    def __init__(
        self,
        dim,
        dim_out,
        dim_hidden = None,
        depth = 3,
        dropout = 0.,
        expansion_factor = 2,
        final_norm = False,
        simplicial_embed = True
    ):
        super().__init__()
        """
        SimBa - https://arxiv.org/abs/2410.09754
        """

        dim_hidden = default(dim_hidden, dim * 2)

        layers = []

        self.proj_in = nn.Linear(dim, dim_hidden)

        dim_inner = dim_hidden * expansion_factor

        for _ in range(depth):

            layer = Sequential(
                nn.LayerNorm(dim_hidden, bias = False),
                nn.Linear(dim_hidden, dim_inner),
                nn.Dropout(dropout),
                ReluSquared(),
                nn.Linear(dim_inner, dim_hidden),
            )

            nn.init.constant_(layer[-1].weight, 1e-5)

            layers.append(layer)

        # final layer out

        self.layers = ModuleList(layers)

        self.attn_res_layers = ModuleList([AttentionResidual(dim_hidden) for _ in range(depth)])

        self.final_norm = nn.LayerNorm(dim_hidden) if final_norm else nn.Identity()

        self.simplicial_embed = SEM(dim_hidden, pre_layernorm = not final_norm) if simplicial_embed else nn.Identity()

        self.proj_out = nn.Sequential(
            nn.Linear(dim_hidden, dim_hidden * 2),
            nn.LeakyReLU(),
            nn.Linear(dim_hidden * 2, dim_out)
        )

    def forward(self, x, return_all_layers = False):

        x = self.proj_in(x)

        history = [x]
        layers = []

        for attn_res, layer in zip(self.attn_res_layers, self.layers):
            x = layer(x)
            history.append(x)
            x = attn_res(history)

            if return_all_layers:
                layers.append(x)

        x = self.final_norm(x)

        x = self.simplicial_embed(x)

        if return_all_layers:
            layers.append(x)

        out = self.proj_out(x)

        if not return_all_layers:
            return out

        return out, layers

# distributions

def get_scale(source_range, target_range):
    source_min, source_max = source_range
    target_min, target_max = target_range
    return (target_max - target_min) / (source_max - source_min)

def rescale_from_to(t, source_range, target_range):
    source_min, _ = source_range
    target_min, _ = target_range
    scale = get_scale(source_range, target_range)
    return (t - source_min) * scale + target_min

class SquashedNormal(Module):
    def __init__(self, eps = 1e-5):
        super().__init__()
        self.eps = eps
        self.source_range = (-1., 1.)

    def process_params(self, params):
        mu, sigma = rearrange(params, '... (n mu_sigma) -> mu_sigma ... n', mu_sigma = 2)
        sigma = sigma.sigmoid().clamp(min = self.eps)
        return ContinuousOutput(mu, sigma)

    def forward(self, params, reparametrize = False):
        mu, sigma = self.process_params(params)

        if reparametrize:
            sampled = mu + sigma * torch.randn_like(sigma)
        else:
            sampled = torch.normal(mu, sigma)

        squashed = sampled.tanh()

        # log prob

        log_prob = Normal(mu, sigma).log_prob(sampled)
        log_prob = log_prob - 2 * (log(tensor(2.)) - sampled - F.softplus(-2 * sampled))

        # approximate entropy

        entropy = -log_prob

        return squashed, log_prob, entropy, self.source_range

class BetaDistribution(Module):
    def __init__(
        self,
        eps = 1e-5,
        init_conc = 2.,
        detach_entropy_mean = False,
        **kwargs
    ):
        super().__init__()
        self.beta = Beta(eps = eps, init_conc = init_conc, detach_entropy_mean = detach_entropy_mean, **kwargs)
        self.source_range = tuple(map(float, self.beta.bounds))

    def process_params(self, params):
        params = rearrange(params, '... (n mean_conc) -> ... n mean_conc', mean_conc = 2)
        mean = self.beta.mean(params)
        conc = self.beta.concentration(params)
        return ContinuousOutput(mean, conc)

    def forward(self, params, reparametrize = False):
        params = rearrange(params, '... (n mean_conc) -> ... n mean_conc', mean_conc = 2)

        dist = self.beta(params)

        sampled = dist.rsample() if reparametrize else dist.sample()

        # log prob

        log_prob = dist.log_prob(sampled)

        # entropy - unlike PPO, SAC relies on the entropy bonus to keep the
        # policy mean off the action bounds, so the mean is not detached here

        entropy = dist.entropy()

        return sampled, log_prob, entropy, self.source_range

# main modules

class Actor(Module):
    @beartype
    def __init__(
        self,
        *,
        dim_state,
        num_cont_actions,
        mlp_depth = 3,
        num_discrete_actions: tuple[int, ...] = (),
        dim_hidden = None,
        eps = 1e-5,
        use_beta = False,
        beta_kwargs: dict = dict(),
        simplicial_embed = False,
        target_range: tuple[float, float] | None = None,
        state_recon = False,
        state_recon_branch_layer = -1,
        state_recon_module: Module | None = None,
        spr = False,
        spr_loss_fn: Module = nn.MSELoss()
    ):
        super().__init__()
        self.eps = eps

        discrete_action_dims = sum(num_discrete_actions)
        cont_action_dims = num_cont_actions * 2

        self.num_cont_actions = num_cont_actions
        self.has_cont_actions = num_cont_actions > 0

        self.num_discrete_actions = num_discrete_actions
        self.split_dims = (discrete_action_dims, cont_action_dims)

        self.to_actions = SimBa(
            dim_state,
            depth = mlp_depth,
            dim_hidden = dim_hidden,
            dim_out = discrete_action_dims + cont_action_dims,
            simplicial_embed = simplicial_embed
        )

        # continuous distribution

        cont_klass = partial(BetaDistribution, **beta_kwargs) if use_beta else SquashedNormal
        self.cont_dist = cont_klass(eps = eps)

        self.target_range = target_range

        # state reconstruction auxiliary loss
        # used by SonyAI for their SAC actor

        self.state_recon = state_recon
        self.state_recon_branch_layer = state_recon_branch_layer

        if state_recon:
            recon_dim_hidden = default(dim_hidden, dim_state * 2)

            self.to_state_recon = default(state_recon_module, Sequential(
                SEM(recon_dim_hidden, pre_layernorm = True),
                nn.Linear(recon_dim_hidden, recon_dim_hidden),
                nn.SiLU(),
                nn.Linear(recon_dim_hidden, dim_state)
            ))

        # SPR world model branch
        # self-predictive representations (SPR) - Schwarzer et al. https://arxiv.org/abs/2007.05929
        # the SPR branch (latent transition model + reconstruction head) acts as the world
        # model for the test-time tree search planning of the WorldModel module
        # the reconstruction head predicts the next state as a residual delta - Mψ(s, a) = s + Δψ(s, a)

        self.spr = spr

        if spr:
            assert num_cont_actions > 0, 'spr world model branch requires continuous actions'

            self.spr_loss_fn = spr_loss_fn

            spr_dim_hidden = default(dim_hidden, dim_state * 2)

            self.to_next_latent = ConcatThen(
                nn.Linear(spr_dim_hidden + num_cont_actions, spr_dim_hidden),
                nn.SiLU(),
                nn.Linear(spr_dim_hidden, spr_dim_hidden)
            )

            self.spr_proj = Sequential(
                nn.Linear(spr_dim_hidden, spr_dim_hidden),
                nn.SiLU(),
                nn.Linear(spr_dim_hidden, spr_dim_hidden)
            )

            self.to_next_state_recon = Sequential(
                SEM(spr_dim_hidden, pre_layernorm = True),
                nn.Linear(spr_dim_hidden, spr_dim_hidden),
                nn.SiLU(),
                nn.Linear(spr_dim_hidden, dim_state)
            )

            # reward model - rψ(s, a), used by the world model tree search (eq. 6, 9)

            self.to_reward = ConcatThen(
                nn.Linear(spr_dim_hidden + num_cont_actions, spr_dim_hidden),
                nn.SiLU(),
                nn.Linear(spr_dim_hidden, 1)
            )

    def forward(
        self,
        state: Float['b ...'],
        sample = False,
        cont_reparametrize = False,
        discrete_sample_temperature = 1.,
        discrete_sample_deterministic = False,
    ) -> (
        SoftActorOutput |
        SampledSoftActorOutput
    ):

        if self.state_recon or self.spr:
            action_dims, embeds = self.to_actions(state, return_all_layers = True)
            embed = embeds[self.state_recon_branch_layer]
            state_recon = self.to_state_recon(embed) if self.state_recon else None
            spr_embed = embed if self.spr else None
        else:
            action_dims = self.to_actions(state)
            state_recon = None
            spr_embed = None

        discrete_actions, cont_actions = action_dims.split(self.split_dims, dim = -1)
        discrete_action_logits = discrete_actions.split(self.num_discrete_actions, dim = -1)

        if not sample:
            cont_output = self.cont_dist.process_params(cont_actions) if self.has_cont_actions else None
            return SoftActorOutput(cont_output, discrete_action_logits, state_recon, spr_embed)

        # handle continuous

        sampled_cont_actions = cont_log_prob = cont_entropy = source_range = None

        if self.has_cont_actions:
            sampled_cont_actions, cont_log_prob, cont_entropy, source_range = self.cont_dist(cont_actions, reparametrize = cont_reparametrize)

            if exists(self.target_range) and self.target_range != source_range:
                sampled_cont_actions = rescale_from_to(sampled_cont_actions, source_range, self.target_range)

                scale = get_scale(source_range, self.target_range)

                cont_log_prob = cont_log_prob - math.log(scale)
                cont_entropy = cont_entropy + math.log(scale)

        # handle discrete

        sampled_discrete_actions = []
        discrete_log_probs = []

        for logits in discrete_action_logits:

            if discrete_sample_deterministic:
                sampled_action = logits.argmax(dim = -1)
            else:
                sampled_action = gumbel_sample(logits, temperature = discrete_sample_temperature)

            sampled_discrete_actions.append(sampled_action)

            log_probs = logits.log_softmax(dim = -1)
            discrete_log_prob = get_at('... [d], ... -> ...', log_probs, sampled_action)
            discrete_log_probs.append(discrete_log_prob)

        # return all sampled continuous and discrete actions with their associated log prob

        return SampledSoftActorOutput(
            sampled_cont_actions,
            cont_log_prob,
            cont_entropy,
            stack(sampled_discrete_actions, dim = -1) if len(sampled_discrete_actions) > 0 else None,
            discrete_action_logits,
            state_recon,
            spr_embed
        )

    def spr_embedding(self, state: Float['b ...']):
        """the branch embedding acting as the SPR encoder output"""
        _, embeds = self.to_actions(state, return_all_layers = True)
        return embeds[self.state_recon_branch_layer]

    def spr_next_state(self, state: Float['b ...'], action: Float['b nc'], embed: Float['b h'] | None = None):
        """world model next-state prediction via the SPR branch - Mψ(s, a) = s + Δψ(s, a)"""
        embed = default(embed, self.spr_embedding(state))
        next_latent = self.to_next_latent(embed, action)
        delta = self.to_next_state_recon(next_latent)
        return state + delta

    def spr_reward(self, state: Float['b ...'], action: Float['b nc'], embed: Float['b h'] | None = None):
        """reward model prediction rψ(s, a) via the SPR branch"""
        embed = default(embed, self.spr_embedding(state))
        return self.to_reward(embed, action)

    def spr_loss(
        self,
        state: Float['b ...'],
        action: Float['b nc'],
        next_state: Float['b ...'],
        reward: Float['b'] | None = None,
        return_breakdown = False
    ):
        """
        SPR self-predictive loss (Schwarzer et al.) with a reconstruction head
        predicting the next state and a reward model - latent transition conditioned
        on the action, latent target is the detached branch embedding of the next state
        """
        embed = self.spr_embedding(state)
        next_latent = self.to_next_latent(embed, action)

        predicted_delta = self.to_next_state_recon(next_latent)
        recon_loss = self.spr_loss_fn(predicted_delta, next_state - state)

        with torch.no_grad():
            target_latent = self.spr_embedding(next_state)

        latent_loss = self.spr_loss_fn(self.spr_proj(next_latent), target_latent)

        total_loss = recon_loss + latent_loss

        reward_loss = None
        if exists(reward):
            predicted_reward = self.to_reward(embed, action)
            reward_loss = self.spr_loss_fn(rearrange(predicted_reward, 'b 1 -> b'), reward)
            total_loss = total_loss + reward_loss

        if not return_breakdown:
            return total_loss

        return total_loss, (recon_loss, latent_loss, reward_loss)

class Critic(Module):
    @beartype
    def __init__(
        self,
        *,
        dim_state,
        num_cont_actions,
        mlp_depth = 3,
        num_discrete_actions: tuple[int, ...] = (),
        dim_hidden = None,
        dropout = 0.,
        dim_out = 1,
        simplicial_embed = False,
        state_recon = False,
        state_recon_branch_layer = -1,
        state_recon_module: Module | None = None,
        spr = False,
        spr_loss_fn: Module = nn.MSELoss()
    ):
        super().__init__()

        dim_out = default(dim_out, dim_state)

        num_actions_split = tensor((num_cont_actions, *num_discrete_actions))

        # determine the output dimension of the critic
        # which is the sum of all the actions (continous and discrete), multiplied by the number of quantiles

        critic_dim_out = num_actions_split * dim_out

        self.to_values = SimBa(
            dim_state + num_cont_actions,
            depth = mlp_depth,
            dim_out = critic_dim_out.sum().item(),
            dim_hidden = dim_hidden,
            dropout = dropout,
            simplicial_embed = simplicial_embed
        )

        # state reconstruction auxiliary loss

        self.state_recon = state_recon
        self.state_recon_branch_layer = state_recon_branch_layer

        if state_recon:
            recon_dim_hidden = default(dim_hidden, (dim_state + num_cont_actions) * 2)

            self.to_state_recon = default(state_recon_module, Sequential(
                SEM(recon_dim_hidden, pre_layernorm = True),
                nn.Linear(recon_dim_hidden, recon_dim_hidden),
                nn.SiLU(),
                nn.Linear(recon_dim_hidden, dim_state)
            ))

        # SPR world model branch
        # self-predictive representations (SPR) - Schwarzer et al. https://arxiv.org/abs/2007.05929
        # the SPR branch (latent transition model + reconstruction head) acts as the world
        # model for the test-time tree search planning of the WorldModel module
        # the reconstruction head predicts the next state as a residual delta - Mψ(s, a) = s + Δψ(s, a)

        self.spr = spr

        if spr:
            assert num_cont_actions > 0, 'spr world model branch requires continuous actions'

            self.spr_loss_fn = spr_loss_fn

            spr_dim_hidden = default(dim_hidden, (dim_state + num_cont_actions) * 2)

            self.to_next_latent = ConcatThen(
                nn.Linear(spr_dim_hidden + num_cont_actions, spr_dim_hidden),
                nn.SiLU(),
                nn.Linear(spr_dim_hidden, spr_dim_hidden)
            )

            self.spr_proj = Sequential(
                nn.Linear(spr_dim_hidden, spr_dim_hidden),
                nn.SiLU(),
                nn.Linear(spr_dim_hidden, spr_dim_hidden)
            )

            self.to_next_state_recon = Sequential(
                SEM(spr_dim_hidden, pre_layernorm = True),
                nn.Linear(spr_dim_hidden, spr_dim_hidden),
                nn.SiLU(),
                nn.Linear(spr_dim_hidden, dim_state)
            )

        # save the number of quantiles and the number of actions, for splitting out the output of the critic correctly

        self.num_actions_split = num_actions_split.tolist()

        self.dim_out = dim_out

        # for tensor typing

        self._n = num_cont_actions
        self._o = dim_out

    def forward(
        self,
        state: Float['b ...'],
        cont_actions: Float['b {self._n}'] | None = None
    ) -> tuple[Float['b ...'], ...]:

        pack_input = compact([state, cont_actions])

        mlp_input = pack(pack_input, 'b *')

        if self.state_recon:
            values, embeds = self.to_values(mlp_input, return_all_layers = True)
            embed = embeds[self.state_recon_branch_layer]
            state_recon = self.to_state_recon(embed)
        else:
            values = self.to_values(mlp_input)

        greater_one_output_dim = self.dim_out > 1

        if greater_one_output_dim:
            values = rearrange(values, '... (n o) -> ... n o', o = self.dim_out)

        split_dim = -2 if greater_one_output_dim else -1

        values = values.split(self.num_actions_split, dim = split_dim)

        if self.state_recon:
            return values, state_recon
        return values

    def spr_embedding(self, state: Float['b ...'], cont_actions: Float['b {self._n}'] | None = None):
        """the branch embedding acting as the SPR encoder output"""
        pack_input = compact([state, cont_actions])
        mlp_input = pack(pack_input, 'b *')
        _, embeds = self.to_values(mlp_input, return_all_layers = True)
        return embeds[self.state_recon_branch_layer]

    def spr_next_state(self, state: Float['b ...'], cont_actions: Float['b {self._n}'] | None = None):
        """world model next-state prediction via the SPR branch - Mψ(s, a) = s + Δψ(s, a)"""
        embed = self.spr_embedding(state, cont_actions)
        next_latent = self.to_next_latent(embed, cont_actions)
        delta = self.to_next_state_recon(next_latent)
        return state + delta

    def spr_loss(
        self,
        state: Float['b ...'],
        cont_actions: Float['b {self._n}'],
        next_state: Float['b ...'],
        next_cont_actions: Float['b {self._n}'],
        return_breakdown = False
    ):
        """
        SPR self-predictive loss (Schwarzer et al.) with a reconstruction head
        predicting the next state - latent transition conditioned on the action,
        latent target is the detached branch embedding of the next state
        """
        embed = self.spr_embedding(state, cont_actions)
        next_latent = self.to_next_latent(embed, cont_actions)

        predicted_delta = self.to_next_state_recon(next_latent)
        recon_loss = self.spr_loss_fn(predicted_delta, next_state - state)

        with torch.no_grad():
            target_latent = self.spr_embedding(next_state, next_cont_actions)

        latent_loss = self.spr_loss_fn(self.spr_proj(next_latent), target_latent)

        total_loss = recon_loss + latent_loss

        if not return_breakdown:
            return total_loss

        return total_loss, (recon_loss, latent_loss)

class TransformerCritic(Module):
    """ Transformer based critic - Dong Tian et al. https://arxiv.org/abs/2503.03660 """

    @beartype
    def __init__(
        self,
        *,
        dim_state,
        num_cont_actions,
        dim_hidden = 256,
        depth = 3,
        heads = 8,
        dim_out = 1,
        max_seq_len = 10,
        state_recon = False,
        state_recon_branch_layer = -1,
        state_recon_module: Module | None = None
    ):
        super().__init__()
        self.dim_out = dim_out
        self.max_seq_len = max_seq_len
        self.num_cont_actions = num_cont_actions

        # transformer critics do not support the spr world model branch

        self.spr = False

        # projections

        self.state_proj = nn.Linear(dim_state, dim_hidden)
        self.action_proj = nn.Linear(num_cont_actions, dim_hidden)

        # positional embeddings for action sequence

        self.pos_emb = nn.Embedding(max_seq_len, dim_hidden)

        # transformer decoder

        self.decoder = Decoder(
            dim = dim_hidden,
            depth = depth,
            heads = heads
        )

        # to values

        self.to_values = Sequential(
            nn.LayerNorm(dim_hidden),
            nn.Linear(dim_hidden, num_cont_actions * dim_out)
        )

        # state reconstruction auxiliary loss

        self.state_recon = state_recon
        self.state_recon_branch_layer = state_recon_branch_layer

        if state_recon:
            self.to_state_recon = default(state_recon_module, Sequential(
                SEM(dim_hidden, pre_layernorm = True),
                nn.Linear(dim_hidden, dim_hidden),
                nn.SiLU(),
                nn.Linear(dim_hidden, dim_state)
            ))

    def forward(
        self,
        state: Float['b ...'],
        cont_actions: Float['b nc'] | None = None
    ) -> tuple[Float['b ...'], ...]:

        cont_actions, inverse_seq = pack_with_inverse(cont_actions, 'b * d')

        b, seq, _ = cont_actions.shape
        assert seq <= self.max_seq_len, f'sequence length {seq} exceeds max_seq_len {self.max_seq_len}'

        # project state and actions into token space

        state_tokens = rearrange(self.state_proj(state), 'b d -> b 1 d')
        action_tokens = self.action_proj(cont_actions)

        # add positional embeddings to actions

        positions = torch.arange(seq, device = cont_actions.device)
        action_tokens = action_tokens + self.pos_emb(positions)

        # concat state prefix with action tokens and run through decoder

        tokens = cat((state_tokens, action_tokens), dim = 1)

        if self.state_recon:
            out, intermediates = self.decoder(tokens, return_hiddens = True)
            hidden = intermediates.hiddens[self.state_recon_branch_layer]
            state_recon = self.to_state_recon(hidden[:, 0])
        else:
            out = self.decoder(tokens)

        # extract action outputs (skip state prefix token)

        values = self.to_values(out[:, 1:])

        # restore original sequence shape

        values = inverse_seq(values)

        # reshape for multi-dim output (e.g. quantiles or bins)

        if self.dim_out > 1:
            values = rearrange(values, '... (n o) -> ... n o', o = self.dim_out)

        # wrap in tuple to match Critic return contract (one tensor per action type)

        values = (values,)

        if not self.state_recon:
            return values

        return values, state_recon

class MultipleCritics(Module):
    @beartype
    def __init__(
        self,
        *critics: Critic | TransformerCritic,
        use_softmin = False,
        expectile_l2_loss_tau = 0.5, # regular mse loss if 0.5
        state_recon_loss_weight = 1.0,
        state_recon_loss_fn: Module = nn.MSELoss()
    ):
        super().__init__()
        assert len(critics) > 0
        assert all([critic.dim_out == 1 for critic in critics]), 'this wrapper only allows for critics that return a single predicted value per action'

        self.num_critics = len(critics)
        self.one_critic = len(critics) == 1
        self.critics = ModuleList(critics)

        # maybe state recon loss

        has_state_recons = tuple(critic.state_recon for critic in critics)
        assert len(set(has_state_recons)) == 1, 'critics must all have state_recon either enabled or disabled'
        self.has_state_recon = has_state_recons[0]

        self.state_recon_loss_weight = state_recon_loss_weight
        self.state_recon_loss_fn = state_recon_loss_fn

        self.use_softmin = use_softmin
        self.expectile_l2_loss_tau = expectile_l2_loss_tau

    def forward(
        self,
        states: Float['b ...'],
        cont_actions: Float['b nc'] | None = None,
        discrete_actions: Int['b nd'] | None = None,
        target_values: Float['b n'] | None = None,
        return_breakdown = False,
        loss_mask: Bool['b s'] | None = None,
        **kwargs
    ):
        raw_critics_values = [critic(states, cont_actions) for critic in self.critics]

        if self.has_state_recon:
            critics_values = [v[0] for v in raw_critics_values]
            state_recons = stack([v[1] for v in raw_critics_values])
        else:
            critics_values = raw_critics_values

        critics_values = [stack(one_value_for_critics) for one_value_for_critics in zip(*critics_values)]

        if not exists(target_values):

            min_critic_values = []

            for critic_values in critics_values:
                if self.use_softmin:
                    softmin = (-critic_values).softmax(dim = 0)

                    min_critic_value = (softmin * critic_values).sum(dim = 0)

                elif self.one_critic:
                    min_critic_value = critic_values[0]

                else:
                    min_critic_value = torch.minimum(*critic_values)

                min_critic_values.append(min_critic_value)

            if not return_breakdown:
                return min_critic_values

            return min_critic_values, critics_values

        cont_critics_values, *discrete_critics_values = critics_values

        cont_critics_values = pack(cont_critics_values, 'c b * n') if not is_empty(cont_critics_values) else None

        if exists(discrete_actions):
            discrete_critics_values = [pack(dcv, 'c b * n') for dcv in discrete_critics_values]
            discrete_actions = pack(discrete_actions, 'b * nd')
            discrete_critics_values = [get_at('c b s [l], b s -> c b s', dcv, da) for dcv, da in zip(discrete_critics_values, discrete_actions.unbind(dim = -1))]

        values = pack(compact([cont_critics_values, *discrete_critics_values]), 'c b s *')

        target_values = pack(target_values, 'b * d')
        target_values = repeat(target_values, 'b s d -> c b s d', c = self.num_critics)

        losses = expectile_l2_loss(values, target_values, tau = self.expectile_l2_loss_tau, reduction = 'none')

        losses = reduce(losses, 'c b s n -> b s', 'sum')
        reduced_losses = masked_mean(losses, loss_mask)

        if self.has_state_recon:
            states_expanded = repeat(states, 'b ... -> c b ...', c = self.num_critics)
            state_recon_loss = self.state_recon_loss_fn(state_recons, states_expanded)
            reduced_losses = reduced_losses + state_recon_loss * self.state_recon_loss_weight

        if not return_breakdown:
            return reduced_losses

        return reduced_losses, losses

class MultipleCriticsWithClassificationLoss(Module):
    @beartype
    def __init__(
        self,
        *critics: Critic | TransformerCritic,
        hl_gauss_loss: dict | HLGaussLossFromSupport,
        use_softmin = False,
        state_recon_loss_weight = 1.0,
        state_recon_loss_fn: Module = nn.MSELoss()
    ):
        super().__init__()
        assert len(critics) > 0
        assert all([critic.dim_out > 1 for critic in critics]), 'the critic must return multiple bins for classification loss'

        self.num_critics = len(critics)
        self.critics = ModuleList(critics)

        has_state_recons = tuple(critic.state_recon for critic in critics)
        assert len(set(has_state_recons)) == 1, 'critics must all have state_recon either enabled or disabled'
        self.has_state_recon = has_state_recons[0]

        self.use_softmin = use_softmin

        # maybe state recon loss

        self.state_recon_loss_weight = state_recon_loss_weight
        self.state_recon_loss_fn = state_recon_loss_fn

        if isinstance(hl_gauss_loss, dict):
            hl_gauss_loss = HLGaussLoss(**hl_gauss_loss)

        self.hl_gauss_loss = hl_gauss_loss

    def forward(
        self,
        states: Float['b ...'],
        cont_actions: Float['b nc'] | None = None,
        discrete_actions: Int['b nd'] | None = None,
        target_values: Float['b n'] | None = None,
        return_breakdown = False,
        loss_mask: Bool['b s'] | None = None,
        **kwargs
    ):
        raw_critics_values = [critic(states, cont_actions) for critic in self.critics]

        if self.has_state_recon:
            critics_values_list = [v[0] for v in raw_critics_values]
            state_recons = stack([v[1] for v in raw_critics_values])
        else:
            critics_values_list = raw_critics_values

        binned_critics_values = []
        critics_values = []

        for one_value_for_critics in zip(*critics_values_list):
            stacked_critic_values = stack(one_value_for_critics)

            binned_critics_values.append(stacked_critic_values)

            stacked_critic_values = self.hl_gauss_loss(stacked_critic_values)

            critics_values.append(stacked_critic_values)

        if not exists(target_values):

            min_critic_values = []

            for critic_values in critics_values:
                if self.use_softmin:
                    softmin = (-critic_values).softmax(dim = 0)

                    min_critic_value = (softmin * critic_values).sum(dim = 0)
                else:
                    min_critic_value = torch.minimum(*critic_values)

                min_critic_values.append(min_critic_value)

            if not return_breakdown:
                return min_critic_values

            return min_critic_values, critics_values

        cont_critics_values, *discrete_critics_values = binned_critics_values

        cont_critics_values = pack(cont_critics_values, 'c b * n bins') if not is_empty(cont_critics_values) else None

        if exists(discrete_actions):
            discrete_critics_values = [pack(dcv, 'c b * n bins') for dcv in discrete_critics_values]
            discrete_actions = pack(discrete_actions, 'b * nd')
            discrete_critics_values = [get_at('c b s [l] bins, b s -> c b s bins', dcv, da) for dcv, da in zip(discrete_critics_values, discrete_actions.unbind(dim = -1))]

        values = pack(compact([cont_critics_values, *discrete_critics_values]), 'c b s * bins')

        target_values = pack(target_values, 'b * d')
        target_values = repeat(target_values, 'b s d -> c b s d', c = self.num_critics)

        # from "Stop Regressing" paper out of deepmind, Farebrother et al

        cross_entropy_losses = self.hl_gauss_loss(values, target_values, reduction = 'none')

        cross_entropy_losses = reduce(cross_entropy_losses, 'c b s n -> b s', 'sum')
        reduced_losses = masked_mean(cross_entropy_losses, loss_mask)

        if self.has_state_recon:
            states_expanded = repeat(states, 'b ... -> c b ...', c = self.num_critics)
            state_recon_loss = self.state_recon_loss_fn(state_recons, states_expanded)
            reduced_losses = reduced_losses + state_recon_loss * self.state_recon_loss_weight

        if not return_breakdown:
            return reduced_losses

        return reduced_losses, cross_entropy_losses

class MultipleQuantileCritics(Module):
    @beartype
    def __init__(
        self,
        *critics: Critic | TransformerCritic,
        quantiles: list[float] | Tensor | None = None,
        frac_atom_keep = 0.75, # will truncate 25% of the top values
        state_recon_loss_weight = 1.0,
        state_recon_loss_fn: Module = nn.MSELoss()
    ):
        super().__init__()
        assert len(critics) > 0
        assert all([critic.dim_out > 1 for critic in critics]), 'all critics must be returning greater than one output dimension, assumed as quantiles'
        assert len(set([critic.dim_out for critic in critics])) == 1, 'all critics must have same number of output dimensions for quantiled training'

        self.num_critics = len(critics)

        self.critics = ModuleList(critics)
        self.num_atom_keep = int(frac_atom_keep * self.num_critics * self.num_quantiles)

        # maybe state recon aux loss

        has_state_recons = tuple(critic.state_recon for critic in critics)
        assert len(set(has_state_recons)) == 1, 'critics must all have state_recon either enabled or disabled'
        self.has_state_recon = has_state_recons[0]
        self.state_recon_loss_weight = state_recon_loss_weight
        self.state_recon_loss_fn = state_recon_loss_fn

        # quantiles

        num_quantiles = self.num_quantiles
        quantiles = torch.linspace(0., 1., num_quantiles + 2)[1:-1] # excluding 0 and 1 - say 3 quantiles will be 0.25, 0.5, 0.75

        self.register_buffer('quantiles', quantiles)

    @property
    def num_quantiles(self):
        return self.critics[0].dim_out

    def forward(
        self,
        states: Float['b ...'],
        cont_actions: Float['b nc'] | None = None,
        discrete_actions: Int['b nd'] | None = None,
        target_values: Float['b n q'] | None = None,
        truncate_quantiles_across_critics = False,
        return_breakdown = False,
        loss_mask: Bool['b s'] | None = None
    ):
        raw_critics_quantile_atoms = [critic(states, cont_actions) for critic in self.critics]

        if self.has_state_recon:
            critics_quantile_atoms_list = [v[0] for v in raw_critics_quantile_atoms]
            state_recons = stack([v[1] for v in raw_critics_quantile_atoms])
        else:
            critics_quantile_atoms_list = raw_critics_quantile_atoms

        critics_quantile_atoms = [stack(one_value_for_critics) for one_value_for_critics in zip(*critics_quantile_atoms_list)]

        if not exists(target_values):

            if truncate_quantiles_across_critics:
                truncated_means_per_action = []

                for critic_quantile_atoms in critics_quantile_atoms:
                    quantile_atoms = rearrange(critic_quantile_atoms, 'c b ... q -> b ... (q c)')

                    # mean of the truncated distribution

                    truncated_quantiles = quantile_atoms.topk(self.num_atom_keep, largest = False).values
                    truncated_mean = truncated_quantiles.mean(dim = -1)

                    truncated_means_per_action.append(truncated_mean)

                return_value = truncated_means_per_action
            else:

                min_critic_value_per_action = []

                for critic_quantile_atoms in critics_quantile_atoms:
                    min_critic_value = torch.minimum(*critic_quantile_atoms)
                    min_critic_value_per_action.append(min_critic_value)

                return_value = min_critic_value_per_action

            if not return_breakdown:
                return return_value

            return return_value, critics_quantile_atoms

        cont_quantile_atoms, *discrete_quantile_atoms = critics_quantile_atoms

        cont_quantile_atoms = pack(cont_quantile_atoms, 'c b * n q') if not is_empty(cont_quantile_atoms) else None

        if exists(discrete_actions):
            discrete_quantile_atoms = [pack(dqa, 'c b * n q') for dqa in discrete_quantile_atoms]
            discrete_actions = pack(discrete_actions, 'b * nd')
            discrete_quantile_atoms = [get_at('c b s [l] q, b s -> c b s q', dqa, da) for dqa, da in zip(discrete_quantile_atoms, discrete_actions.unbind(dim = -1))]

        quantile_atoms = pack(compact([cont_quantile_atoms, *discrete_quantile_atoms]), 'c b s * q')

        target_values = pack(target_values, 'b * d q')
        target_values = repeat(target_values, 'b s d q -> c b s d q', c = self.num_critics)

        # quantile regression if training

        quantiles = self.quantiles

        # quantile regression loss

        error = target_values - quantile_atoms
        losses = torch.maximum(error * quantiles, error * (quantiles - 1.))

        losses = reduce(losses, 'c b s n q -> b s', 'sum')
        reduced_losses = masked_mean(losses, loss_mask)

        if self.has_state_recon:
            states_expanded = repeat(states, 'b ... -> c b ...', c = self.num_critics)
            state_recon_loss = self.state_recon_loss_fn(state_recons, states_expanded)
            reduced_losses = reduced_losses + state_recon_loss * self.state_recon_loss_weight

        if not return_breakdown:
            return reduced_losses

        return reduced_losses, losses

# automatic entropy temperature adjustment
# will account for both continuous and discrete

class LearnedEntropyTemperature(Module):
    def __init__(
        self,
        num_discrete_actions = 0,
        num_cont_actions = 0,
        continuous_entropy_target: float | None = None
    ):
        super().__init__()

        self.log_alpha = nn.Parameter(tensor(0.))

        self.has_discrete = len(num_discrete_actions) > 0
        self.has_continuous = num_cont_actions > 0

        self.discrete_entropy_targets = [0.98 * math.log(one_num_discrete_actions) for one_num_discrete_actions in num_discrete_actions]
        self.continuous_entropy_target = default(continuous_entropy_target, float(num_cont_actions))

    @property
    def alpha(self):
        return self.log_alpha.exp()

    def forward(
        self,
        cont_entropy: Float['b nc'] | None = None,
        discrete_logits: tuple[Float['b _'], ...] | None = None,
        return_breakdown = False
    ):
        assert exists(cont_entropy) or exists(discrete_logits)

        alpha = self.alpha

        losses = []

        if exists(discrete_logits):

            for one_discrete_logits, discrete_entropy_target in zip(discrete_logits, self.discrete_entropy_targets):
                discrete_entropy = entropy(one_discrete_logits)
                discrete_entropy_temp_loss = -alpha * (discrete_entropy_target - discrete_entropy).detach()

                losses.append(discrete_entropy_temp_loss.mean())

        if exists(cont_entropy):
            cont_entropy_summed = cont_entropy.sum(dim = -1)
            cont_entropy_temp_loss = -alpha * (self.continuous_entropy_target - cont_entropy_summed).detach()

            losses.append(cont_entropy_temp_loss.mean())

        reduced_losses = pack(losses, '*')
        reduced_losses = reduced_losses.sum()

        if not return_breakdown:
            return reduced_losses

        return reduced_losses, losses

# main class

class SAC(Module):
    @beartype
    def __init__(
        self,
        actor: dict | Actor,
        critics: (
            list[dict] |
            list[Critic] |
            list[TransformerCritic] |
            MultipleCritics |
            MultipleQuantileCritics |
            MultipleCriticsWithClassificationLoss
        ),
        quantiled_critics = False,
        transformer_critic = False,
        hl_gauss_loss: dict | HLGaussLossFromSupport | None = None,
        reward_discount_rate = 0.99,
        reward_scale = 1.,
        actor_learning_rate = 3e-4,
        actor_regen_reg_rate = 1e-4,
        critic_target_ema_decay = 0.99,
        critics_learning_rate = 3e-4,
        critics_regen_reg_rate = 1e-4,
        use_minto = False,
        multiple_critics_kwargs: dict = dict(),
        temperature_learning_rate = 3e-4,
        ema_kwargs: dict = dict(),
        actor_update_freq = 2,
        fire_every: int | None = None,
        apply_fire_actor = True,
        apply_fire_critic = True,
        fire_num_iters = 20,
        shrink_perturb = False,
        shrink_perturb_factors = (0.5, 0.01),
        actor_state_recon_loss_weight = 1.0,
        critic_state_recon_loss_weight = 1.0,
        state_recon_loss_fn: Module = nn.MSELoss(),
        critic_max_grad_norm: float | None = None,
        world_model: WorldModel | dict | None = None,
        actor_spr_loss_weight = 1.0,
        critic_spr_loss_weight = 1.0,
        target_continuous_entropy: float | None = None
    ):
        super().__init__()

        self.transformer_critic = transformer_critic
        self.critic_max_grad_norm = critic_max_grad_norm

        # set actor

        if isinstance(actor, dict):
            actor = Actor(**actor)

        self.actor = actor

        self.actor_optimizer = Adopt(
            actor.parameters(),
            lr = actor_learning_rate,
            regen_reg_rate = actor_regen_reg_rate
        )
        # based on the actor hyperparameters, init the learned temperature container
        # the beta distribution on (-1, 1) has entropy bounded above by
        # n * log(2), so half the usual gaussian entropy target is used

        if not exists(target_continuous_entropy):
            entropy_target_scale = 0.5 if isinstance(actor.cont_dist, BetaDistribution) else 1.
            target_continuous_entropy = actor.num_cont_actions * entropy_target_scale

        self.learned_entropy_temperature = LearnedEntropyTemperature(
            num_cont_actions = actor.num_cont_actions,
            num_discrete_actions = actor.num_discrete_actions,
            continuous_entropy_target = target_continuous_entropy
        )

        self.temperature_optimizer = Adopt(
            self.learned_entropy_temperature.parameters(),
            lr = temperature_learning_rate,
        )

        # set critics
        # allow for usual double+ critic trick or truncated quantiled critics

        if is_bearable(critics, list[dict]):
            critic_klass = TransformerCritic if transformer_critic else Critic
            critics = [critic_klass(**critic) for critic in critics]

        critic_dim_outs = {critic.dim_out for critic in critics}

        assert len(critic_dim_outs) == 1, 'critics must all have the same output dimension'

        critic_dim_out = list(critic_dim_outs)[0]

        critic_kwargs = dict()

        if critic_dim_out == 1:
            critic_klass = MultipleCritics
            critic_kwargs = multiple_critics_kwargs
        elif critic_dim_out > 1 and not quantiled_critics:
            assert exists(hl_gauss_loss), 'hl_gauss_loss must be set'
            critic_klass = MultipleCriticsWithClassificationLoss
            critic_kwargs = dict(hl_gauss_loss = hl_gauss_loss)
        else:
            critic_klass = MultipleQuantileCritics

        if is_bearable(critics, list[Critic]) or is_bearable(critics, list[TransformerCritic]):
            critics = critic_klass(*critics, **critic_kwargs, state_recon_loss_weight = critic_state_recon_loss_weight, state_recon_loss_fn = state_recon_loss_fn)

        assert isinstance(critics, critic_klass), f'expected {critic_klass.__name__} but received critics wrapped with {type(critics).__name__}'

        self.critics = critics

        self.quantiled_critics = quantiled_critics

        # world model for test-time tree search (QWM - Dong et al. https://arxiv.org/abs/2608.17163)
        # the world model takes the SPR formulation - the transition + reconstruction head lives
        # within the actor and critic, while all tree search planning logic is kept in this module

        if isinstance(world_model, dict):
            world_model = WorldModel(actor = actor, critics = critics, **world_model)

        self.world_model = world_model

        # spr world model losses

        self.actor_spr_loss_weight = actor_spr_loss_weight
        self.critic_spr_loss_weight = critic_spr_loss_weight

        critics_spr_flags = {critic.spr for critic in self.critics.critics}
        assert len(critics_spr_flags) == 1, 'critics must all have spr either enabled or disabled'
        self.critics_have_spr = next(iter(critics_spr_flags))

        # critic optimizers

        self.critics_optimizer = Adopt(
            critics.parameters(),
            lr = critics_learning_rate,
            regen_reg_rate = critics_regen_reg_rate
        )

        # target critic network

        self.critics_target = EMA(
            critics,
            beta = critic_target_ema_decay,
            include_online_model = False,
            **ema_kwargs
        )

        # minto - taking the minimum of both online and ema

        self.use_minto = use_minto

        # reward related

        self.reward_scale = reward_scale
        self.reward_discount_rate = reward_discount_rate

        # continual learning related - shrink & perturb + fire

        self.fire_every = fire_every
        self.apply_fire_actor = apply_fire_actor
        self.apply_fire_critic = apply_fire_critic
        self.fire_num_iters = fire_num_iters

        self.shrink_perturb = shrink_perturb
        self.shrink_perturb_factors = shrink_perturb_factors

        # state reconstruction auxiliary loss

        self.actor_state_recon_loss_weight = actor_state_recon_loss_weight
        self.state_recon_loss_fn = state_recon_loss_fn

        # steps and frequency of actor update

        self.actor_update_freq = actor_update_freq
        self.register_buffer('step', tensor(0))

        # discounted returns

        self.assoc_scan = AssocScan(reverse = True)

    @torch.no_grad()
    def apply_fire_(
        self,
        num_iters = 20,
        coefs = (1.5, -0.5),
        shrink_perturb = False,
        shrink_perturb_factors = (0.5, 0.01)
    ):
        if self.apply_fire_actor:
            apply_fire(self.actor, num_iters = num_iters, coefs = coefs, shrink_perturb = shrink_perturb, shrink_perturb_factors = shrink_perturb_factors)

        if self.apply_fire_critic:
            for critic in self.critics.critics:
                apply_fire(critic, num_iters = num_iters, coefs = coefs, shrink_perturb = shrink_perturb, shrink_perturb_factors = shrink_perturb_factors)

            if exists(self.critics_target):
                self.critics_target.copy_params_from_model_to_ema()

    def forward(
        self,
        states: Float['b ...'],
        cont_actions: Float['b nc'],
        discrete_actions: Int['b nd'],
        rewards: Float['b'],
        done: Bool['b'],
        next_states: Float['b ...'],
        n_step_lens: Int['b'] | None = None
    ):
        # pack sequence dimension - base case is always seq of 1

        rewards = pack(rewards, 'b *')
        done = pack(done, 'b *')

        seq_len = rewards.shape[1]

        if exists(cont_actions) and cont_actions.ndim == 3:
            assert cont_actions.shape[1] == seq_len, f'rewards chunk length {seq_len} must match actions chunk length {cont_actions.shape[1]}. did you forget to include rewards for each step in the chunk?'

        assert not (next_states.ndim == 3 and next_states.shape[1] > 1), 'next_states must be the single end-of-chunk state (2D), not a sequence of states. the n-step bootstrap only requires the state at the end of each chunk'

        if done.shape[1] == 1 and seq_len > 1:
            done = repeat(done, 'b 1 -> b s', s = seq_len)

        rewards = rewards * self.reward_scale

        # bellman equation

        entropy_temp = self.learned_entropy_temperature.alpha.detach()

        γ = self.reward_discount_rate
        not_terminal = (~done).float()

        # outputs from actor for the next states

        with torch.no_grad():
            next_actor_output = self.actor(next_states, sample = True)

            next_cont_actions = next_actor_output.continuous
            next_cont_log_prob = next_actor_output.continuous_log_prob
            next_discrete_logits = next_actor_output.discrete_action_logits

            # forward for critic predictions
            # using EMA, but also using online, if Minto is turned on - Ahmed Hendawy et al. https://arxiv.org/abs/2510.02590

            self.critics_target.eval()
            next_cont_q_value, *next_discrete_q_values = self.critics_target(next_states, cont_actions = next_cont_actions)

            if self.use_minto:
                was_training = self.critics.training
                self.critics.eval()

                online_next_cont_q_value, *online_next_discrete_q_values = self.critics(next_states, cont_actions = next_cont_actions)

                next_cont_q_value = torch.minimum(next_cont_q_value, online_next_cont_q_value)
                next_discrete_q_values = tuple(torch.minimum(*ema_and_online) for ema_and_online in zip(next_discrete_q_values, online_next_discrete_q_values))

                self.critics.train(was_training)

        # learned temperature - detached

        learned_entropy_weight = self.learned_entropy_temperature.alpha.detach()

        next_soft_state_values = []

        # first handle continuous soft state value

        if exists(next_cont_log_prob):
            next_cont_log_prob = next_cont_log_prob.sum(dim = -1, keepdim = True)

            if self.quantiled_critics:
                next_cont_log_prob = rearrange(next_cont_log_prob, '... -> ... 1')

            cont_soft_state_value = next_cont_q_value - learned_entropy_weight * next_cont_log_prob
            next_soft_state_values.append(cont_soft_state_value)

        # then handle discrete contribution

        if len(next_discrete_q_values) > 0:

            for next_discrete_q_value, next_discrete_logit in zip(next_discrete_q_values, next_discrete_logits):
                next_discrete_prob = next_discrete_logit.softmax(dim = -1)
                next_discrete_log_prob = log(next_discrete_prob)

                if self.quantiled_critics:
                    next_discrete_prob = rearrange(next_discrete_prob, '... -> ... 1')
                    next_discrete_log_prob = rearrange(next_discrete_log_prob, '... -> ... 1')

                discrete_soft_state_value = (next_discrete_prob * (next_discrete_q_value - learned_entropy_weight * next_discrete_log_prob)).sum(dim = 1)
                next_soft_state_values.append(discrete_soft_state_value)

        # pack soft state values and expand rewards / done for broadcasting

        if self.quantiled_critics:
            next_soft_state_values = pack(next_soft_state_values, 'b * q')
            rewards = rearrange(rewards, 'b s -> b s 1 1')
            not_terminal = rearrange(not_terminal, 'b s -> b s 1 1')
        else:
            next_soft_state_values = pack(next_soft_state_values, 'b *')
            rewards = rearrange(rewards, 'b s -> b s 1')
            not_terminal = rearrange(not_terminal, 'b s -> b s 1')

        # n-step target q values via reversed cumulative bellman scan
        # when seq_len is 1 this is exactly the standard single-step bellman update

        b = rewards.shape[0]
        if not exists(n_step_lens):
            n_step_lens = torch.full((b,), seq_len, device = rewards.device, dtype = torch.long)

        next_soft_state_values = rearrange(next_soft_state_values, 'b ... -> b 1 ...')
        rewards = rewards.repeat(1, 1, *next_soft_state_values.shape[2:])

        inputs = cat((rewards, torch.zeros_like(rewards[:, :1])), dim = 1)
        batch_indices = torch.arange(b, device = rewards.device)

        inputs[batch_indices, n_step_lens] = rearrange(next_soft_state_values, 'b 1 ... -> b ...')

        gates = torch.full_like(inputs, γ)
        gates[batch_indices, n_step_lens] = 0.
        gates[:, :-1] = gates[:, :-1] * not_terminal

        target_q_values = self.assoc_scan(gates, inputs)[:, :-1]

        # derive loss mask from done - exclude positions after the first terminal in each batch

        loss_mask = mask_after(done, True)

        # also mask out padded positions

        if exists(n_step_lens):
            pad_mask = lens_to_mask(n_step_lens, seq_len)
            loss_mask = loss_mask & pad_mask

        critics_losses = self.critics(
            states,
            cont_actions = cont_actions,
            discrete_actions = discrete_actions,
            target_values = target_q_values,
            loss_mask = loss_mask
        )

        # spr world model losses - self-predictive next-state prediction on real transitions
        # (the world model is trained on real data, only used for search at decision time)

        if self.critics_have_spr and exists(cont_actions) and states.ndim == 2:
            critic_spr_loss = stack([critic.spr_loss(states, cont_actions, next_states, next_cont_actions) for critic in self.critics.critics]).sum()
            critics_losses = critics_losses + critic_spr_loss * self.critic_spr_loss_weight

        # update the critics

        critics_losses.backward()

        if exists(self.critic_max_grad_norm):
            nn.utils.clip_grad_norm_(self.critics.parameters(), self.critic_max_grad_norm)

        self.critics_optimizer.step()
        self.critics_optimizer.zero_grad()

        if divisible_by(int(self.step.item()), self.actor_update_freq):

            # update the actor

            actor_output = self.actor(states, sample = True, cont_reparametrize = True)

            cont_entropy = actor_output.continuous_entropy
            discrete_logits = actor_output.discrete_action_logits

            cont_q_values, *discrete_q_values = self.critics(
                states,
                cont_actions = actor_output.continuous,
                discrete_actions = actor_output.discrete,
                truncate_quantiles_across_critics = True
            )

            actor_action_losses = []

            if exists(cont_entropy):
                cont_entropy_summed = cont_entropy.sum(dim = -1, keepdim = True)
                cont_action_loss = (-entropy_temp * cont_entropy_summed - cont_q_values).mean()

                actor_action_losses.append(cont_action_loss)

            for discrete_logit, one_discrete_q_value in zip(discrete_logits, discrete_q_values):
                discrete_prob = discrete_logit.softmax(dim = -1)
                discrete_log_prob = log(discrete_prob)

                one_discrete_actor_loss = (discrete_prob * (entropy_temp * discrete_log_prob - one_discrete_q_value)).sum(dim = -1).mean()

                actor_action_losses.append(one_discrete_actor_loss)

            total_actor_loss = sum(actor_action_losses)

            if self.actor.state_recon:
                actor_state_recon_loss = self.state_recon_loss_fn(actor_output.state_recon, states)
                total_actor_loss = total_actor_loss + actor_state_recon_loss * self.actor_state_recon_loss_weight

            if self.actor.spr and states.ndim == 2:
                actor_spr_loss = self.actor.spr_loss(states, actor_output.continuous, next_states, reward = reduce(rewards, 'b 1 n -> b', 'sum'))
                total_actor_loss = total_actor_loss + actor_spr_loss * self.actor_spr_loss_weight

            total_actor_loss.backward()
            self.actor_optimizer.step()
            self.actor_optimizer.zero_grad()

            # update the learned entropy temperature

            temperature_loss = self.learned_entropy_temperature(
                cont_entropy = cont_entropy,
                discrete_logits = discrete_logits
            )

            temperature_loss.backward()
            self.temperature_optimizer.step()
            self.temperature_optimizer.zero_grad()

        # increment step, update ema

        self.step.add_(1)

        self.critics_target.update()

        # maybe fire

        step = int(self.step.item())

        if exists(self.fire_every) and step > 0 and divisible_by(step, self.fire_every):
            self.apply_fire_(num_iters = self.fire_num_iters)

    @torch.no_grad()
    def select_action(
        self,
        state: Float['b ...'],
        sample = True
    ):
        """
        select an action at the given state - uses the world model tree search
        (QWM - Dong et al.) if present, otherwise direct policy sampling
        """
        if exists(self.world_model):
            return self.world_model.select_action(state, sample = sample)

        return self.actor(state, sample = True)
