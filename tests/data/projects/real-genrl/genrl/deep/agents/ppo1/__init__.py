from genrl.deep.agents.ppo1.ppo1 import PPO1  # noqa
