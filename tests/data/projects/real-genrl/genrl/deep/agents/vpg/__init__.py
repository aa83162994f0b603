from genrl.deep.agents.vpg.vpg import VPG  # noqa
