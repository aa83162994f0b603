from skrl.agents.jax.ppo.ppo import PPO
from skrl.agents.jax.ppo.ppo_cfg import PPO_CFG
