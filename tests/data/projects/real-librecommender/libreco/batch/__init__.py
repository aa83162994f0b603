from .batch_data import adjust_batch_size, get_batch_loader
from .tf_feed_dicts import get_tf_feeds

__all__ = ["adjust_batch_size", "get_batch_loader", "get_tf_feeds"]
