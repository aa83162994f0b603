from .policy_gradient import PolicyGradient
from .reinforce import REINFORCE
from .gpomdp import GPOMDP
from .enac import eNAC

__all__ = ['REINFORCE', 'GPOMDP', 'eNAC']