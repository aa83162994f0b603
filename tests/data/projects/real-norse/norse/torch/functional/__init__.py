"""
Stateless spiking neural network components.
"""
