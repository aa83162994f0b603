from .topic_diversity import _diversity
from .topic_diversity import multiaspect_diversity
from .topic_diversity import dynamic_diversity

from .clustering import _clustering
from .clustering import hierarchical_clustering

from .classification import _cls
from .classification import crosslingual_cls
from .classification import hierarchical_cls

from .topic_coherence import _coherence
from .topic_coherence import dynamic_coherence
from .hierarchy_quality import hierarchy_quality
