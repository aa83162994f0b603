from genrl.core.actor_critic import MlpActorCritic, get_actor_critic_from_name  # noqa
from genrl.core.bandit import Bandit, BanditAgent
from genrl.core.base import BaseActorCritic  # noqa
from genrl.core.buffers import PrioritizedBuffer  # noqa
from genrl.core.buffers import PrioritizedReplayBufferSamples  # noqa
from genrl.core.buffers import PushReplayBuffer  # noqa
from genrl.core.buffers import ReplayBuffer  # noqa
from genrl.core.buffers import ReplayBufferSamples  # noqa
from genrl.core.noise import ActionNoise  # noqa
from genrl.core.noise import NoisyLinear  # noqa
from genrl.core.noise import NormalActionNoise  # noqa
from genrl.core.noise import OrnsteinUhlenbeckActionNoise  # noqa
from genrl.core.policies import (  # noqa
    BasePolicy,
    CNNPolicy,
    MlpPolicy,
    get_policy_from_name,
)
from genrl.core.rollout_storage import RolloutBuffer  # noqa
from genrl.core.values import (  # noqa
    BaseValue,
    CnnCategoricalValue,
    CnnDuelingValue,
    CnnNoisyValue,
    CnnValue,
    MlpCategoricalValue,
    MlpDuelingValue,
    MlpNoisyValue,
    MlpValue,
    get_value_from_name,
)
