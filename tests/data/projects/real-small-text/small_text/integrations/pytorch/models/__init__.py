from small_text.integrations.pytorch.models.kimcnn import KimCNN

__all__ = [
    'KimCNN'
]
