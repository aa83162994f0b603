from daisy.model.EASERecommender import EASE
from daisy.model.FMRecommender import FM
from daisy.model.Item2VecRecommender import Item2Vec
from daisy.model.KNNCFRecommender import ItemKNNCF, UserKNNCF
from daisy.model.MFRecommender import MF
from daisy.model.NeuMFRecommender import NeuMF
from daisy.model.NFMRecommender import NFM
from daisy.model.NGCFRecommender import NGCF
from daisy.model.PopRecommender import MostPop
from daisy.model.PureSVDRecommender import PureSVD
from daisy.model.SLiMRecommender import SLiM
from daisy.model.VAECFRecommender import VAECF