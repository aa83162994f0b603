
from pycox.evaluation.eval_surv import EvalSurv
# from pycox.evaluation import binomial_log_likelihood, brier_score,\
#     integrated_binomial_log_likelihood, integrated_brier_score
# from pycox.evaluation.concordance import concordance_td
# from pycox.evaluation.km_inverce_censor_weight import binomial_log_likelihood_km, brier_score_km,\
#     integrated_binomial_log_likelihood_km_numpy, integrated_brier_score_km_numpy
