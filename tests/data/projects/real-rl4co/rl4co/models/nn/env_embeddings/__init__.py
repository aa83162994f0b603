from rl4co.models.nn.env_embeddings.context import env_context_embedding
from rl4co.models.nn.env_embeddings.dynamic import env_dynamic_embedding
from rl4co.models.nn.env_embeddings.edge import env_edge_embedding
from rl4co.models.nn.env_embeddings.init import env_init_embedding
