from genrl.deep.agents.sac.sac import SAC  # noqa
