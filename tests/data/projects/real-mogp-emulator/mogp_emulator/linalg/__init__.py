from mogp_emulator.linalg.cholesky import cholesky_factor
from mogp_emulator.linalg.linalg_utils import calc_Ainv, calc_A_deriv, calc_mean_params, calc_R, logdet_deriv
