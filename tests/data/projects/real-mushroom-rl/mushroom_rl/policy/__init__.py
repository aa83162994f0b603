from .policy import Policy, ParametricPolicy
from .noise_policy import OrnsteinUhlenbeckPolicy, ClippedGaussianPolicy
from .td_policy import TDPolicy, Boltzmann, EpsGreedy, Mellowmax
from .gaussian_policy import GaussianPolicy, DiagonalGaussianPolicy, \
     StateStdGaussianPolicy, StateLogStdGaussianPolicy
from .deterministic_policy import DeterministicPolicy
from .torch_policy import TorchPolicy, GaussianTorchPolicy, BoltzmannTorchPolicy
from .promps import ProMP
from .dmp import DMP


__all_td__ = ['TDPolicy', 'Boltzmann', 'EpsGreedy', 'Mellowmax']
__all_parametric__ = ['ParametricPolicy', 'GaussianPolicy',
                      'DiagonalGaussianPolicy', 'StateStdGaussianPolicy',
                      'StateLogStdGaussianPolicy', 'ProMP']
__all_torch__ = ['TorchPolicy', 'GaussianTorchPolicy', 'BoltzmannTorchPolicy']
__all_noise__ = ['OrnsteinUhlenbeckPolicy', 'ClippedGaussianPolicy']
__all_mp__ = ['ProMP', 'DMP']

__all__ = ['Policy',  'DeterministicPolicy', ] \
          + __all_td__ + __all_parametric__ + __all_torch__ + __all_noise__ + __all_mp__
