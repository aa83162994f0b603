from genrl.environments.vec_env.monitor import VecMonitor  # noqa
from genrl.environments.vec_env.normalize import VecNormalize  # noqa
from genrl.environments.vec_env.utils import RunningMeanStd  # noqa
from genrl.environments.vec_env.vector_envs import SerialVecEnv  # noqa
from genrl.environments.vec_env.vector_envs import SubProcessVecEnv, VecEnv
