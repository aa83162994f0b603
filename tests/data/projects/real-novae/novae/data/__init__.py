from .convert import ZScoreTorch, EmbeddingTorch, get_torch_converter
from .dataset import NovaeDataset
from .datamodule import NovaeDatamodule
from ._embeddings._histo import compute_histo_embeddings, compute_histo_pca
from ._load import _load_wandb_artifact, load_dataset, toy_dataset, load_local_dataset
from .preprocess import quantile_scaling
