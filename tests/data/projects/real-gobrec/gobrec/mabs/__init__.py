
from gobrec.mabs.label_encoder import LabelEncoder
from gobrec.mabs.random_mab import RandomMAB
from gobrec.mabs.mab_algo import MABAlgo
import gobrec.mabs.lin_mabs