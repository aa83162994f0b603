from __future__ import annotations

from typing import Sequence, TypeVar

import torch

from emu_sv.dense_state import DenseState

from pulser.backend import State
from pulser.backend.state import Eigenstate

StateVectorType = TypeVar("StateVectorType", bound="StateVector")
# Default tensor data type
dtype = torch.complex128


class StateVector(DenseState):
    """
    Represents a quantum state vector in a computational basis.

    This class extends the `State` class to handle state vectors,
    providing various utilities for initialization, normalization,
    manipulation, and measurement. The state vector must have a length
    that is a power of 2, representing 2ⁿ basis states for n qubits.

    Args:
        data: 1D tensor representation of a state vector.
        gpu: store the vector on GPU if True and a GPU is present, otherwise on CPU
        eigenstates: sequence of eigenstates used as basis only qubit basis are
            supported (default: ('r','g'))
    """

    def _normalize(self) -> None:
        """Normalizes the state vector to ensure it has unit norm.

        If the vector norm is not 1, the method scales the vector
        to enforce normalization.

        Note:
            This method is intended to be used in callbacks.
        """

        norm = torch.linalg.vector_norm(self.data)

        # This must duplicate the tolerance in pulsers State._to_abstract_repr
        if abs(self.norm() ** 4 - 1.0) > 1e-12:
            self.data = self.data / norm

    @classmethod
    def zero(
        cls,
        num_sites: int,
        gpu: bool = True,
        eigenstates: Sequence[Eigenstate] = ("r", "g"),
    ) -> StateVector:
        """
        Returns a zero uninitialized "state" vector. Warning, this has no physical meaning as-is!

        Args:
            num_sites: the number of qubits
            gpu: whether gpu or cpu

        Returns:
            The zero state

        Examples:
            ```python
            StateVector.zero(2,gpu=False)
            ```

            Output:
            ```
            tensor([0.+0.j, 0.+0.j, 0.+0.j, 0.+0.j], dtype=torch.complex128)
            ```
        """

        vector = torch.zeros(2**num_sites, dtype=dtype)
        return cls(vector, gpu=gpu, eigenstates=eigenstates)

    @classmethod
    def make(cls, num_sites: int, gpu: bool = True) -> StateVector:
        """
        Returns a State vector in the ground state |00..0>.

        Args:
            num_sites: the number of qubits
            gpu: whether gpu or cpu

        Returns:
            The described state

        Examples:
            ```python
            StateVector.make(2,gpu=False)
            ```

            Output:
            ```
            tensor([1.+0.j, 0.+0.j, 0.+0.j, 0.+0.j], dtype=torch.complex128)
            ```
        """

        result = cls.zero(num_sites=num_sites, gpu=gpu)
        result.data[0] = 1.0
        return result

    def inner(self, other: State) -> torch.Tensor:
        """
        Compute <self|other>. The type of other must be StateVector.

        Args:
            other: the other state

        Returns:
            the inner product
        """
        assert isinstance(other, StateVector), "Other state must be a StateVector"
        assert self.data.shape == other.data.shape, "States do not have the same shape"

        # by our internal convention inner and norm return to cpu
        return torch.vdot(self.data, other.data.to(self.data.device)).cpu()

    def __add__(self, other: State) -> StateVector:
        """Sum of two state vectors

        Args:
            other: the vector to add to this vector

        Returns:
            The summed state
        """
        assert isinstance(other, StateVector), "`Other` state can only be a StateVector"
        assert (
            self.eigenstates == other.eigenstates
        ), f"`Other` state has basis {other.eigenstates} != {self.eigenstates}"
        return StateVector(
            self.data + other.data,
            gpu=self.data.is_cuda,
            eigenstates=self.eigenstates,
        )

    def __rmul__(self, scalar: complex) -> StateVector:
        """Scalar multiplication

        Args:
            scalar: the scalar to multiply with

        Returns:
            The scaled state
        """
        return StateVector(
            scalar * self.data,
            gpu=self.data.is_cuda,
            eigenstates=self.eigenstates,
        )

    def norm(self) -> torch.Tensor:
        """Returns the norm of the state

        Returns:
            the norm of the state
        """
        nrm: torch.Tensor = torch.linalg.vector_norm(self.data).cpu()
        return nrm

    def __repr__(self) -> str:
        return repr(self.data)


def inner(left: StateVector, right: StateVector) -> torch.Tensor:
    """
    Wrapper around StateVector.inner.

    Args:
        left:  StateVector argument
        right: StateVector argument

    Returns:
        the inner product

    Examples:
        ```python
        factor = math.sqrt(2.0)
        basis = ("r","g")
        nqubits=2
        string_state1 = {"gg":1.0,"rr":1.0}
        state1 = StateVector.from_state_string(basis=basis,
        nqubits=nqubits,strings=string_state1)
        string_state2 = {"gr":1.0/factor,"rr":1.0/factor}
        state2 = StateVector.from_state_string(basis=basis,
        nqubits=nqubits,strings=string_state2)
        state1 = StateVector.from_state_amplitudes(eigenstates=basis,
            amplitudes=string_state1)
        string_state2 = {"gr":1.0/factor,"rr":1.0/factor}
        state2 = StateVector.from_state_amplitudes(eigenstates=basis,
            amplitudes=string_state2)
        inner(state1,state2).item()
        ```

        Output:
        ```
        (0.49999999144286444+0j)
        ```
    """

    assert (left.data.shape == right.data.shape) and (left.data.dim() == 1), (
        "Shape of left.data and right.data should be",
        " the same and both need to be 1D tesnor",
    )
    return left.inner(right)
