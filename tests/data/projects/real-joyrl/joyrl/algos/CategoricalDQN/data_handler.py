from joyrl.algos.base.data_handler import BaseDataHandler

class DataHandler(BaseDataHandler):
    def __init__(self, cfg):
        super().__init__(cfg)
    