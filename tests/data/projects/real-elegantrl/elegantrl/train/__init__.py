from elegantrl.train.run import train_agent, train_agent_multiprocessing
from elegantrl.train.config import Config, build_env, get_gym_env_args
from elegantrl.train.evaluator import Evaluator
from elegantrl.train.replay_buffer import ReplayBuffer
