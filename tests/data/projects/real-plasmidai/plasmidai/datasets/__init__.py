from plasmidai.datasets.plasmid import PlasmidDataModule
from plasmidai.datasets.replicons import RepliconDataModule
from plasmidai.datasets.utils import DNATokenizer
