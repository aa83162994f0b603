#!/usr/bin/env python3

from .policy import Policy
from .action_value import ActionValue, Twin
from .state_value import StateValue
from .init import robotics_init_

from .robotics_layers import RoboticsLinear
from .epsilon_greedy import EpsilonGreedy
from .mlp import MLP
from .misc import Lambda
