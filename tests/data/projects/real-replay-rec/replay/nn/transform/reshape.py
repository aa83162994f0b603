import torch


class UnsqueezeTransform(torch.nn.Module):
    """
    Unsqueeze a tensor obtained by the specified key from a batch along the specified dimension.

    Example:

    .. code-block:: python

        >>> input_batch = {"padding_id": torch.BoolTensor([False, True, True])}
        >>> transform = UnsqueezeTransform("padding_id", dim=0)
        >>> output_batch = transform(input_batch)
        >>> output_batch
        {'padding_id': tensor([[False,  True,  True]])}

    """

    def __init__(self, feature_name: str, dim: int) -> None:
        """
        :param feature_name: a name of a tensor to be unsqueezed.
        :param dim: Dimension along which the tensor will be unsqueezed.
        """
        super().__init__()
        self.feature_name = feature_name
        self.dim = dim

    def forward(self, batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        if self.dim > batch[self.feature_name].ndim - 1:
            msg = (
                "The dim parameter is incorrect."
                f"Expected unsqueezing by {self.dim} dimension,"
                f"but got the tensor with {batch[self.feature_name].ndim} dimensions."
            )
            raise ValueError(msg)

        output_batch = {k: v for k, v in batch.items() if k != self.feature_name}
        output_batch[self.feature_name] = batch[self.feature_name].unsqueeze(self.dim)

        return output_batch
