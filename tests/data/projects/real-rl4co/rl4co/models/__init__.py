from rl4co.models.common.constructive.autoregressive import (
    AutoregressiveDecoder,
    AutoregressiveEncoder,
    AutoregressivePolicy,
)
from rl4co.models.common.constructive.base import (
    ConstructiveDecoder,
    ConstructiveEncoder,
    ConstructivePolicy,
)
from rl4co.models.common.constructive.nonautoregressive import (
    NonAutoregressiveDecoder,
    NonAutoregressiveEncoder,
    NonAutoregressivePolicy,
)
from rl4co.models.common.transductive import TransductiveModel
from rl4co.models.rl import StepwisePPO
from rl4co.models.rl.a2c.a2c import A2C
from rl4co.models.rl.common.base import RL4COLitModule
from rl4co.models.rl.ppo.ppo import PPO
from rl4co.models.rl.reinforce.baselines import REINFORCEBaseline, get_reinforce_baseline
from rl4co.models.rl.reinforce.reinforce import REINFORCE
from rl4co.models.zoo.active_search import ActiveSearch
from rl4co.models.zoo.am import AttentionModel, AttentionModelPolicy
from rl4co.models.zoo.amppo import AMPPO
from rl4co.models.zoo.dact import DACT, DACTPolicy
from rl4co.models.zoo.deepaco import DeepACO, DeepACOPolicy
from rl4co.models.zoo.eas import EAS, EASEmb, EASLay
from rl4co.models.zoo.gfacs import GFACS, GFACSPolicy
from rl4co.models.zoo.glop import GLOP, GLOPPolicy
from rl4co.models.zoo.ham import HeterogeneousAttentionModel, HeterogeneousAttentionModelPolicy
from rl4co.models.zoo.l2d import L2DAttnPolicy, L2DModel, L2DPolicy, L2DPolicy4PPO, L2DPPOModel
from rl4co.models.zoo.matnet import MatNet, MatNetPolicy
from rl4co.models.zoo.mdam import MDAM, MDAMPolicy
from rl4co.models.zoo.mvmoe import MVMoE_AM, MVMoE_POMO
from rl4co.models.zoo.n2s import N2S, N2SPolicy
from rl4co.models.zoo.nargnn import NARGNNPolicy
from rl4co.models.zoo.neuopt import NeuOpt, NeuOptPolicy
from rl4co.models.zoo.polynet import PolyNet
from rl4co.models.zoo.pomo import POMO
from rl4co.models.zoo.ptrnet import PointerNetwork, PointerNetworkPolicy
from rl4co.models.zoo.symnco import SymNCO, SymNCOPolicy
