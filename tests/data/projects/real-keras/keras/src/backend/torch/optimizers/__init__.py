from keras.src.backend.torch.optimizers.torch_optimizer import TorchOptimizer
