from psauron.psauron import load_model

def test_load_model_default():
    load_model(True)