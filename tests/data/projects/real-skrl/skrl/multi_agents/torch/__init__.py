from skrl.multi_agents.torch.base import ExperimentCfg, MultiAgent, MultiAgentCfg
