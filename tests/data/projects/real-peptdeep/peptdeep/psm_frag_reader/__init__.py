from peptdeep.psm_frag_reader import (
    maxquant_frag_reader,
    psm_frag_reader,
    psmlabel_reader,
)
