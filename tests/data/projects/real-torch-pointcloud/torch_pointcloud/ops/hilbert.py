"""Hilbert curve encoding and decoding between coordinates and curve indices."""

# Mostly copied from https://github.com/Pointcept/Pointcept/blob/main/pointcept/models/utils/serialization/hilbert.py
# Original code from https://github.com/PrincetonLIPS/numpy-hilbert-curve

import torch
from torch import Tensor


def right_shift(binary: Tensor, k: int = 1, axis: int = -1) -> Tensor:
    """Shift a tensor of bits right by `k` positions, padding the vacated positions with zeros.

    Args:
        binary: Tensor of bits, most significant bit first along `axis`.
        k: Number of positions to shift by.
        axis: Axis holding the bits.

    Returns:
        The shifted bits, same shape as `binary`.
    """
    # If we're shifting the whole thing, just return zeros.
    if binary.shape[axis] <= k:
        return torch.zeros_like(binary)

    # Determine the slicing pattern to eliminate just the last one.
    slicing = [slice(None)] * len(binary.shape)
    slicing[axis] = slice(None, -k)
    shifted = torch.nn.functional.pad(binary[tuple(slicing)], (k, 0), mode="constant", value=0)

    return shifted


def binary2gray(binary: Tensor, axis: int = -1) -> Tensor:
    """Convert bits from the binary code to the Gray code.

    Args:
        binary: Tensor of bits, most significant bit first along `axis`.
        axis: Axis holding the bits.

    Returns:
        The Gray-coded bits, same shape as `binary`.
    """
    shifted = right_shift(binary, axis=axis)

    # Do the X ^ (X >> 1) trick.
    gray = torch.logical_xor(binary, shifted)

    return gray


def gray2binary(gray: Tensor, axis: int = -1) -> Tensor:
    """Convert bits from the Gray code back to the binary code.

    Args:
        gray: Tensor of Gray-coded bits, most significant bit first along `axis`.
        axis: Axis holding the bits.

    Returns:
        The binary bits, same shape as `gray`.
    """
    # Loop the log2(bits) number of times necessary, with shift and xor.
    shift = int(2 ** (torch.tensor(gray.shape[axis], dtype=torch.float32).log2().ceil().int() - 1))
    while shift > 0:
        gray = torch.logical_xor(gray, right_shift(gray, shift))
        shift //= 2
    return gray


def encode(locs: Tensor, num_dims: int, num_bits: int) -> Tensor:
    r"""Encode integer grid coordinates into their Hilbert curve indices.

    Args:
        locs: Integer coordinates $(N, \text{num\_dims})$, each in $[0, 2^{\text{num\_bits}})$.
        num_dims: Number of dimensions of the grid.
        num_bits: Number of bits per dimension. `num_dims` times `num_bits` must fit in an `int64`.

    Returns:
        The Hilbert indices, shape $(N,)$ and dtype `int64`.
    """
    # Keep around the original shape for later.
    orig_shape = locs.shape
    bitpack_mask = 1 << torch.arange(0, 8).to(locs.device)
    bitpack_mask_rev = bitpack_mask.flip(-1)

    if orig_shape[-1] != num_dims:
        raise ValueError(
            f"The shape of locs was surprising in that the last dimension was of size {orig_shape[-1]}, "
            f"but num_dims={num_dims}. These need to be equal."
        )
    if num_dims * num_bits > 63:
        raise ValueError(
            f"Got num_dims={num_dims} and num_bits={num_bits} for {num_dims * num_bits} bits total, "
            "which can't be encoded into a int64. Are you sure you need that many points on your Hilbert curve?"
        )

    # Treat the location integers as 64-bit unsigned and then split them up into
    # a sequence of uint8s.  Preserve the association by dimension.
    locs_uint8 = locs.long().view(torch.uint8).reshape((-1, num_dims, 8)).flip(-1)

    # Now turn these into bits and truncate to num_bits.
    gray = locs_uint8.unsqueeze(-1).bitwise_and(bitpack_mask_rev).ne(0).byte().flatten(-2, -1)[..., -num_bits:]

    # Run the decoding process the other way.
    # Iterate forwards through the bits.
    for bit in range(0, num_bits):
        # Iterate forwards through the dimensions.
        for dim in range(0, num_dims):
            # Identify which ones have this bit active.
            mask = gray[:, dim, bit]

            # Where this bit is on, invert the 0 dimension for lower bits.
            gray[:, 0, bit + 1 :] = torch.logical_xor(gray[:, 0, bit + 1 :], mask[:, None])

            # Where the bit is off, exchange the lower bits with the 0 dimension.
            to_flip = torch.logical_and(
                torch.logical_not(mask[:, None]).repeat(1, gray.shape[2] - bit - 1),
                torch.logical_xor(gray[:, 0, bit + 1 :], gray[:, dim, bit + 1 :]),
            )
            gray[:, dim, bit + 1 :] = torch.logical_xor(gray[:, dim, bit + 1 :], to_flip)
            gray[:, 0, bit + 1 :] = torch.logical_xor(gray[:, 0, bit + 1 :], to_flip)

    # Now flatten out.
    gray = gray.swapaxes(1, 2).reshape((-1, num_bits * num_dims))

    # Convert Gray back to binary.
    hh_bin = gray2binary(gray)

    # Pad back out to 64 bits.
    extra_dims = 64 - num_bits * num_dims
    padded = torch.nn.functional.pad(hh_bin, (extra_dims, 0), "constant", 0)

    # Convert binary values into uint8s.
    hh_uint8 = (padded.flip(-1).reshape((-1, 8, 8)) * bitpack_mask).sum(2).squeeze().type(torch.uint8)

    # Convert uint8s into uint64s.
    hh_uint64 = hh_uint8.view(torch.int64).squeeze()

    return hh_uint64


def decode(hilberts: Tensor, num_dims: int, num_bits: int) -> Tensor:
    r"""Decode Hilbert curve indices back into integer grid coordinates.

    Args:
        hilberts: Hilbert indices $(N,)$.
        num_dims: Number of dimensions of the grid.
        num_bits: Number of bits per dimension. `num_dims` times `num_bits` must fit in an `int64`.

    Returns:
        The integer coordinates, shape $(N, \text{num\_dims})$ and dtype `int64`.
    """
    if num_dims * num_bits > 63:
        raise ValueError(
            f"Got num_dims={num_dims} and num_bits={num_bits} for {num_dims * num_bits} bits total, "
            "which can't be encoded into a int64. Are you sure you need that many points on your Hilbert curve?"
        )

    # Handle the case where we got handed a naked integer.
    hilberts = torch.atleast_1d(hilberts)

    # Keep around the shape for later.
    orig_shape = hilberts.shape
    bitpack_mask = 2 ** torch.arange(0, 8).to(hilberts.device)
    bitpack_mask_rev = bitpack_mask.flip(-1)

    # Treat each of the hilberts as a s equence of eight uint8.
    # This treats all of the inputs as uint64 and makes things uniform.
    hh_uint8 = hilberts.ravel().type(torch.int64).view(torch.uint8).reshape((-1, 8)).flip(-1)

    # Turn these lists of uints into lists of bits and then truncate to the size
    # we actually need for using Skilling's procedure.
    hh_bits = (
        hh_uint8.unsqueeze(-1).bitwise_and(bitpack_mask_rev).ne(0).byte().flatten(-2, -1)[:, -num_dims * num_bits :]
    )

    # Take the sequence of bits and Gray-code it.
    gray = binary2gray(hh_bits)

    # There has got to be a better way to do this.
    # I could index them differently, but the eventual packbits likes it this way.
    gray = gray.reshape((-1, num_bits, num_dims)).swapaxes(1, 2)

    # Iterate backwards through the bits.
    for bit in range(num_bits - 1, -1, -1):
        # Iterate backwards through the dimensions.
        for dim in range(num_dims - 1, -1, -1):
            # Identify which ones have this bit active.
            mask = gray[:, dim, bit]

            # Where this bit is on, invert the 0 dimension for lower bits.
            gray[:, 0, bit + 1 :] = torch.logical_xor(gray[:, 0, bit + 1 :], mask[:, None])

            # Where the bit is off, exchange the lower bits with the 0 dimension.
            to_flip = torch.logical_and(
                torch.logical_not(mask[:, None]),
                torch.logical_xor(gray[:, 0, bit + 1 :], gray[:, dim, bit + 1 :]),
            )
            gray[:, dim, bit + 1 :] = torch.logical_xor(gray[:, dim, bit + 1 :], to_flip)
            gray[:, 0, bit + 1 :] = torch.logical_xor(gray[:, 0, bit + 1 :], to_flip)

    # Pad back out to 64 bits.
    extra_dims = 64 - num_bits
    padded = torch.nn.functional.pad(gray, (extra_dims, 0), "constant", 0)

    # Now chop these up into blocks of 8.
    locs_chopped = padded.flip(-1).reshape((-1, num_dims, 8, 8))

    # Take those blocks and turn them unto uint8s.
    locs_uint8 = (locs_chopped * bitpack_mask).sum(3).squeeze().type(torch.uint8)

    # Finally, treat these as uint64s.
    flat_locs = locs_uint8.view(torch.int64)

    # Return them in the expected shape.
    return flat_locs.reshape((*orig_shape, num_dims))
