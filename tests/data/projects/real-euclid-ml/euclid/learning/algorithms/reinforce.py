import euclid.core.math as math
from euclid.core.tensor import Tensor

from .algorithm import RLAlgorithm


class REINFORCE(RLAlgorithm):

    name = "REINFORCE"

    def __init__(
        self,
        gamma=0.99,
        normalize_returns=False,
    ):

        if not 0 <= gamma <= 1:
            raise ValueError("gamma must be in [0, 1]")

        self.gamma = float(gamma)
        self.normalize_returns = normalize_returns

    # ============================================================
    # UPDATE
    # ============================================================

    def update(self, network, optimizer, episode):

        if not episode.steps:
            return Tensor(0.0)

        loss = self.compute_loss(
            network,
            episode
        )

        optimizer.zero_grad()

        loss.backward()

        optimizer.step()

        return loss

    # ============================================================
    # LOSS
    # ============================================================

    def compute_loss(self, network, episode):

        if not episode.steps:
            return Tensor(0.0)

        # --------------------------------------------------------
        # Calculate discounted reward-to-go
        # --------------------------------------------------------

        returns = episode.discounted_returns(
            self.gamma
        )

        # --------------------------------------------------------
        # Normalize returns if requested
        # --------------------------------------------------------

        if (
            self.normalize_returns
            and len(returns) > 1
        ):

            mean = returns.mean()
            std = returns.std()

            returns = (
                returns - mean
            ) / (
                std + 1e-8
            )

        # --------------------------------------------------------
        # Policy gradient loss
        #
        # L = -log(pi(a|s)) * G_t
        # --------------------------------------------------------

        loss = Tensor(0.0)

        for step, reward_to_go in zip(
            episode.steps,
            returns
        ):

            log_probability = network.log_probability(
                step.state,
                step.action
            )

            reward_to_go = Tensor(
                float(reward_to_go)
            )

            contribution = math.multiply(
                log_probability,
                reward_to_go
            )

            loss = math.add(
                loss,
                -contribution
            )

        # --------------------------------------------------------
        # Mean loss
        # --------------------------------------------------------

        return math.divide(
            loss,
            Tensor(float(len(episode.steps)))
        )