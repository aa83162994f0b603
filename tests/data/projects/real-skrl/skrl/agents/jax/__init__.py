from skrl.agents.jax.base import Agent, AgentCfg, ExperimentCfg
