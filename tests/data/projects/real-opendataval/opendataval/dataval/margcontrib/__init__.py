from opendataval.dataval.margcontrib.banzhaf import DataBanzhaf, DataBanzhafMargContrib
from opendataval.dataval.margcontrib.betashap import BetaShapley
from opendataval.dataval.margcontrib.datashap import DataShapley
from opendataval.dataval.margcontrib.loo import LeaveOneOut
from opendataval.dataval.margcontrib.sampler import GrTMCSampler, Sampler, TMCSampler
from opendataval.dataval.margcontrib.shap import ShapEvaluator
