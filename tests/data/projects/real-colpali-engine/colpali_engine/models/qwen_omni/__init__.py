from .colqwen_omni import ColQwen2_5Omni, ColQwen2_5OmniProcessor
