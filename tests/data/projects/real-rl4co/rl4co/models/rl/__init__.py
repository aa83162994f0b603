from rl4co.models.rl.a2c.a2c import A2C
from rl4co.models.rl.common.base import RL4COLitModule
from rl4co.models.rl.ppo.n_step_ppo import n_step_PPO
from rl4co.models.rl.ppo.ppo import PPO
from rl4co.models.rl.ppo.stepwise_ppo import StepwisePPO
from rl4co.models.rl.reinforce.reinforce import REINFORCE
