from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TypeVar

import torch
import torch.nn as nn

T = TypeVar("T")


class DistributedBackend(ABC):
    """
    Interface that TorchDistributed / NonDistributed must implement.
    """

    @property
    @abstractmethod
    def rank(self) -> int:
        """Global rank of this process."""
        ...

    @property
    @abstractmethod
    def data_parallel_rank(self) -> int: ...

    @property
    @abstractmethod
    def total_ranks(self) -> int:
        """Total number of processes."""
        ...

    @property
    @abstractmethod
    def total_data_parallel_ranks(self) -> int:
        """
        Total number of rank splits along the data parallel dimension.

        For example, 8 ranks using 2 ranks of model parallelism would have
        only 4 ranks of data paralellism.
        """

    @abstractmethod
    def local_batch_size(self, batch_size: int) -> int: ...

    @abstractmethod
    def get_local_slices(self, tensor_shape, data_parallel_dim: int | None = None): ...

    @abstractmethod
    def reduce_mean(self, tensor: torch.Tensor) -> torch.Tensor | None: ...

    @abstractmethod
    def reduce_sum(self, tensor: torch.Tensor) -> torch.Tensor | None: ...

    @abstractmethod
    def reduce_min(self, tensor: torch.Tensor) -> torch.Tensor | None: ...

    @abstractmethod
    def reduce_max(self, tensor: torch.Tensor) -> torch.Tensor | None: ...

    @abstractmethod
    def gather(
        self, tensor: torch.Tensor, gather_list: list[torch.Tensor] | None
    ) -> list[torch.Tensor] | None:
        """
        Gather a tensor from all processes to the root process.

        Note: tensor shape is assumed to be equal across all processes; data will
            reshaped/filled/dropped to coerce non-root tensors to the shape
            of the root tensor if not. To avoid this behavior, use
            "gather_irregular" instead.

        Args:
            tensor: The tensor to gather.
            gather_list: A list of tensor buffers to gather into,
                one for each rank.

        Returns:
            A list of tensors, where the i-th element is the tensor
                from the i-th process.
        """
        ...

    @abstractmethod
    def data_parallel_gather(
        self,
        tensor: torch.Tensor,
        gather_list: list[torch.Tensor] | None = None,
    ) -> list[torch.Tensor] | None:
        """Gather a tensor from all data-parallel ranks to the data-parallel root.

        Unlike ``gather``, which operates on the world group, this gathers
        within the data-parallel process group only: under spatial parallelism
        each spatial position gathers independently across its data-parallel
        co-ranks.

        Args:
            tensor: The tensor to gather.
            gather_list: A list of tensor buffers to gather into (one per
                data-parallel rank). Required on the data-parallel root when
                there is more than one data-parallel rank.

        Returns:
            A list of tensors on the data-parallel root, ``None`` on other
            data-parallel ranks.
        """
        ...

    @abstractmethod
    def data_parallel_scatter(
        self,
        tensor: torch.Tensor,
        scatter_list: list[torch.Tensor] | None = None,
    ) -> torch.Tensor:
        """Scatter tensors from the data-parallel root to all data-parallel ranks.

        Inverse of ``data_parallel_gather``.

        Args:
            tensor: Receive buffer (pre-allocated on all ranks).
            scatter_list: List of tensors to scatter (one per data-parallel
                rank, required on the data-parallel root). ``None`` on other
                ranks.

        Returns:
            ``tensor``, populated with this rank's shard.
        """
        ...

    @abstractmethod
    def data_parallel_gather_object(self, obj: T) -> list[T] | None:
        """Gather a picklable object from all data-parallel ranks to the
        data-parallel root.

        Returns:
            A list of objects on the data-parallel root, ``None`` on other
            data-parallel ranks.
        """
        ...

    @abstractmethod
    def data_parallel_broadcast_object(self, obj: T | None) -> T:
        """Broadcast a picklable object from the data-parallel root to all
        data-parallel ranks.

        Args:
            obj: The object to broadcast (required on the data-parallel
                root, ignored on other ranks).

        Returns:
            The broadcast object on all ranks.
        """
        ...

    @abstractmethod
    def gather_object(self, obj: T) -> list[T] | None: ...

    @abstractmethod
    def scatter_object(self, obj: T) -> T: ...

    @abstractmethod
    def gather_irregular(self, tensor: torch.Tensor) -> list[torch.Tensor] | None:
        """
        Gather a tensor from all processes to the root process. The rank tensors
        may have diferent dimension lengths, but must have the same number of
        dimensions.

        Args:
            tensor: The tensor to gather.

        Returns:
            A list of tensors of consistent shape, where the i-th element is the tensor
                from the i-th process.
        """
        ...

    @abstractmethod
    def wrap_module(self, module: torch.nn.Module) -> torch.nn.Module:
        """
        Wrap a module in for distributed training, if required.

        The wrapped module must follow the module structure of DistributedDataParallel,
        with the passed module's state contained under "module".
        """
        ...

    @abstractmethod
    def barrier(self): ...

    @abstractmethod
    def shutdown(self): ...

    @abstractmethod
    def abort(self):
        """Locally release the backend's communicators so this process can
        exit without faulting its peers.

        Unlike `shutdown`, this is not collective, and it must be callable
        from a non-main thread while the main thread is blocked in a
        collective.
        """
        ...

    @abstractmethod
    def get_sht(
        self,
        nlat: int,
        nlon: int,
        lmax: int | None = None,
        mmax: int | None = None,
        grid: str = "legendre-gauss",
    ) -> nn.Module:
        """Create a forward SHT (possibly distributed)."""
        ...

    @abstractmethod
    def get_isht(
        self,
        nlat: int,
        nlon: int,
        lmax: int | None = None,
        mmax: int | None = None,
        grid: str = "legendre-gauss",
    ) -> nn.Module:
        """Create an inverse SHT (possibly distributed)."""
        ...

    @abstractmethod
    def get_disco_conv_s2(self, *args, **kwargs) -> nn.Module:
        """Create a disco conv S2 instance (possibly distributed)."""
        ...

    @abstractmethod
    def spatial_reduce_sum(self, tensor: torch.Tensor) -> torch.Tensor:
        """All-reduce sum across spatial (h, w) ranks. Identity for non-spatial."""
        ...

    @abstractmethod
    def broadcast_spatial(self, tensor: torch.Tensor) -> torch.Tensor:
        """Broadcast a tensor from the spatial-group root to spatial co-ranks.

        Used to make a non-spatial quantity (e.g. a per-sample dropout mask)
        identical across tiles of the same sample, while leaving data-parallel
        ranks free to hold distinct values. Identity when there is no spatial
        parallelism.
        """
        ...

    @abstractmethod
    def weighted_mean(
        self,
        data: torch.Tensor,
        weights: torch.Tensor,
        dim: tuple[int, ...],
        keepdim: bool = False,
    ) -> torch.Tensor:
        """Compute a weighted mean, correctly handling spatial parallelism."""
        ...

    @abstractmethod
    def zonal_mean(self, data: torch.Tensor) -> torch.Tensor:
        """Compute the zonal mean (mean over longitude dimension)."""
        ...
