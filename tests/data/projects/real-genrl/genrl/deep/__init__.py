from genrl.deep.agents import A2C, DDPG, DQN, PPO1, SAC, TD3, VPG  # noqa
