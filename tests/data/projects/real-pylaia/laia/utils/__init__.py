from laia.utils.checks import check_tensor
from laia.utils.image_stats import ImageStats
from laia.utils.kaldi import ArchiveLatticeWriter, ArchiveMatrixWriter
from laia.utils.symbols_table import SymbolsTable
