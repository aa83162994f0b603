from pytorch_widedeep.utils.text_utils import (
    get_texts,
    pad_sequences,
    simple_preprocess,
    build_embeddings_matrix,
)
from pytorch_widedeep.utils.image_utils import (
    SimplePreprocessor,
    AspectAwarePreprocessor,
)
from pytorch_widedeep.utils.deeptabular_utils import LabelEncoder
from pytorch_widedeep.utils.fastai_transforms import Vocab, Tokenizer
