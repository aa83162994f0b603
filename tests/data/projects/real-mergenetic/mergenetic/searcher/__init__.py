from .searcher import Searcher
