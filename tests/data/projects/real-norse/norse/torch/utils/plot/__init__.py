"""
A module for plotting event-based data and module information
such as weights and neuron parameters.
"""
