from .attention import attention_forward, FLEX_ATTN_AVAILABLE
