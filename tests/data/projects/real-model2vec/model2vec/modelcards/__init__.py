from model2vec.modelcards.modelcards import create_model_card, get_metadata_from_readme

__all__ = ["create_model_card", "get_metadata_from_readme"]
