from oml.models.texts.huggingface import HFWrapper
