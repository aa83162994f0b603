from .distributions import Distribution
from .categorical import Categorical
from .literal import Literal
from .indicator import Indicator
from .bernoulli import Bernoulli
from .gaussian import Gaussian
from .discrete_logistic import DiscreteLogistic
from .masked_categorical import MaskedCategorical
from .external import External
from .external_categorical import ExternProductCategorical
from .softevi_categorical import SoftEvidenceCategorical, sort_soft_evidence_candidates
from .softevi_indicator import SoftEvidenceIndicator
from .latent_softevi import LatentSoftEvidence
