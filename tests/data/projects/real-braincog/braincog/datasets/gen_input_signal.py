import numpy as np
import random
import copy

dt = 1.0                  # ms
lambda_max = 0.25 * dt  # maximum spike rate (spikes per time step)


