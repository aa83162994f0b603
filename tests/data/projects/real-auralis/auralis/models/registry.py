MODEL_REGISTRY = {}

def register_model(name, model):
    MODEL_REGISTRY[name] = model