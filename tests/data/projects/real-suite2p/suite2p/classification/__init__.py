"""
Copyright © 2023 Howard Hughes Medical Institute, Authored by Carsen Stringer and Marius Pachitariu.
"""
from .classifier import Classifier
from .classify import classify, builtin_classfile, user_classfile