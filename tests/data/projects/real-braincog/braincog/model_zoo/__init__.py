__all__ = ['convnet', 'resnet', 'base_module', 'glsnn', 'qsnn', 'resnet19_snn']

from . import (
    convnet,
    resnet,
    base_module,
    glsnn,
    qsnn,
    resnet19_snn
)
