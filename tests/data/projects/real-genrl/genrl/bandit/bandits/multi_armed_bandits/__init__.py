from genrl.bandit.bandits.multi_armed_bandits.base import MultiArmedBandit  # noqa
from genrl.bandit.bandits.multi_armed_bandits.bernoulli_mab import BernoulliMAB  # noqa
from genrl.bandit.bandits.multi_armed_bandits.gaussian_mab import GaussianMAB  # noqa
