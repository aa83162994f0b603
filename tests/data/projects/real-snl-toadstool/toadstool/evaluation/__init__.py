"""Generally useful evaluation functions for DL results."""

from toadstool.evaluation.utils import plot_confusion, print_classification

__all__ = ['plot_confusion', 'print_classification']
