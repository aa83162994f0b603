from euclid.core.tensor import Tensor
import euclid.core.math as math

from .algorithm import RLAlgorithm


class PPO(RLAlgorithm):

    name = "PPO"

    def __init__(
        self,
        critic=None,
        critic_optimizer=None,
        clip=0.2,
        gamma=0.99,
        normalize_advantages=True,
    ):

        if clip <= 0:
            raise ValueError("clip must be positive")

        if not 0 <= gamma <= 1:
            raise ValueError("gamma must be in [0, 1]")

        self.critic = critic
        self.critic_optimizer = critic_optimizer

        self.clip = float(clip)
        self.gamma = float(gamma)
        self.normalize_advantages = normalize_advantages

    def update(self, network, optimizer, episode):

        if not episode.steps:
            return Tensor(0.0)

        if self.critic is None:
            episode.set_advantages(
                self.gamma,
                self.normalize_advantages
            )
        else:
            episode.set_returns(
                self.gamma
            )

        actor_loss = self.compute_loss(
            network,
            episode
        )

        optimizer.zero_grad()
        actor_loss.backward()
        optimizer.step()

        if (
            self.critic is not None
            and self.critic_optimizer is not None
        ):
            self.train_critic(
                episode
            )

        return actor_loss

    def train_critic(self, episode):

        if (
            self.critic is None
            or self.critic_optimizer is None
            or not episode.steps
        ):
            return

        loss = Tensor(0.0)

        for step in episode.steps:
            value = self.critic.forward(
                step.state
            )

            target = Tensor(
                step.reward_to_go
            )

            error = math.subtract(
                value,
                target
            )

            squared_error = math.multiply(
                error,
                error
            )

            loss = math.add(
                loss,
                squared_error
            )

        loss = math.divide(
            loss,
            Tensor(float(len(episode.steps)))
        )

        self.critic_optimizer.zero_grad()
        loss.backward()
        self.critic_optimizer.step()

        return loss

    def compute_loss(self, network, episode):

        if not episode.steps:
            return Tensor(0.0)

        actor_loss = Tensor(0.0)

        one = Tensor(1.0)
        clip = Tensor(self.clip)

        lower = math.subtract(
            one,
            clip
        )

        upper = math.add(
            one,
            clip
        )

        for step in episode.steps:

            new_log_probability = network.log_probability(
                step.state,
                step.action
            )

            old_log_probability = step.old_log_probability

            if not isinstance(
                old_log_probability,
                Tensor
            ):
                old_log_probability = Tensor(
                    old_log_probability
                )

            log_ratio = math.subtract(
                new_log_probability,
                old_log_probability
            )

            ratio = math.exp(
                log_ratio
            )

            if self.critic is None:

                advantage = step.advantage

                if not isinstance(
                    advantage,
                    Tensor
                ):
                    advantage = Tensor(
                        advantage
                    )

            else:
                value = self.critic.forward(
                    step.state
                )

                target = Tensor(
                    step.reward_to_go
                )

                advantage = math.subtract(
                    target,
                    value
                )

            clipped_ratio = math.clip(
                ratio,
                lower,
                upper
            )

            surrogate1 = math.multiply(
                ratio,
                advantage
            )

            surrogate2 = math.multiply(
                clipped_ratio,
                advantage
            )

            minimum = math.minimum(
                surrogate1,
                surrogate2
            )

            loss = -minimum

            actor_loss = math.add(
                actor_loss,
                loss
            )

        actor_loss = math.divide(
            actor_loss,
            Tensor(float(len(episode.steps)))
        )

        return actor_loss