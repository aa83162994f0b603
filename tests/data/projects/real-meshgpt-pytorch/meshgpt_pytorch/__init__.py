from meshgpt_pytorch.meshgpt_pytorch import (
    MeshAutoencoder,
    MeshTransformer
)

from meshgpt_pytorch.trainer import (
    MeshAutoencoderTrainer,
    MeshTransformerTrainer
)

from meshgpt_pytorch.data import (
    DatasetFromTransforms,
    cache_text_embeds_for_dataset,
    cache_face_edges_for_dataset
)