from genrl.environments.action_wrappers import ClipAction, RescaleAction  # noqa
from genrl.environments.atari_preprocessing import AtariPreprocessing  # noqa
from genrl.environments.atari_wrappers import FireReset, NoopReset  # noqa
from genrl.environments.base_wrapper import BaseWrapper  # noqa
from genrl.environments.frame_stack import FrameStack  # noqa
from genrl.environments.gym_wrapper import GymWrapper  # noqa
from genrl.environments.suite import AtariEnv, GymEnv, VectorEnv  # noqa
from genrl.environments.time_limit import AtariTimeLimit, TimeLimit  # noqa
from genrl.environments.vec_env import VecEnv, VecNormalize  # noqa
