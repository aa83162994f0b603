from genrl.deep.agents.a2c.a2c import A2C  # noqa
