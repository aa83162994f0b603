from pfrl.policies.deterministic_policy import *  # NOQA
from pfrl.policies.gaussian_policy import *  # NOQA
from pfrl.policies.softmax_policy import *  # NOQA
