#!/usr/bin/env python
# Created by "Thieu" at 15:23, 10/08/2023 ----------%
#       Email: nguyenthieu2102@gmail.com            %                                                    
#       Github: https://github.com/thieu1995        %                         
# --------------------------------------------------%

__version__ = "1.1.0"

from xanfis.helpers.membership_family import *
from xanfis.helpers.preprocessor import Data, DataTransformer
from xanfis.models.classic_anfis import AnfisClassifier, AnfisRegressor
from xanfis.models.gd_anfis import GdAnfisClassifier, GdAnfisRegressor
from xanfis.models.bio_anfis import BioAnfisClassifier, BioAnfisRegressor
