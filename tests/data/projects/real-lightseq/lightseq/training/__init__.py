from lightseq.training.ops.pytorch.transformer_embedding_layer import (
    LSTransformerEmbeddingLayer,
)
from lightseq.training.ops.pytorch.transformer_encoder_layer import (
    LSTransformerEncoderLayer,
)
from lightseq.training.ops.pytorch.transformer_decoder_layer import (
    LSTransformerDecoderLayer,
)
from lightseq.training.ops.pytorch.gpt_layer import (
    LSGptEncoderLayer,
    ls_hf_gpt_enc_convert,
)
from lightseq.training.ops.pytorch.transformer import (
    LSTransformer,
    LSTransformerEncoder,
    LSTransformerDecoder,
)

from lightseq.training.ops.pytorch.cross_entropy_layer import LSCrossEntropyLayer
from lightseq.training.ops.pytorch.adam import LSAdam
from lightseq.training.ops.pytorch.export import (
    export_ls_config,
    export_ls_embedding,
    export_ls_encoder,
    export_ls_decoder,
    export_pb2hdf5,
)

from lightseq.training.ops.pytorch.export_quant import (
    export_ls_embedding_ptq,
    export_ls_encoder_ptq,
    export_ls_decoder_ptq,
    export_ls_quant_embedding,
    export_ls_quant_encoder,
    export_ls_quant_decoder,
    export_quant_pb2hdf5,
)

from lightseq.training.ops.pytorch.gemm_test import gemm_test
