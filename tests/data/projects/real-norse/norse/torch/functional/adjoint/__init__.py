"""
Adjoint-based neuron activation functions and optimization code.
"""
