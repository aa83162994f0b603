from genrl.deep.agents.td3.td3 import TD3  # noqa
