from .search import ActiveSearch
