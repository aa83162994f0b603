from xaytune.export.gguf import to_gguf
from xaytune.export.hub import push_to_hub
from xaytune.export.merge import merge, save

__all__ = ["merge", "push_to_hub", "save", "to_gguf"]
