from skrl.agents.warp.ppo.ppo import PPO
from skrl.agents.warp.ppo.ppo_cfg import PPO_CFG
