from .pos_shift import qwen_pos_shift_attention_forward
