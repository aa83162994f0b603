import logging

import torch
from torch import nn

from .. import utils

log = logging.getLogger(__name__)


class ClassCenters(nn.Module):
    """
    Several methods for OOD Detection propose to model a center :math:`\\mu_y` for each class.
    These centers are either static, or learned via gradient descent.
    The centers :math:`\\mu_y` are stored in :attr:`params` as a matrix of shape
    :math:`K \\times D`, and are initialized randomly from a standard normal distribution.
    Calling the module returns the squared Euclidean distances :math:`\\lVert x - \\mu_y \\rVert_2^2`
    of the inputs to each center.

    The centers are also known as class proxy, class prototype or class anchor.
    """

    def __init__(self, n_classes: int, n_features: int, fixed: bool = False):
        """
        :param n_classes: number of classes :math:`K`
        :param n_features: dimensionality :math:`D` of the space in which the centers live
        :param fixed: False if the centers should be learnable parameters, True if they should be fixed at their
            initial position
        """
        super(ClassCenters, self).__init__()
        # anchor points are fixed, so they do not require gradients
        self._params = nn.Parameter(torch.randn(size=(n_classes, n_features)))

        if fixed:
            self._params.requires_grad = False

    @property
    def num_classes(self) -> int:
        """
        Number of centers :math:`K`
        """
        return self.params.shape[0]

    @property
    def n_features(self) -> int:
        """
        Dimensionality :math:`D` of the space in which the centers live
        """
        return self.params.shape[1]

    @property
    def params(self) -> nn.Parameter:
        """
        Class centers :math:`\\mu_y`, of shape :math:`K \\times D`
        """
        return self._params

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        :param x: samples of shape :math:`N \\times D`
        :return: pairwise squared distances of the samples to each center, of shape
            :math:`N \\times K`
        """
        assert x.shape[1] == self.n_features
        return utils.pairwise_distances(x, self.params)

    def predict(self, x: torch.Tensor) -> torch.Tensor:
        """
        Make class membership predictions based on the softmin of the squared distances to each center.

        :param x: embeddings of samples of shape :math:`N \\times D`
        :return: class membership probabilities (softmin over the squared distances to the
            centers), of shape :math:`N \\times K`
        """
        distances = utils.pairwise_distances(x, self.params)
        return nn.functional.softmin(distances, dim=1)


class RunningCenters(nn.Module):
    """
    Estimates class centers from batches of data using a running mean estimator.
    Calling the module returns the squared Euclidean distances of the inputs to each center.
    """

    def __init__(self, n_classes: int, n_embedding: int):
        """
        :param n_classes: number of centers :math:`K`
        :param n_embedding: dimensionality :math:`D` of embedding space
        """
        super(RunningCenters, self).__init__()
        self.num_classes = n_classes
        self.n_embedding = n_embedding
        # create buffer for centers. those buffers will be updated during training, and are fixed during evaluation
        running_centers = torch.empty(
            size=(self.num_classes, self.n_embedding), requires_grad=False
        ).float()
        num_batches_tracked = torch.empty(size=(1,), requires_grad=False).float()
        self.register_buffer("running_centers", running_centers)
        self.register_buffer("num_batches_tracked", num_batches_tracked)
        self.reset()

    @property
    def centers(self) -> torch.Tensor:
        """
        :return: current class center estimates of shape :math:`K \\times D`
        """
        return self.running_centers

    def reset(self) -> None:
        """
        Resets the running stats of online class center estimates.
        """
        log.info("Reset running stats")
        nn.init.zeros_(self.running_centers)
        nn.init.zeros_(self.num_batches_tracked)

    def calculate_centers(self, embeddings, target) -> torch.Tensor:
        """
        Calculates the empirical class centers of a batch.

        :param embeddings: embeddings of shape :math:`N \\times D`
        :param target: class labels of shape :math:`N`
        :return: centers of shape :math:`K \\times D`; rows of classes that do not occur in
            ``target`` are NaN
        """
        mu = torch.full(
            size=(self.num_classes, self.n_embedding),
            fill_value=float("NaN"),
            device=embeddings.device,
        )
        for clazz in target.unique(sorted=False):
            mu[clazz] = embeddings[target == clazz].mean(dim=0)  # all instances of this class
        return mu

    def update(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """
        Update running centers. The buffers are updated in place. Labels must be
        :math:`\\geq 0`.

        :param x: embeddings of shape :math:`N \\times D`
        :param target: class labels of shape :math:`N`
        :return: per class mean of the inputs, of shape :math:`K \\times D`; rows of classes that
            do not occur in ``target`` are NaN
        """
        batch_classes = torch.unique(target, sorted=False)
        n_instances = x.shape[0]
        # calculate empirical centers
        mu = self.calculate_centers(x, target)
        # update running mean centers
        cma = mu[batch_classes] + self.running_centers[batch_classes] * self.num_batches_tracked
        self.running_centers[batch_classes] = cma / (self.num_batches_tracked + 1)
        self.num_batches_tracked += 1
        return mu

    def forward(self, x: torch.Tensor):
        """
        Calculates distances to centers. Note that, other than for :class:`ClassCenters`, the
        centers come first.

        :param x: embeddings of shape :math:`N \\times D`
        :return: squared Euclidean distances between the centers and the embeddings, of shape
            :math:`K \\times N`
        """
        return utils.pairwise_distances(self.centers, x)
