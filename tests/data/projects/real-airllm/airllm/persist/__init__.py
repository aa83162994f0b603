from .model_persister import ModelPersister
