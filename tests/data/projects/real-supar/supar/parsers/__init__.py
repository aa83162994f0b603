# -*- coding: utf-8 -*-

from .const import CRFConstituencyParser, VIConstituencyParser
from .dep import (BiaffineDependencyParser, CRF2oDependencyParser,
                  CRFDependencyParser, VIDependencyParser)
from .parser import Parser
from .sdp import BiaffineSemanticDependencyParser, VISemanticDependencyParser

__all__ = ['BiaffineDependencyParser',
           'CRFDependencyParser',
           'CRF2oDependencyParser',
           'VIDependencyParser',
           'CRFConstituencyParser',
           'VIConstituencyParser',
           'BiaffineSemanticDependencyParser',
           'VISemanticDependencyParser',
           'Parser']
