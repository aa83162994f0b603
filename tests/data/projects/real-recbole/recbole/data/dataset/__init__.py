from recbole.data.dataset.dataset import Dataset
from recbole.data.dataset.sequential_dataset import SequentialDataset
from recbole.data.dataset.kg_dataset import KnowledgeBasedDataset
from recbole.data.dataset.kg_seq_dataset import KGSeqDataset
from recbole.data.dataset.decisiontree_dataset import DecisionTreeDataset
from recbole.data.dataset.customized_dataset import *
