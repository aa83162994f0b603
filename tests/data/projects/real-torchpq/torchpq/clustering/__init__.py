from .KMeans import KMeans
from .MultiKMeans import MultiKMeans
from .KMeansOld import KMeansOld
from .MultiKMeansOld import MultiKMeansOld
from .MinibatchKMeans import MinibatchKMeans