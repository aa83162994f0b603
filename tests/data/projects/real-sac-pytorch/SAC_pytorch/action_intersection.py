from __future__ import annotations

import math
from collections import deque

import torch
import torch.nn.functional as F
from torch import Tensor
from torch import cat, stack, tensor
from torch.distributions import Normal

from einops import repeat
from einops import rearrange

# helpers

def exists(v):
    return v is not None

def get_scale(source_range, target_range):
    if isinstance(target_range, (int, float)):
        return float(target_range)
    source_min, source_max = source_range
    target_min, target_max = target_range
    return (target_max - target_min) / (source_max - source_min)

def rescale_from_to(t, source_range, target_range):
    if isinstance(target_range, (int, float)):
        return t * target_range
    source_min, source_max = source_range
    target_min, target_max = target_range
    scale = get_scale(source_range, target_range)
    if source_min == -source_max and target_min == -target_max:
        return t * scale
    return (t - source_min) * scale + target_min

# main container
# continuous adaptation of the action intersection scheme from
# 'Revisiting Overestimation Bias Problem of Q-learning: Settling Large Discrete
# Action Space via Action Intersection' (Li, Tan, Xie, Shi, Shang)

class TargetAggregator:
    """
    Container for the critic target aggregation scheme. Two modes:

    - 'min' (default): the clipped double-Q target of TD3 / SAC. A single
      action is sampled from the actor policy, and the target soft value is the
      minimum of the two (EMA) critic predictions minus the entropy regularizer.

    - 'intersection': the action intersection scheme of Li et al. (AIDQ /
      AIDDQN), adapted to continuous actions. `num_samples` actions are
      proposed by sampling the actor policy; each critic receives its own
      asymmetric target, mirroring algorithm 1 of the paper: the top-`top_k`
      proposals ranked by the critic's own *online* values form its
      intersection set (selection, eq. 23), and the target is the max over this
      set of the *other* critic's ema entropy corrected value (evaluation,
      eq. 24). the asymmetric targets keep the critics decorrelated, which the
      paper's theorem relies on.

      The two hyperparameters dial the estimation bias:
        top_k = num_samples -> max over all proposals, approaches the
            overestimation of Q-learning
        top_k = 1           -> evaluates a single selected action with the
            other critic, recovers the underestimation of Double Q-learning
    """

    def __init__(
        self,
        mode = 'min',
        num_samples = 64,
        top_k = 4,
        actor_uses_selection_critic = False
    ):
        assert mode in {'min', 'intersection'}
        assert 1 <= top_k <= num_samples

        self.mode = mode
        self.num_samples = num_samples
        self.top_k = top_k
        self.actor_uses_selection_critic = actor_uses_selection_critic

        # diagnostics - per batch gap between the aggregation operator and the
        # per candidate mean, a live proxy for the estimation bias (paper fig. 4)

        self.gap_history = deque(maxlen = 10000)

    def target_soft_state_value(
        self,
        next_states: Tensor,
        actor,
        critics,
        critics_ema,
        entropy_temp,
        next_actor_output = None
    ):
        assert actor.num_cont_actions > 0, 'target aggregator requires continuous actions'
        assert len(actor.num_discrete_actions) == 0 or self.mode == 'min', 'action intersection currently supports continuous actions only'

        if self.mode == 'min':
            return self._min_soft_state_value(next_states, actor, critics_ema, entropy_temp, next_actor_output)

        return self._intersection_soft_state_values(next_states, actor, critics, critics_ema, entropy_temp)

    def actor_values(
        self,
        states: Tensor,
        cont_actions: Tensor,
        critics
    ):
        """
        critic aggregation seen by the actor. the paper's policy is greedy w.r.t.
        the shared Q-table, whose closest SAC analog is the clipped min over the
        (symmetric, same-target) critics; optionally the selection critic only
        """
        if self.mode == 'min' or not self.actor_uses_selection_critic:
            return critics(states, cont_actions = cont_actions)

        selector_values, = critics.critics[0](states, cont_actions = cont_actions)
        return [selector_values]

    # private methods

    def _min_soft_state_value(
        self,
        next_states: Tensor,
        actor,
        critics_ema,
        entropy_temp,
        next_actor_output = None
    ):
        with torch.no_grad():
            if not exists(next_actor_output):
                next_actor_output = actor(next_states, sample = True)

            next_cont_actions = next_actor_output.continuous
            next_log_prob = next_actor_output.continuous_log_prob.sum(dim = -1, keepdim = True)

            next_cont_q_value, = critics_ema(next_states, cont_actions = next_cont_actions)

            soft_state_value = next_cont_q_value - entropy_temp * next_log_prob

            # diagnostic - pessimism of the min aggregation over the two critics

            q1, = critics_ema.ema_model.critics[0](next_states, cont_actions = next_cont_actions)
            q2, = critics_ema.ema_model.critics[1](next_states, cont_actions = next_cont_actions)

            gap = (torch.minimum(q1, q2) - (q1 + q2) / 2).mean()
            self.gap_history.append(gap.detach())

            return soft_state_value

    def _propose_actions(
        self,
        actor,
        next_states: Tensor
    ):
        """
        propose actions for the intersection set. the paper's top-k is taken
        over the full action space, which always contains the best action;
        random policy samples alone would make the intersection set consist of
        estimation-noise outliers instead. the proposals are therefore anchored
        at the policy mode (its exact log prob computed via the squashed normal
        distribution), with the remaining samples drawn from the policy
        """
        num_samples = self.num_samples

        assert actor.cont_dist.__class__.__name__ == 'SquashedNormal', 'mode anchored proposals require the squashed normal distribution'

        # anchor - the deterministic policy action tanh(mu)

        anchor_output = actor(next_states, sample = False)
        mu, sigma = anchor_output.continuous.mu, anchor_output.continuous.sigma

        anchor_actions = mu.tanh()
        anchor_log_prob = Normal(mu, sigma).log_prob(mu)
        anchor_log_prob = anchor_log_prob - 2 * (torch.log(tensor(2.)) - mu - F.softplus(-2 * mu))

        if exists(actor.target_range) and actor.target_range != (-1., 1.):
            anchor_actions = rescale_from_to(anchor_actions, (-1., 1.), actor.target_range)
            anchor_log_prob = anchor_log_prob - math.log(get_scale((-1., 1.), actor.target_range))

        if num_samples == 1:
            return anchor_actions, anchor_log_prob

        # remaining proposals from the policy

        next_states_rep = repeat(next_states, 'b ... -> (m b) ...', m = num_samples - 1)

        actor_output = actor(next_states_rep, sample = True)

        proposed_actions = cat((anchor_actions, actor_output.continuous), dim = 0)
        proposed_log_prob = cat((anchor_log_prob, actor_output.continuous_log_prob), dim = 0)

        return proposed_actions, proposed_log_prob

    def _intersection_soft_state_values(
        self,
        next_states: Tensor,
        actor,
        critics,
        critics_ema,
        entropy_temp
    ):
        """
        per-critic asymmetric targets, mirroring algorithm 1 of the paper:
        each critic selects its intersection set with its own online values and
        is evaluated by the other critic's ema values. this keeps the two
        critics decorrelated - the decoupling that the paper's theorem relies
        on (independent estimators), and which collapses to plain overestimation
        when both critics are trained on a shared target
        """
        num_samples = self.num_samples
        top_k = self.top_k

        with torch.no_grad():
            b = next_states.shape[0]
            num_cont_actions = actor.num_cont_actions

            proposed_actions, proposed_log_prob = self._propose_actions(actor, next_states)

            proposed_log_prob = proposed_log_prob.sum(dim = -1, keepdim = True)

            next_states_rep = repeat(next_states, 'b ... -> (m b) ...', m = num_samples)

            # both online critics score the proposals - selection

            q1, = critics.critics[0](next_states_rep, cont_actions = proposed_actions)
            q2, = critics.critics[1](next_states_rep, cont_actions = proposed_actions)

            # both ema critics evaluate the proposals - evaluation

            q1_target, = critics_ema.ema_model.critics[0](next_states_rep, cont_actions = proposed_actions)
            q2_target, = critics_ema.ema_model.critics[1](next_states_rep, cont_actions = proposed_actions)

            scores1 = rearrange(q1.sum(dim = -1, keepdim = True), '(m b) 1 -> m b', m = num_samples)
            scores2 = rearrange(q2.sum(dim = -1, keepdim = True), '(m b) 1 -> m b', m = num_samples)

            # entropy corrected soft values, from the *other* critic's ema

            soft1 = rearrange(q2_target - entropy_temp * proposed_log_prob, '(m b) n -> m b n', m = num_samples)
            soft2 = rearrange(q1_target - entropy_temp * proposed_log_prob, '(m b) n -> m b n', m = num_samples)

            def max_over_topk(scores, soft):
                _, top_indices = scores.topk(top_k, dim = 0)
                top_indices = top_indices.unsqueeze(-1).expand(-1, -1, num_cont_actions)
                return soft.gather(dim = 0, index = top_indices).max(dim = 0).values

            v1 = max_over_topk(scores1, soft1)
            v2 = max_over_topk(scores2, soft2)

            # diagnostic - inflation of the max over the per candidate mean

            gap = ((v1 - soft1.mean(dim = 0)).mean() + (v2 - soft2.mean(dim = 0)).mean()) / 2
            self.gap_history.append(gap.detach())

            return stack((v1, v2))
