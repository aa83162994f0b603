from mjlab.envs.manager_based_rl_env import ManagerBasedRlEnv as ManagerBasedRlEnv
from mjlab.envs.manager_based_rl_env import ManagerBasedRlEnvCfg as ManagerBasedRlEnvCfg
from mjlab.envs.types import VecEnvObs as VecEnvObs
from mjlab.envs.types import VecEnvStepReturn as VecEnvStepReturn
