from borzoi_pytorch.pytorch_borzoi_model import Borzoi, Prime, AnnotatedBorzoi
from borzoi_pytorch.gene_utils import Transcriptome
