from .grn import GeneEmbedding
from .cell_emb import get_batch_cell_embeddings, embed_data
