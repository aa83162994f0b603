# -*- coding: utf-8 -*-

from .const import CRFConstituencyModel, VIConstituencyModel
from .dep import (BiaffineDependencyModel, CRF2oDependencyModel,
                  CRFDependencyModel, VIDependencyModel)
from .model import Model
from .sdp import BiaffineSemanticDependencyModel, VISemanticDependencyModel

__all__ = ['Model',
           'BiaffineDependencyModel',
           'CRFDependencyModel',
           'CRF2oDependencyModel',
           'VIDependencyModel',
           'CRFConstituencyModel',
           'VIConstituencyModel',
           'BiaffineSemanticDependencyModel',
           'VISemanticDependencyModel']
