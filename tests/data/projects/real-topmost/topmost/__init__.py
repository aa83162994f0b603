from . import models
from . import data
from . import eva
from . import trainers
from . import preprocess

from .data import download_20ng
from .preprocess.preprocess import Preprocess

# data
from .data.basic_dataset import BasicDataset
from .data.basic_dataset import RawDataset
from .data.crosslingual_dataset import CrosslingualDataset
from .data.dynamic_dataset import DynamicDataset
from .data.download import download_dataset
from .data import file_utils

# trainers
from .trainers.basic.basic_trainer import BasicTrainer
from .trainers.basic.BERTopic_trainer import BERTopicTrainer
from .trainers.basic.FASTopic_trainer import FASTopicTrainer
from .trainers.basic.LDA_trainer import LDAGensimTrainer
from .trainers.basic.LDA_trainer import LDASklearnTrainer
from .trainers.basic.NMF_trainer import NMFGensimTrainer
from .trainers.basic.NMF_trainer import NMFSklearnTrainer

from .trainers.crosslingual.crosslingual_trainer import CrosslingualTrainer
from .trainers.dynamic.dynamic_trainer import DynamicTrainer

from .trainers.dynamic.DTM_trainer import DTMTrainer

from .trainers.hierarchical.hierarchical_trainer import HierarchicalTrainer
from .trainers.hierarchical.HDP_trainer import HDPGensimTrainer

# models
from .models.basic.ProdLDA import ProdLDA
from .models.basic.CombinedTM import CombinedTM
from .models.basic.DecTM import DecTM
from .models.basic.ETM import ETM
from .models.basic.NSTM.NSTM import NSTM
from .models.basic.TSCTM.TSCTM import TSCTM
from .models.basic.ECRTM.ECRTM import ECRTM

from .models.crosslingual.NMTM import NMTM
from .models.crosslingual.InfoCTM.InfoCTM import InfoCTM

from .models.dynamic.DETM import DETM
from .models.dynamic.CFDTM.CFDTM import CFDTM

from .models.hierarchical.SawETM.SawETM import SawETM
from .models.hierarchical.HyperMiner.HyperMiner import HyperMiner
from .models.hierarchical.TraCo.TraCo import TraCo
