from skrl.agents.torch.base import Agent, AgentCfg, ExperimentCfg
