"""
Datasets with temporal data, ideal for analysis with spiking neural networks.
"""
