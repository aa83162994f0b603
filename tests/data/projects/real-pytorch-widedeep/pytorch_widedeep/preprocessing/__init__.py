from pytorch_widedeep.preprocessing.hf_preprocessor import (
    HFPreprocessor,
    ChunkHFPreprocessor,
)
from pytorch_widedeep.preprocessing.din_preprocessor import DINPreprocessor
from pytorch_widedeep.preprocessing.tab_preprocessor import (
    TabPreprocessor,
    ChunkTabPreprocessor,
    embed_sz_rule,
)
from pytorch_widedeep.preprocessing.text_preprocessor import (
    TextPreprocessor,
    ChunkTextPreprocessor,
)
from pytorch_widedeep.preprocessing.wide_preprocessor import (
    WidePreprocessor,
    ChunkWidePreprocessor,
)
from pytorch_widedeep.preprocessing.image_preprocessor import ImagePreprocessor
