from genrl.deep.agents.ddpg.ddpg import DDPG  # noqa
