from ._ctfidf import ClassTfidfTransformer
from ._online_cv import OnlineCountVectorizer

__all__ = ["ClassTfidfTransformer", "OnlineCountVectorizer"]
