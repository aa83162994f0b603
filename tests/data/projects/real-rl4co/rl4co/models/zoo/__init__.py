from rl4co.models.common.constructive.autoregressive import AutoregressivePolicy
from rl4co.models.common.constructive.nonautoregressive import NonAutoregressivePolicy
from rl4co.models.common.transductive import TransductiveModel
from rl4co.models.zoo.active_search import ActiveSearch
from rl4co.models.zoo.am import AttentionModel, AttentionModelPolicy
from rl4co.models.zoo.amppo import AMPPO
from rl4co.models.zoo.dact import DACT, DACTPolicy
from rl4co.models.zoo.deepaco import DeepACO, DeepACOPolicy
from rl4co.models.zoo.eas import EAS, EASEmb, EASLay
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
