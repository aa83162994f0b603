# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from . import neuron
from . import axon
from . import dendrite
from . import spike
from . import synapse
from . import block
from . import classifier
from . import loss
from . import io
from . import auto
from . import utils
from . import object_detection as obd

__all__ = [
    'neuron',
    'axon',
    'dendrite',
    'spike',
    'synapse',
    'block',
    'classifier',
    'loss',
    'io',
    'auto',
    'utils',
    'obd'
]
