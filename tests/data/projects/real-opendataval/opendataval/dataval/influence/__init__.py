"""
NOTE `InfluenceSubsample` was previously named `InfluenceFunctionEval` and may be
referred to as such in the demos. This docstring is here to clarify the confusion
between the naming of `InfluenceFunction` and `InfluenceSubsample`.
"""
from opendataval.dataval.influence.influence import InfluenceFunction
from opendataval.dataval.influence.infsub import InfluenceSubsample
