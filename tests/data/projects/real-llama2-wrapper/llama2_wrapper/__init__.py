from .model import LLAMA2_WRAPPER, get_prompt, get_prompt_for_dialog
