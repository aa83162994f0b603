from mjlab.rl.config import RslRlBaseRunnerCfg as RslRlBaseRunnerCfg
from mjlab.rl.config import RslRlModelCfg as RslRlModelCfg
from mjlab.rl.config import RslRlOnPolicyRunnerCfg as RslRlOnPolicyRunnerCfg
from mjlab.rl.config import RslRlPpoAlgorithmCfg as RslRlPpoAlgorithmCfg
from mjlab.rl.runner import MjlabOnPolicyRunner as MjlabOnPolicyRunner
from mjlab.rl.vecenv_wrapper import RslRlVecEnvWrapper as RslRlVecEnvWrapper
