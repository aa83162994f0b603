# -*- coding: utf-8 -*-

from .dist import StructuredDistribution
from .linearchain import LinearChainCRF
from .tree import ConstituencyCRF, Dependency2oCRF, DependencyCRF, MatrixTree
from .vi import (ConstituencyLBP, ConstituencyMFVI, DependencyLBP,
                 DependencyMFVI, SemanticDependencyLBP, SemanticDependencyMFVI)

__all__ = ['StructuredDistribution',
           'MatrixTree',
           'DependencyCRF',
           'Dependency2oCRF',
           'ConstituencyCRF',
           'LinearChainCRF',
           'DependencyMFVI',
           'DependencyLBP',
           'ConstituencyMFVI',
           'ConstituencyLBP',
           'SemanticDependencyMFVI',
           'SemanticDependencyLBP', ]
