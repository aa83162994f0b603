from .extension.deepcache import DeepCacheSDHelper

