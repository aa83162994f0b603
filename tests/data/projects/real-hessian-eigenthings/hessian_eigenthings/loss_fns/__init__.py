from hessian_eigenthings.loss_fns.huggingface import (
    hf_lm_forward,
    hf_lm_loss,
    hf_lm_loss_of_output,
    hf_seq2seq_loss,
)
from hessian_eigenthings.loss_fns.standard import (
    supervised_forward,
    supervised_loss,
    supervised_loss_of_output,
    supervised_per_sample_loss,
)
from hessian_eigenthings.loss_fns.transformer_lens import (
    tlens_forward,
    tlens_loss,
    tlens_loss_of_output,
)

__all__ = [
    "hf_lm_forward",
    "hf_lm_loss",
    "hf_lm_loss_of_output",
    "hf_seq2seq_loss",
    "supervised_forward",
    "supervised_loss",
    "supervised_loss_of_output",
    "supervised_per_sample_loss",
    "tlens_forward",
    "tlens_loss",
    "tlens_loss_of_output",
]
