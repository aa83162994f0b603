### Essential imports for loading components and modifications to original Haystack components
from fastrag import generators, rankers, retrievers, stores

__version__ = "3.1.2"
