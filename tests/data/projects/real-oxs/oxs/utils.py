import numpy as np

def manual_seed(seed):
    np.random.seed(seed)
