from .tables import TablesMatcher
