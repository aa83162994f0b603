from recbole.model.exlib_recommender.lightgbm import LightGBM
from recbole.model.exlib_recommender.xgboost import XGBoost
