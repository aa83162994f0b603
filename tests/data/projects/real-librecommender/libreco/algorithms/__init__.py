from .als import ALS
from .autoint import AutoInt
from .bpr import BPR
from .caser import Caser
from .deepfm import DeepFM
from .deepwalk import DeepWalk
from .din import DIN
from .fm import FM
from .graphsage import GraphSage
from .graphsage_dgl import GraphSageDGL
from .item2vec import Item2Vec
from .item_cf import ItemCF
from .item_cf_rs import RsItemCF
from .lightgcn import LightGCN
from .ncf import NCF
from .ngcf import NGCF
from .pinsage import PinSage
from .pinsage_dgl import PinSageDGL
from .rnn4rec import RNN4Rec
from .sim import SIM
from .svd import SVD
from .svdpp import SVDpp
from .swing import Swing
from .transformer import Transformer
from .two_tower import TwoTower
from .user_cf import UserCF
from .user_cf_rs import RsUserCF
from .wave_net import WaveNet
from .wide_deep import WideDeep
from .youtube_ranking import YouTubeRanking
from .youtube_retrieval import YouTubeRetrieval

__all__ = [
    "UserCF",
    "RsUserCF",
    "ItemCF",
    "RsItemCF",
    "SVD",
    "SVDpp",
    "ALS",
    "BPR",
    "NCF",
    "YouTubeRetrieval",
    "YouTubeRanking",
    "FM",
    "WideDeep",
    "DeepFM",
    "AutoInt",
    "DIN",
    "RNN4Rec",
    "Caser",
    "WaveNet",
    "Item2Vec",
    "DeepWalk",
    "NGCF",
    "LightGCN",
    "PinSage",
    "PinSageDGL",
    "GraphSage",
    "GraphSageDGL",
    "TwoTower",
    "Transformer",
    "SIM",
    "Swing",
]
