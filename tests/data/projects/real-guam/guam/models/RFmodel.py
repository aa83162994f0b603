from .basemodel import BaseModel

class RandomForest(BaseModel):
    def __init__(self):
        super().__init__()
    
    def _default_params(self):
        return super()._default_params()