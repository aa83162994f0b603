from docling_ibm_models.tableformer_v2.model import (
    TableFormerV2,
    TableFormerV2Config,
    TableFormerV2Output,
)

__all__ = [
    "TableFormerV2",
    "TableFormerV2Config",
    "TableFormerV2Output",
]
