
from gobrec.recommender import Recommender
import gobrec.mabs