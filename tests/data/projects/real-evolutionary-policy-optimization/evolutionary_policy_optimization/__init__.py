from evolutionary_policy_optimization.env_wrappers import GymnasiumEnvWrapper, rescale_from_to
from evolutionary_policy_optimization.epo import EPO, MLP, Actor, Agent, Beta, CategoricalActionDistr, Critic, DiversityDiscr, LatentGenePool, create_agent
from evolutionary_policy_optimization.mock_env import Env, VectorEnv
