from .model import MVMoE_AM, MVMoE_POMO
