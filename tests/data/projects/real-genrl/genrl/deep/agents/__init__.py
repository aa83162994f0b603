from genrl.deep.agents.a2c import A2C  # noqa
from genrl.deep.agents.base import (  # noqa
    BaseAgent,
    OffPolicyAgent,
    OffPolicyAgentAC,
    OnPolicyAgent,
)
from genrl.deep.agents.ddpg import DDPG  # noqa
from genrl.deep.agents.dqn import (  # noqa
    DQN,
    CategoricalDQN,
    DoubleDQN,
    DuelingDQN,
    NoisyDQN,
    PrioritizedReplayDQN,
)
from genrl.deep.agents.ppo1 import PPO1  # noqa
from genrl.deep.agents.sac import SAC  # noqa
from genrl.deep.agents.td3 import TD3  # noqa
from genrl.deep.agents.vpg import VPG  # noqa
