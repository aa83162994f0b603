class Mode:
    """Novae mode class, used to store states variables related to training and inference."""

    def __init__(
        self,
        zero_shot: bool = False,
        trained: bool = False,
        pretrained: bool = False,
        multimodal: bool = False,
    ):
        self.zero_shot = zero_shot
        self.trained = trained
        self.pretrained = pretrained
        self.multimodal = multimodal

    def __repr__(self) -> str:
        return f"Mode({dict(self.__dict__.items())})"

    ### Mode modifiers

    def as_pretrained(self):
        self.zero_shot = False
        self.trained = True
        self.pretrained = True

    def as_zero_shot(self):
        self.zero_shot = True
        self.trained = True

    def as_fine_tuned(self):
        assert self.pretrained, "Fine-tuning requires a pretrained model."
        self.zero_shot = False

    def as_fitted(self):
        self.zero_shot = False
        self.trained = False
