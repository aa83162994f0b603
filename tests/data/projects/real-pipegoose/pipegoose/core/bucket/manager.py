class BucketManager:
    def __init__(self):
        pass
