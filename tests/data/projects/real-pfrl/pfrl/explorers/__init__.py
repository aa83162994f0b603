from pfrl.explorers.additive_gaussian import AdditiveGaussian  # NOQA
from pfrl.explorers.additive_ou import AdditiveOU  # NOQA
from pfrl.explorers.boltzmann import Boltzmann  # NOQA
from pfrl.explorers.epsilon_greedy import ConstantEpsilonGreedy  # NOQA
from pfrl.explorers.epsilon_greedy import ExponentialDecayEpsilonGreedy  # NOQA
from pfrl.explorers.epsilon_greedy import LinearDecayEpsilonGreedy  # NOQA
from pfrl.explorers.greedy import Greedy  # NOQA
