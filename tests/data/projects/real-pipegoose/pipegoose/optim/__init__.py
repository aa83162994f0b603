from pipegoose.optim.zero.optim import DistributedOptimizer
