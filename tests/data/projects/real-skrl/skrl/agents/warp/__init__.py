from skrl.agents.warp.base import Agent, AgentCfg, ExperimentCfg
