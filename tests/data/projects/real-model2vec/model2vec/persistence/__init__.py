from model2vec.persistence.hf import push_folder_to_hub
from model2vec.persistence.persistence import load_pretrained, save_pretrained

__all__ = ["save_pretrained", "load_pretrained", "push_folder_to_hub"]
