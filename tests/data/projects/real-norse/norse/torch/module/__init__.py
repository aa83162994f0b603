"""
Modules for spiking neural network, adhering to the ``torch.nn.Module`` interface.
"""
