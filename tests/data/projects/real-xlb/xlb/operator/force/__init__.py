from xlb.operator.force.momentum_transfer import MomentumTransfer
from xlb.operator.force.exact_difference_force import ExactDifference
