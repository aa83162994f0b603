"""A module for a fixed coordinate patching strategy, useful for validation."""

from collections.abc import Sequence

from .patching import PatchSpecs


class FixedPatching:
    """Patching strategy that returns patches from a fixed sequence.

    Implements the `PatchingStrategy` protocol.

    Parameters
    ----------
    fixed_patch_specs : Sequence[PatchSpecs]
        Sequence of patch specifications to return in order.
    """

    def __init__(self, fixed_patch_specs: Sequence[PatchSpecs]) -> None:
        """Constructor.

        Parameters
        ----------
        fixed_patch_specs : Sequence[PatchSpecs]
            Sequence of patch specifications.
        """
        self.fixed_patch_specs = fixed_patch_specs

    @property
    def n_patches(self) -> int:
        """Number of patches; max index for `get_patch_spec`.

        Returns
        -------
        int
            Length of the fixed patch specs sequence.
        """
        return len(self.fixed_patch_specs)

    def get_patch_spec(self, index: int) -> PatchSpecs:
        """Return the patch specs for a given index.

        Parameters
        ----------
        index : int
            A patch index.

        Returns
        -------
        PatchSpecs
            A dictionary that specifies a single patch in a series of `ImageStacks`.
        """
        if index >= self.n_patches:
            raise IndexError(
                f"Index {index} out of bounds for FixedPatching with "
                f"number of patches {self.n_patches}"
            )
        # simply index the pre-generated patches to get the correct patch
        return self.fixed_patch_specs[index]

    # Note: this is used by the FileIterSampler
    def get_patch_indices(self, data_idx: int) -> Sequence[int]:
        """
        Return all patch indices belonging to a specific `image_stack`.

        Each `image_stack` corresponds to a given `data_idx`.

        Parameters
        ----------
        data_idx : int
            An index that corresponds to a given `image_stack`.

        Returns
        -------
        sequence of int
            A sequence of patch indices belonging to a particular `image_stack` that
            can be used to index the `CAREamicsDataset`.
        """
        return [
            i
            for i, patch_spec in enumerate(self.fixed_patch_specs)
            if patch_spec["data_idx"] == data_idx
        ]
