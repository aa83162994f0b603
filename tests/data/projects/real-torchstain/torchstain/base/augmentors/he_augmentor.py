class HEAugmentor:
    def fit(self, I):
        pass

    def augment(self):
        raise Exception('Abstract method')
