from .basic.basic_trainer import BasicTrainer
from .basic.BERTopic_trainer import BERTopicTrainer
from .basic.FASTopic_trainer import FASTopicTrainer
from .basic.LDA_trainer import LDAGensimTrainer
from .basic.LDA_trainer import LDASklearnTrainer
from .basic.NMF_trainer import NMFGensimTrainer
from .basic.NMF_trainer import NMFSklearnTrainer

from .crosslingual.crosslingual_trainer import CrosslingualTrainer
from .dynamic.dynamic_trainer import DynamicTrainer

from .dynamic.DTM_trainer import DTMTrainer

from .hierarchical.hierarchical_trainer import HierarchicalTrainer
from .hierarchical.HDP_trainer import HDPGensimTrainer
