from pfrl.q_functions.dueling_dqn import *  # NOQA
from pfrl.q_functions.state_action_q_functions import *  # NOQA
from pfrl.q_functions.state_q_functions import *  # NOQA
