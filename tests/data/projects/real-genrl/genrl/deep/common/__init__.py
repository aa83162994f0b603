from genrl.deep.common.actor_critic import MlpActorCritic  # noqa
from genrl.deep.common.base import BaseActorCritic  # noqa
from genrl.deep.common.buffers import PrioritizedBuffer  # noqa
from genrl.deep.common.buffers import PushReplayBuffer  # noqa
from genrl.deep.common.buffers import ReplayBuffer  # noqa
from genrl.deep.common.logger import CSVLogger  # noqa
from genrl.deep.common.logger import HumanOutputFormat  # noqa
from genrl.deep.common.logger import Logger  # noqa
from genrl.deep.common.logger import TensorboardLogger  # noqa
from genrl.deep.common.noise import ActionNoise  # noqa
from genrl.deep.common.noise import NormalActionNoise  # noqa
from genrl.deep.common.noise import OrnsteinUhlenbeckActionNoise  # noqa
from genrl.deep.common.policies import BasePolicy, CNNPolicy, MlpPolicy  # noqa
from genrl.deep.common.rollout_storage import RolloutBuffer  # noqa
from genrl.deep.common.trainer import OffPolicyTrainer, OnPolicyTrainer, Trainer
from genrl.deep.common.values import CnnValue, MlpValue  # noqa
