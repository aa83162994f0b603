from pycox.simulations import relative_risk, discrete_logit_hazard
from pycox.simulations.relative_risk import (SimStudyLinearPH, SimStudyNonLinearPH,
    SimStudyNonLinearNonPH)
from pycox.simulations.discrete_logit_hazard import (SimStudySACCensorConst, SimStudySACAdmin,
    SimStudySingleSurvUniformAdmin)
