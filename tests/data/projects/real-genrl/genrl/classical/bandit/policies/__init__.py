from genrl.classical.bandit.policies.bayesian import BayesianUCBPolicy  # noqa
from genrl.classical.bandit.policies.epsgreedy import EpsGreedyPolicy  # noqa
from genrl.classical.bandit.policies.gradient import GradientPolicy  # noqa
from genrl.classical.bandit.policies.thompson import ThompsonSamplingPolicy  # noqa
from genrl.classical.bandit.policies.ucb import UCBPolicy  # noqa

from genrl.classical.bandit.policies.base import BanditPolicy  # noqa; noqa; noqa
