from .simulated_annealing import simulated_annealing, random_sampler
from .greedy import greedy