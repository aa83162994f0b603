

class BaseModel():
    def __init__(self):
        pass
    
    def _default_params(self)->None:
        pass