from evo2.models import evo2_model

def test_model_load():
    evo2_1b_base = evo2_model('evo2_1b_base')

test_model_load()