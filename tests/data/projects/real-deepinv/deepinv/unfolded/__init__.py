from .unfolded import unfolded_builder, BaseUnfold
from .deep_equilibrium import DEQ_builder, BaseDEQ
