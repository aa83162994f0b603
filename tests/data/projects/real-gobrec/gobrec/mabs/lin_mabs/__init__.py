
from gobrec.mabs.lin_mabs.lin import Lin
from gobrec.mabs.lin_mabs.lin_ucb import LinUCB
from gobrec.mabs.lin_mabs.lin_greedy import LinGreedy
from gobrec.mabs.lin_mabs.lin_ts import LinTS