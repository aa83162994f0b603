# utils.py
# Author: Jacob Schreiber <jmschreiber91@gmail.com>

from __future__ import annotations

import os
import json
import math
import random
import warnings
import functools
import contextlib
from typing import Any

import numpy
import numba
import pandas
import torch

from tqdm import tqdm


class TangermemeWarning(UserWarning):
	"""A category for warnings emitted by tangermeme so callers can filter on
	`tangermeme.utils.TangermemeWarning` specifically (e.g. via
	`warnings.simplefilter('error', TangermemeWarning)`)."""


def _warn_or_raise(
	error: type[Exception],
	message: str,
	only_warn: bool,
) -> None:
	if only_warn:
		warnings.warn(message, TangermemeWarning, stacklevel=3)
	else:
		raise error(message)

def _validate_input(
	X: torch.Tensor,
	name: str,
	shape: tuple[int, ...] | None = None,
	dtype: torch.dtype | None = None,
	min_value: float | None = None,
	max_value: float | None = None,
	ohe: bool = False,
	ohe_dim: int = 1,
	allow_N: bool = False,
	only_warn: bool = False,
) -> torch.Tensor:
	"""An internal function for validating properties of the input.
	
	This function will take in an object and verify characteristics of it, such
	as the type, the datatype of the elements, its shape, etc. If any of these
	characteristics are not met, a warning or error will be raised.
	
	
	Parameters
	----------
	X: torch.Tensor
		The object to be verified.
	
	name: str
		The name to reference the tensor by if an error is raised.
	
	shape: tuple or None, optional
		The shape the tensor must have. If a -1 is provided at any axis, that
		position is ignored.  If not provided, no check is performed. Default is
		None.
	
	dtype: torch.dtype or None, optional
		The dtype the tensor must have. If not provided, no check is performed.
		Default is None.
	
	min_value: float or None, optional
		The minimum value that can be in the tensor, inclusive. If None, no
		check is performed. Default is None.
	
	max_value: float or None, optional
		The maximum value that can be in the tensor, inclusive. If None, no
		check is performed. Default is None.
	
	ohe: bool, optional
		Whether the input must be a one-hot encoding, i.e., only consist of
		zeroes and ones. Default is False.

	ohe_dim: int, optional
		When `ohe=True`, the axis along which the one-hot encoding should sum
		to 1 (or, with `allow_N=True`, sum to at most 1). Default is 1.

	allow_N: bool, optional
		Whether to allow the return of the character 'N' in the sequence, i.e.
		if pwm at a position is all 0's return N. Default is False.
	
	only_warn: bool, optional
		Whether to only warn when a violation is recorded instead of raise a
		terminating error. This allows users to indicate that they know what they
		are doing. Default is False.
	
	
	Returns
	-------
	X: torch.Tensor
		The same object, unmodified, for convenience.
	"""
	
	if isinstance(X, PackedSequence):
		return _validate_packed(X, name, shape, dtype, min_value, max_value,
			ohe, ohe_dim, allow_N, only_warn)

	if not isinstance(X, torch.Tensor):
		_warn_or_raise(ValueError, "{} must be a torch.Tensor object".format(
			name), only_warn)
	
	if shape is not None:
		msg = "{} has shape {} but must have shape {}".format(
			name, X.shape, shape) 
		
		if len(shape) != len(X.shape):
			_warn_or_raise(ValueError, msg, only_warn)
	
		for i in range(len(shape)):
			if shape[i] != -1 and shape[i] != X.shape[i]:
				_warn_or_raise(ValueError, msg, only_warn)
	
	if dtype is not None and X.dtype != dtype:
		_warn_or_raise(ValueError, "{} has dtype {} but must have dtype {}".format(
			name, X.dtype, dtype), only_warn)
	
	if min_value is not None and X.min() < min_value:
		_warn_or_raise(ValueError, "{} cannot have a value below {}".format(
			name, min_value), only_warn)
	
	if max_value is not None and X.max() > max_value:
		_warn_or_raise(ValueError, "{} cannot have a value above {}".format(
			name, max_value), only_warn)
	
	if ohe:
		msg = "{} must be one-hot encoded".format(name)

		# Elementwise rather than with `torch.unique`, which sorts all of X.
		if not torch.all((X == 0) | (X == 1)):
			_warn_or_raise(ValueError, msg + ".", only_warn)

		if allow_N:
			if not torch.all(torch.sum(X, axis=ohe_dim) <= 1):
				_warn_or_raise(ValueError, msg + " and contain unknown"
					" characters as all-zeroes.", only_warn)
		else:
			if not torch.all(X.sum(axis=ohe_dim) == 1):
				_warn_or_raise(ValueError, msg + " and cannot have unknown"
					" characters.", only_warn)

	return X


def _validate_packed(X, name, shape, dtype, min_value, max_value, ohe,
	ohe_dim, allow_N, only_warn):
	"""The checks of `_validate_input` for a PackedSequence, which decodes to
	a one-hot encoding of any dtype, and so of values 0 and 1, without reading
	its bytes."""

	if shape is not None and (len(shape) != X.ndim or any(s != -1 and s != x
		for s, x in zip(shape, X.shape))):
		_warn_or_raise(ValueError, "{} has shape {} but must have shape {}"
			.format(name, tuple(X.shape), shape), only_warn)

	if dtype is not None:
		_warn_or_raise(ValueError, "{} is a PackedSequence but must be a tensor "
			"with dtype {}".format(name, dtype), only_warn)

	if min_value is not None and min_value > 0:
		_warn_or_raise(ValueError, "{} cannot have a value below {}".format(
			name, min_value), only_warn)

	if max_value is not None and max_value < 1:
		_warn_or_raise(ValueError, "{} cannot have a value above {}".format(
			name, max_value), only_warn)

	# The characters of a PackedSequence are its second-to-last axis, so a
	# one-hot check along another axis, such as the default axis 1, needs
	# exactly one batch axis, as the same check on a tensor does.
	if ohe and ohe_dim % X.ndim != X.ndim - 2:
		_warn_or_raise(ValueError, "{} has shape {} but must have shape {}"
			.format(name, tuple(X.shape), (-1, len(X.alphabet), -1)), only_warn)

	if ohe and not allow_N and len(X.n_runs) > 0:
		_warn_or_raise(ValueError, "{} must be one-hot encoded and cannot have "
			"unknown characters.".format(name), only_warn)

	return X


def _check_one_batch_axis(X, name="X"):
	"""Raise unless `X`, when a PackedSequence, has exactly one batch axis,
	as functions that take X of shape (-1, len(alphabet), length) need."""

	if isinstance(X, PackedSequence) and X.data.ndim != 2:
		raise ValueError("{} has shape {} but must have shape {}".format(name,
			tuple(X.shape), (-1, len(X.alphabet), -1)))


def _check_packable(return_packed, n_chars, name):
	"""Raise when `return_packed` asks to pack `name`, whose alphabet has
	`n_chars` characters rather than the four a PackedSequence holds."""

	if return_packed and n_chars != 4:
		raise ValueError("return_packed=True needs an alphabet of four "
			"characters, but {} has {}.".format(name, n_chars))


# The functions marked by _accepts_packed, by id. An attribute would be
# copied by functools.wraps onto a wrapper that may not take a
# PackedSequence; holding the functions keeps their ids from being reused.
_PACKED_FUNCS = {}


def _accepts_packed(func):
	"""Mark `func` as taking a PackedSequence as `X`, so that a function
	given it as `func` can pass a PackedSequence on rather than decode it."""

	_PACKED_FUNCS[id(func)] = func
	return func


def _for_func(X, func):
	"""Return `X` as `func` should be given it: a PackedSequence when `func`,
	or the function a functools.partial wraps, was marked by
	`_accepts_packed`, and otherwise its int8 one-hot encoding."""

	if not isinstance(X, PackedSequence):
		return X

	inner = func
	while isinstance(inner, functools.partial):
		inner = inner.func

	return X if _PACKED_FUNCS.get(id(inner)) is inner else X.to_one_hot()


def validate_input(
	X: torch.Tensor,
	name: str = "input",
	shape: tuple[int, ...] | None = None,
	dtype: torch.dtype | None = None,
	min_value: float | None = None,
	max_value: float | None = None,
	ohe: bool = False,
	ohe_dim: int = 1,
	allow_N: bool = False,
	only_warn: bool = False,
) -> torch.Tensor:
	"""Public wrapper around the input-validation routine.

	Forwards every argument to `_validate_input`. Use this when you want to
	pre-flight your own tensor against the same shape / dtype / one-hot /
	value-range checks the library applies internally; with `only_warn=True`
	you can get a non-raising mode that emits a `TangermemeWarning` instead.
	`X` can be a PackedSequence, which is checked without reading its bytes.
	"""

	return _validate_input(
		X, name, shape=shape, dtype=dtype, min_value=min_value,
		max_value=max_value, ohe=ohe, ohe_dim=ohe_dim, allow_N=allow_N,
		only_warn=only_warn,
	)


def _cast_as_tensor(
	value: Any,
	dtype: torch.dtype | None = None,
) -> torch.Tensor | None:
	"""Cast your input as a torch tensor.

	This function will take some array-like input and cast it as a torch
	tensor with optionally a desired dtype. If X is already a torch datatype,
	ensure that the dtype matches.


	Parameters
	----------
	value: array-like
		An array-like object to be cast into a torch.tensor

	dtype: torch.dtype or None, optional
		A torch dtype to cast the values in the torch.tensor to. If None, do not
		do casting. Default is None.


	Returns
	-------
	value: torch.tensor
		A tensor that has been created from the array-like with the provided
		dtype.
	""" 

	if value is None:
		return None

	_tdtype = (torch.nn.Parameter, torch.Tensor, torch.masked.MaskedTensor)
	if isinstance(value, _tdtype):
		if dtype is None:
			return value
		elif value.dtype == dtype:
			return value
		else:
			return value.type(dtype)
			
	if isinstance(value, list):
		if all(isinstance(v, numpy.ndarray) for v in value):
			value = numpy.array(value)
		
	if isinstance(value, (float, int, list, tuple, numpy.ndarray)):
		if dtype is None:
			return torch.tensor(value)
		else:
			return torch.tensor(value, dtype=dtype)


def example_to_fasta_coords(
	example_df: pandas.DataFrame,
	loci_df: pandas.DataFrame,
	window: int | None = None,
	one_indexed: bool = False,
) -> pandas.DataFrame:
	"""Converts coordinates within a given example to those in a FASTA file.
	
	Many analyses involve extracting windows from the genome and processing them
	independently. When coordinates are identified on these windows, e.g.,
	seqlets or other spans, all that is recorded is the example index and the
	relative positions from the start of the extracted window. Frequently, though,
	one wants to know these coordinates on the original genome or other entity
	encoded in a FASTA file. This function cross-references the example indexes
	and BED-formatted locus file that the examples were extracted from to get
	the coordinates on the original sequence.
	
	This cross-referencing has several steps.
	
		(1) For each span in `example_df` pull out the chrom, start, and end
		positions in `loci_df`. If `window` is provided, do not use the start and
		end in the file but, rather, extract a window centered on the middle of the
		provided coordinates.
		
		(2) Use the chrom directly, and add the start and end coordinates to the
		start of the extracted window from step (1).
	
	This function assumes by default that `example_df` is zero-indexed, in the 
	sense that the minimum start is 0. When doing the conversion, the start and
	end are simply added to the value in `loci_df`. This means that `loci_df` can
	be either zero- or one-indexed and the resulting df will match this indexing.
	If `example_df` is one-indexed, use the optional parameter.
	
	
	Parameters
	----------
	example_df: pandas.DataFrame
		A BED-formatted dataframe where the first three columns must be the example
		index, the start, and the end coordinates. It does not matter what these
		columns are named, and there can be additional columns past these.
	
	loci_df: pandas.DataFrame
		A BED-formatted dataframe where the first three columns must be the example
		index, the start, and the end coordinates. It does not matter what these
		columns are named, and there can be additional columns past these.
		
		NOTE: some processing steps may skip over elements in BED files and return
		a tensor with fewer elements than there are entries in the original BED
		file. Please check to make sure this has not happened, or everything will
		be misaligned.
	
	window: int or None, optional
		If None, use the start and end coordinates in `loci_df` directly. If an
		integer, these start and end coordinates will be replaced with a window
		centered on the middle of these original coordinates that spans this
		window length. This is useful when processing methods extracted windows
		of uniform length from a peak file, regardless of the length of that
		peak. Default is None.
		
	one_indexed: bool, optional
		Whether `example_df` is one-indexed. If it were one-indexed, the smallest
		start value would be 1 and so 1 would have to be subtracted from each
		correction. If False, assumes that the smallest start value is 0 and no
		change needs to be made. Default is False.
		
	
	Returns
	-------
	coords_df: pandas.DataFrame
		A dataframe of corrected coordinates where the first three columns are
		chrom, start, and end, and correspond to the same coordinate system as
		in `loci_df`. Put another way, if `loci_df` contains peaks on a reference
		genome, this returned file will now contain coordinates on that reference.
		The names of the first three columns will be replaced with the names of the
		first three columns in `loci_df`, and all other columns in the file will
		be left unchanged.
	"""
	
	loci_chroms = loci_df.iloc[:, 0].values
	loci_starts = loci_df.iloc[:, 1].values
	loci_ends = loci_df.iloc[:, 2].values
	
	if window is not None:
		mid = (loci_ends + loci_starts) // 2
		
		loci_starts = mid - window // 2
		loci_ends = mid + window // 2 + window % 2
	
	coords_ = example_df.iloc[:, :3].values
	idxs = coords_[:, 0]
	
	example_chroms = loci_chroms[idxs]
	example_starts = loci_starts[idxs] + coords_[:, 1] - one_indexed
	example_ends = loci_starts[idxs] + coords_[:, 2] - one_indexed
	
	names = loci_df.columns[:3]
	key_map = dict(zip(example_df.columns[:3], names))
	coords_df = example_df.copy()
	coords_df = coords_df.rename(key_map, axis='columns')
	coords_df[names[0]] = example_chroms
	coords_df[names[1]] = example_starts
	coords_df[names[2]] = example_ends
	return coords_df


def characters(
	pwm: torch.Tensor | numpy.ndarray | PackedSequence,
	alphabet: list[str] | tuple[str, ...] = ['A', 'C', 'G', 'T'],
	force: bool = False,
	allow_N: bool = False,
) -> str:
	"""Converts a PWM/one-hot encoding to a string sequence.

	This function takes in a PWM or one-hot encoding and converts it to the
	most likely sequence. When the input is a one-hot encoding, this is the
	opposite of the `one_hot_encoding` function.


	Parameters
	----------
	pwm: torch.tensor or numpy.ndarray, shape=(len(alphabet), seq_len), or PackedSequence
		A numeric representation of the sequence. This can be one-hot encoded
		or contain numeric values. These numerics can be probabilities but can
		also be frequencies.
		A PackedSequence of one sequence is read from its character indices
		with its own alphabet, an unknown character becoming N under `allow_N`
		and the first character under `force`, as an all-zero column of a
		one-hot encoding does.

	alphabet : list or tuple
		A pre-defined alphabet where the ordering of the symbols is the same
		as the index into the returned tensor. This is used to determine the
		letters in the returned sequence. Default is the DNA alphabet.

	force: bool, optional
		Whether to force a sequence to be produced even when there are ties.
		At each position that there is a tie, the character earlier in the
		sequence will be used. Default is False.
  
	allow_N: bool, optional
		Whether to allow the return of the character 'N' in the sequence, i.e.
		if pwm at a position is all 0's return N. Default is False.


	Returns
	-------
	seq: str
		A string where the length is the second dimension of PWM.
	"""
 
	if isinstance(pwm, PackedSequence):
		if pwm.ndim == 3 and pwm.shape[0] == 1:
			pwm = pwm[0]

		if pwm.ndim != 2:
			raise ValueError("A PackedSequence must hold one sequence.")

		codes = pwm.to_codes().numpy()
		if (codes == 4).any() and not allow_N and not force:
			raise ValueError("At least one position in the PWM has multiple " +
				"letters with the same probability.")

		chars = numpy.array(list(pwm.alphabet) + ['N' if allow_N else
			pwm.alphabet[0]])
		return ''.join(chars[codes])

	if isinstance(pwm, numpy.ndarray):
		pwm = torch.from_numpy(numpy.ascontiguousarray(pwm))

	#if (batch, alphabet_size, motif_size) and batch = 1, remove batch axis
	if len(pwm.shape) == 3 and pwm.shape[0] == 1:
		pwm = pwm[0]

	if len(pwm.shape) != 2:
		raise ValueError("PWM must have two dimensions where the " +
			"first dimension is the length of the alphabet and the second " +
			"dimension is the length of the sequence.")

	if pwm.shape[0] != len(alphabet):
		raise ValueError("PWM must have the same alphabet size as the " +
			"provided alphabet.")

	pwm_ismax = pwm == pwm.max(dim=0, keepdims=True).values
	if pwm_ismax.sum(axis=0).max() > 1 and force == False and allow_N == False:
		raise ValueError("At least one position in the PWM has multiple " +
			"letters with the same probability.")

	alphabet = numpy.array(alphabet)
	if isinstance(pwm, torch.Tensor):
		pwm = pwm.numpy(force=True)

	if allow_N:
		n_inds = numpy.where(pwm.sum(axis=0)==0)[0]
		dna_chars = alphabet[pwm.argmax(axis=0)]
		dna_chars[n_inds] = 'N'
	else:
		dna_chars = alphabet[pwm.argmax(axis=0)]
	
	return ''.join(dna_chars)


@functools.lru_cache(maxsize=64)
def _one_hot_encode_mapping(alphabet, ignore):
	"""The byte lookup tables of one_hot_encode, built once per alphabet.

	`alphabet` and `ignore` are the joined strings. Each UTF-8 byte of a
	character in `alphabet` maps to that character's index, each byte of a
	character in `ignore` to -1, and every other byte to -2. When `alphabet`
	is four ASCII characters and `ignore` is ASCII, the second table holds,
	for each byte, the four int8 values of its row read as one uint32, and
	0xFFFFFFFF for a byte that maps to -2, and the third table holds, for
	each pair of bytes read as the uint16 they make in memory, the eight
	values of their two rows read as one uint64; otherwise both are None. A
	row of a character has no bit set above the lowest bit of each byte, so
	OR-ing the values of a sequence sets the highest bit of a row only when
	one of its bytes maps to -2. The tables are shared between calls and
	must not be written to.

	The tables map one byte to one character, which holds only for ASCII, so
	a character of `alphabet` or `ignore` that is not ASCII raises a
	ValueError. Checking here rather than in one_hot_encode means the check
	runs only when the tables are built. A call that raises is not cached,
	so the error is raised on every call.
	"""

	for chars, name in ((alphabet, "the alphabet"),
			(ignore, "the list of ignored characters")):
		if isinstance(chars, str) and not chars.isascii():
			char = next(char for char in chars if not char.isascii())
			raise ValueError("Character {} in {} is not ASCII.".format(char,
				name))

	e = "utf8"
	alpha_idxs = numpy.frombuffer(bytearray(alphabet, e), dtype=numpy.int8)
	ignore_idxs = numpy.frombuffer(bytearray(ignore, e), dtype=numpy.int8)

	one_hot_mapping = numpy.zeros(256, dtype=numpy.int8) - 2
	for i, idx in enumerate(alpha_idxs):
		one_hot_mapping[idx] = i

	for i, idx in enumerate(ignore_idxs):
		one_hot_mapping[idx] = -1

	patterns, pairs = None, None
	if len(alphabet) == 4 and alphabet.isascii() and ignore.isascii():
		rows = numpy.zeros((256, 4), dtype=numpy.int8)
		for byte in range(256):
			if one_hot_mapping[byte] >= 0:
				rows[byte, one_hot_mapping[byte]] = 1

		patterns = rows.view(numpy.uint32).reshape(256).copy()
		patterns[one_hot_mapping == -2] = 0xFFFFFFFF

		# Byte k of the key is the k-th base in memory, whichever the byte
		# order of the machine.
		keys = numpy.arange(65536, dtype=numpy.uint16).view(numpy.uint8)
		keys = keys.reshape(65536, 2)
		rows = patterns.view(numpy.uint8).reshape(256, 4)
		pairs = numpy.concatenate([rows[keys[:, 0]], rows[keys[:, 1]]],
			axis=1).view(numpy.uint64).reshape(65536)

	return one_hot_mapping, patterns, pairs


@numba.njit(numba.uint32(numba.int8[:, ::1],
	numba.types.Bytes(numba.uint8, 1, 'C', readonly=True), numba.uint32[::1]),
	cache=True)
def _fast_one_hot_encode_rows4(X_ohe, seq, patterns):
	"""Write each row of a four-character one-hot encoding as one uint32.

	Row i of the (n, 4) int8 array `X_ohe`, read as one uint32, is
	`patterns[seq[i]]` for every row, where `seq` holds at least n bytes, so
	every element is written. The OR of those values is returned; its
	highest bit is set when one of the bytes is a character in neither the
	alphabet nor the ignored characters, and the rows are then not an
	encoding. Taking the bytes and the array themselves saves the views a
	caller would make, which cost more than encoding a short sequence.
	"""

	X32 = X_ohe.view(numpy.uint32)
	seen = numba.uint32(0)
	for i in range(X_ohe.shape[0]):
		row = patterns[seq[i]]
		X32[i, 0] = row
		seen |= row

	return seen


@numba.njit(numba.uint64(numba.uint64[::1],
	numba.types.Array(numba.uint16, 1, 'C', readonly=True), numba.uint64[::1],
	numba.int64, numba.int64), cache=True)
def _fast_one_hot_encode_pairs4(X_ohe, seq, pairs, begin, end):
	"""Write two rows of a four-character one-hot encoding as one uint64.

	`X_ohe` holds rows 2i and 2i + 1 of an (n, 4) int8 array as its value i,
	and `seq` the bytes of bases 2i and 2i + 1 as its value i, and value i is
	`pairs[seq[i]]` for `begin <= i < end`. The OR of those values is
	returned, as `_fast_one_hot_encode_rows4` returns it for each half.
	"""

	seen = numba.uint64(0)
	for i in range(begin, end):
		i = numba.uint64(i)
		row = pairs[seq[i]]
		X_ohe[i] = row
		seen |= row

	return seen


# The fewest bases one_hot_encode encodes two at a time. Below it the views
# the pairs need cost more than they save.
_ONE_HOT_PAIRS_MIN = 2**13

# The fewest bases one_hot_encode splits across threads.
_ONE_HOT_PARALLEL_MIN = 2**18


# No signature, for the reason given at _fast_one_hot_encode_fasta_parallel.
@numba.njit(parallel=True, cache=True)
def _fast_one_hot_encode_pairs4_parallel(X_ohe, seq, pairs, n_chunks):
	"""`_fast_one_hot_encode_pairs4` over every value, in `n_chunks` chunks.

	The chunks are contiguous runs of values encoded on numba's threads, and
	the OR of what they return is returned.
	"""

	n = X_ohe.shape[0]
	seen = numpy.empty(n_chunks, dtype=numpy.uint64)
	for chunk in numba.prange(n_chunks):
		seen[chunk] = _fast_one_hot_encode_pairs4(X_ohe, seq, pairs,
			chunk * n // n_chunks, (chunk + 1) * n // n_chunks)

	out = numba.uint64(0)
	for chunk in range(n_chunks):
		out |= seen[chunk]

	return out


@numba.njit("void(int8[:, :], int8[:], int8[:])", cache=True)
def _fast_one_hot_encode(X_ohe, seq, mapping):
	"""An internal function for quickly converting bytes to one-hot indexes."""

	for i in range(len(seq)):
		idx = mapping[seq[i]]
		if idx == -1:
			continue

		if idx == -2:
			raise ValueError("Encountered character that is not in " + 
				"`alphabet` or in `ignore`.")
			
		X_ohe[i, idx] = 1


def one_hot_encode(
	sequence: str,
	alphabet: list[str] | tuple[str, ...] = ['A', 'C', 'G', 'T'],
	dtype: str | torch.dtype = torch.int8,
	ignore: list[str] = ['N'],
	desc: str | None = None,
	verbose: bool = False,
	n_jobs: int = 1,
	return_packed: bool = False,
	**kwargs: Any,
) -> torch.Tensor | PackedSequence:
	"""Converts a string into a one-hot encoding.

	This function will take in a string and convert it into a one-hot
	encoding. Each character is assumed to be a different symbol, e.g. 'ACGT'
	is assumed to be a sequence of four characters.

	Although this function will be used here primarily to convert nucleotide
	sequences into one-hot encoding with an alphabet of size 4, in principle
	this function can be used for any types of sequences.

	Parameters
	----------
	sequence : str
		The sequence to convert to a one-hot encoding. Anything other than a
		string, such as a list of characters, raises a TypeError.

	alphabet : list, tuple, or str
		A pre-defined alphabet where the ordering of the symbols is the same
		as the index into the returned tensor, i.e., for the alphabet ['A', 'B']
		the returned tensor will have a 1 at index 0 if the character was 'A'.
		A character that is in neither `alphabet` nor `ignore` raises a
		ValueError. Every character of `alphabet` must be ASCII, and one that
		is not raises a ValueError. Default is ['A', 'C', 'G', 'T'].

	dtype : str or torch.dtype, optional
		The data type of the returned encoding. Default is int8.

	ignore: list, optional
		A list of characters to ignore in the sequence, meaning that no bits
		are set to 1 in the returned one-hot encoding. Put another way, the
		sum across characters is equal to 1 for all positions except those
		where the original sequence is in this list. Every character of
		`ignore` must be ASCII, as in `alphabet`. Default is ['N'].

	n_jobs: int, optional
		The number of threads a long sequence is encoded with, or -1 for one
		per CPU, capped by numba's NUMBA_NUM_THREADS. Only an alphabet of four
		ASCII characters, such as the default, is split across threads, and
		only for sequences of at least 262,144 characters. The returned
		encoding does not depend on it. Default is 1.

	return_packed: bool, optional
		Whether to return the sequence as a PackedSequence of one sequence,
		with the characters in `ignore` as unknown characters, rather than a
		one-hot encoding. The characters are looked up into their indices
		without building the one-hot encoding. Needs an alphabet of four
		characters. Default is False.

	Returns
	-------
	ohe : torch.Tensor or PackedSequence
		A binary tensor of shape (alphabet_size, sequence_length) where
		alphabet_size is the number of unique elements in the sequence and
		sequence_length is the length of the input sequence, or a
		PackedSequence of that shape.
	"""

	for char in ignore:
		if char in alphabet:
			raise ValueError("Character {} in the alphabet ".format(char) + 
				"and also in the list of ignored characters.")

	if isinstance(alphabet, (list, tuple)):
		alphabet = ''.join(alphabet)

	ignore = ''.join(ignore)

	# A sequence that is not a str raises bytearray's TypeError before the
	# alphabet is read.
	e = "utf8"
	if not isinstance(sequence, str):
		bytearray(sequence, e)

	# Only a str alphabet is hashable for the cache.
	if isinstance(alphabet, str):
		one_hot_mapping, patterns, pairs = _one_hot_encode_mapping(alphabet,
			ignore)
	else:
		one_hot_mapping, patterns, pairs = _one_hot_encode_mapping.__wrapped__(
			alphabet, ignore)

	n, m = len(sequence), len(alphabet)

	_check_packable(return_packed, m, "the alphabet")
	if return_packed:
		codes = one_hot_mapping[numpy.frombuffer(bytearray(sequence, e),
			dtype=numpy.uint8)]
		if (codes == -2).any():
			raise ValueError("Encountered character that is not in " +
				"`alphabet` or in `ignore`.")

		codes[codes == -1] = 4
		return PackedSequence.from_codes(torch.from_numpy(codes), tuple(
			alphabet))

	# A character that is not ASCII is in neither list, so it raises the
	# byte-wise path's error, after the same UTF-8 encoding.
	if patterns is not None:
		try:
			seq_bytes = sequence.encode('ascii')
		except UnicodeEncodeError:
			bytearray(sequence, e)
			seq_bytes = None

		one_hot_encoding = numpy.empty((n, m), dtype=numpy.int8)
		if seq_bytes is None:
			seen = 0x80000000
		elif n < _ONE_HOT_PAIRS_MIN:
			seen = _fast_one_hot_encode_rows4(one_hot_encoding, seq_bytes,
				patterns)
		else:
			n_pairs = n // 2
			X64 = one_hot_encoding.reshape(-1)[:8 * n_pairs].view(
				numpy.uint64)
			seq16 = numpy.frombuffer(seq_bytes, dtype=numpy.uint16,
				count=n_pairs)

			n_threads = numba.config.NUMBA_NUM_THREADS if n_jobs == -1 \
				else min(int(n_jobs), numba.config.NUMBA_NUM_THREADS)
			if n >= _ONE_HOT_PARALLEL_MIN and n_threads > 1:
				with _numba_threads(n_threads):
					seen = _fast_one_hot_encode_pairs4_parallel(X64, seq16,
						pairs, n_threads)
			else:
				seen = _fast_one_hot_encode_pairs4(X64, seq16, pairs, 0,
					n_pairs)

			seen = (seen | seen >> 32) & 0xFFFFFFFF
			if n % 2 == 1:
				seen |= _fast_one_hot_encode_rows4(one_hot_encoding[n - 1:],
					seq_bytes[n - 1:], patterns)

		if seen & 0x80000000:
			raise ValueError("Encountered character that is not in " +
				"`alphabet` or in `ignore`.")
	else:
		seq_idxs = numpy.frombuffer(bytearray(sequence, e), dtype=numpy.int8)
		one_hot_encoding = numpy.zeros((n, m), dtype=numpy.int8)
		_fast_one_hot_encode(one_hot_encoding, seq_idxs, one_hot_mapping)

	# A transposed view, of stride (1, m), which .type() keeps.
	one_hot_encoding = torch.from_numpy(one_hot_encoding.T)
	if dtype is torch.int8:
		return one_hot_encoding

	return one_hot_encoding.type(dtype)


@contextlib.contextmanager
def _numba_threads(n_jobs):
	"""Run numba's parallel kernels on at most `n_jobs` threads, or on one
	per thread numba allows when -1.

	The count is capped by NUMBA_NUM_THREADS, above which numba raises, and
	the caller's count is restored afterwards, including when the body
	raises.
	"""

	n_max = numba.config.NUMBA_NUM_THREADS
	previous = numba.get_num_threads()
	numba.set_num_threads(n_max if n_jobs == -1 else max(1, min(int(n_jobs),
		n_max)))
	try:
		yield
	finally:
		numba.set_num_threads(previous)


# The rows each thread of the parallel one-hot kernel takes at a time. A call
# on fewer rows, or with one thread, runs the serial kernel directly.
_ROWS_PER_TASK = 64


@numba.njit(numba.int64(numba.int8[:, :, ::1],
	numba.types.Array(numba.uint8, 1, 'C', readonly=True),
	numba.int64[::1], numba.int64[::1], numba.int64[::1], numba.int64[::1],
	numba.int8[::1], numba.int64, numba.int64), cache=True)
def _fast_one_hot_encode_fasta(X_ohe, fasta, starts, offsets, line_bases,
	line_bytes, mapping, begin, end):
	"""An internal function that one-hot encodes windows of a fasta file.

	`fasta` holds the bytes of an uncompressed fasta file. Row i of `X_ohe`,
	shape (n_characters, length), receives bases `[starts[i], starts[i] +
	length)` of a record whose first base is at byte `offsets[i]` and whose
	lines each hold `line_bases[i]` bases followed by `line_bytes[i] -
	line_bases[i]` line-end bytes, as in a .fai index, for rows `begin <= i <
	end`. The line ends are skipped and each base byte is looked up in
	`mapping`.

	A window's bases are what pyfaidx returns for it only when every line-end
	byte that pyfaidx reads, including the one before a window that starts a
	line and the one after a window that ends a line, is a newline or a
	carriage return, and no base byte is, since pyfaidx removes both from
	what it reads. It also reads bytes outside ASCII as UTF-8. So `mapping`
	gives -3 for newlines, carriage returns and bytes of 128 or more, and -2
	is returned as soon as a window breaks one of these conditions or runs
	past the end of `fasta`, and nothing that was written can be used.
	Otherwise the index of the first row with a byte that maps to -2, a
	character in neither the alphabet nor the ignored characters, is
	returned, or -1 when there is none. Every element of every other row is
	written, so `X_ohe` does not need to be zeroed beforehand.

	Equal-length strings joined into `fasta` are encoded as the windows of a
	record on one line, with a `mapping` that has no -3.
	"""

	m, length = X_ohe.shape[1], X_ohe.shape[2]
	size = fasta.shape[0]
	idxs = numpy.empty(length, dtype=numpy.int8)
	first_invalid = -1

	for i in range(begin, end):
		start = starts[i]
		lenc = line_bases[i]
		lenb = line_bytes[i]
		n_end = lenb - lenc

		line = start // lenc
		col = start - line * lenc
		pos = offsets[i] + line * lenb + col

		last = start + length - 1
		if offsets[i] + (last // lenc) * lenb + last % lenc >= size:
			return -2

		if col == 0 and start > 0:
			for k in range(pos - n_end, pos):
				if fasta[k] != 10 and fasta[k] != 13:
					return -2

		# An int64 minimum or signed indices make this loop several times
		# slower.
		low = numpy.int8(0)
		j = 0
		while j < length:
			width = min(lenc - col, length - j)
			for t in range(width):
				idx = mapping[fasta[numba.uint64(pos + t)]]
				low = min(low, idx)
				idxs[numba.uint64(j + t)] = idx

			j += width
			pos += width
			col += width
			if col == lenc:
				for k in range(pos, min(pos + n_end, size)):
					if fasta[k] != 10 and fasta[k] != 13:
						return -2

				pos += n_end
				col = 0

		if low == -3:
			return -2

		if low == -2:
			if first_invalid < 0:
				first_invalid = i
			continue

		for k in range(m):
			for j in range(length):
				X_ohe[i, k, j] = idxs[j] == k

	return first_invalid


# No signature, so that importing tangermeme does not load this and start
# numba's thread pool, which slows calls on one thread.
@numba.njit(parallel=True, cache=True)
def _fast_one_hot_encode_fasta_parallel(X_ohe, fasta, starts, offsets,
	line_bases, line_bytes, mapping):
	"""`_fast_one_hot_encode_fasta` over every row, on numba's threads.

	Each thread encodes blocks of `_ROWS_PER_TASK` rows. The result is the
	one a single call over every row returns: -2 when any window must be read
	through pyfaidx, and otherwise the first row with a character that maps
	to -2, or -1.
	"""

	n = X_ohe.shape[0]
	n_tasks = (n + _ROWS_PER_TASK - 1) // _ROWS_PER_TASK
	statuses = numpy.empty(n_tasks, dtype=numpy.int64)

	for task in numba.prange(n_tasks):
		statuses[task] = _fast_one_hot_encode_fasta(X_ohe, fasta, starts,
			offsets, line_bases, line_bytes, mapping, task * _ROWS_PER_TASK,
			min(n, (task + 1) * _ROWS_PER_TASK))

	first_invalid = -1
	for task in range(n_tasks):
		if statuses[task] == -2:
			return -2

		if statuses[task] >= 0 and first_invalid == -1:
			first_invalid = statuses[task]

	return first_invalid


def _one_hot_encode_fasta(X_ohe, fasta, starts, offsets, line_bases,
	line_bytes, mapping, n_jobs=1):
	"""`_fast_one_hot_encode_fasta` over every row, on up to `n_jobs` threads.

	The result, and every row that is written, are the same for every
	`n_jobs`.
	"""

	n = X_ohe.shape[0]
	if n <= _ROWS_PER_TASK or min(int(n_jobs),
			numba.config.NUMBA_NUM_THREADS) <= 1:
		return _fast_one_hot_encode_fasta(X_ohe, fasta, starts, offsets,
			line_bases, line_bytes, mapping, 0, n)

	with _numba_threads(n_jobs):
		return _fast_one_hot_encode_fasta_parallel(X_ohe, fasta, starts,
			offsets, line_bases, line_bytes, mapping)


def _one_hot_rows_mapping(
	alphabet: list[str] | tuple[str, ...] | str,
	ignore: list[str],
) -> tuple[numpy.ndarray, int] | None:
	"""The byte lookup table of the upper-casing row encoders, or None.

	A byte maps to its character's index in `alphabet`, to -1 when it is in
	`ignore`, and to -2 otherwise, and a lower-case ASCII byte takes the entry
	of its upper-case form, so that looking up a byte of a string gives the
	encoding of the upper-cased string. The ValueError of one_hot_encode for
	a character that is in both `alphabet` and `ignore` is raised here. None
	is returned when `alphabet` or `ignore` is not an ASCII string, where
	`str.upper` is not a byte-wise map.


	Parameters
	----------
	alphabet : list, tuple, or str
		The characters that map to each index of the second axis.

	ignore: list
		The characters that set no bit.


	Returns
	-------
	table: tuple of (numpy.ndarray, int) or None
		The int8 table of 256 entries and the number of characters in the
		joined alphabet, or None.
	"""

	for char in ignore:
		if char in alphabet:
			raise ValueError("Character {} in the alphabet ".format(char) +
				"and also in the list of ignored characters.")

	alphabet_ = ''.join(alphabet) if isinstance(alphabet, (list, tuple)) \
		else alphabet
	ignore_ = ''.join(ignore)

	if not (isinstance(alphabet_, str) and alphabet_.isascii() and
			ignore_.isascii()):
		return None

	alpha_idxs = numpy.frombuffer(alphabet_.encode('ascii'), dtype=numpy.uint8)
	ignore_idxs = numpy.frombuffer(ignore_.encode('ascii'), dtype=numpy.uint8)

	mapping = numpy.zeros(256, dtype=numpy.int8) - 2
	for i, idx in enumerate(alpha_idxs):
		mapping[idx] = i

	for i, idx in enumerate(ignore_idxs):
		mapping[idx] = -1

	# Fold str.upper into the table: a lower-case ASCII byte takes the
	# entry of its upper-case form. Only ASCII rows are looked up.
	lower = numpy.arange(ord('a'), ord('z') + 1)
	mapping[lower] = mapping[lower - 32]
	return mapping, len(alphabet_)


def _one_hot_encode_rows(
	sequences: list[str],
	alphabet: list[str] | tuple[str, ...] = ['A', 'C', 'G', 'T'],
	ignore: list[str] = ['N'],
	chunk_size: int = 1024,
	n_jobs: int = 1,
) -> numpy.ndarray:
	"""One-hot encode upper-cased strings into one C-contiguous int8 array.

	The result is identical to `numpy.ascontiguousarray(numpy.stack(
	[one_hot_encode(s.upper(), alphabet, ignore=ignore) for s in sequences]))`,
	including the ValueError for a character in neither `alphabet` nor
	`ignore`, but each row is written straight into a preallocated array of
	shape (len(sequences), len(alphabet), length). Upper-casing is folded into
	the byte lookup table. When the strings differ in length, or the
	sequences, `alphabet` or `ignore` contain a non-ASCII character, where
	`str.upper` is not a byte-wise map, the expression above is evaluated
	instead.


	Parameters
	----------
	sequences: list of str
		The strings to encode, which are expected to be of equal length.

	alphabet : list, tuple, or str
		The characters that map to each index of the second axis. Default is
		['A', 'C', 'G', 'T'].

	ignore: list, optional
		The characters that set no bit. Default is ['N'].

	chunk_size: int, optional
		The number of strings joined into one buffer per kernel call, which
		bounds the temporary memory. Default is 1024.

	n_jobs: int, optional
		The largest number of threads each buffer is encoded with, capped by
		numba's NUMBA_NUM_THREADS. The result is the same for every value.
		Default is 1.


	Returns
	-------
	ohe: numpy.ndarray, shape=(len(sequences), len(alphabet), length)
		The one-hot encodings as a C-contiguous int8 array.
	"""

	table = _one_hot_rows_mapping(alphabet, ignore)

	n = len(sequences)
	length = len(sequences[0]) if n > 0 else 0

	fast = table is not None and set(map(len, sequences)) <= {length}

	if fast:
		mapping, n_characters = table
		X_ohe = numpy.empty((n, n_characters, length), dtype=numpy.int8)
		for start in range(0, n, chunk_size):
			end = min(start + chunk_size, n)

			try:
				seqs = ''.join(sequences[start:end]).encode('ascii')
			except UnicodeEncodeError:
				fast = False
				break

			if length == 0:
				continue

			# The strings are the windows of a record written on one line.
			# The mapping has no -3, so the kernel returns -1 or the first
			# row with an unknown character.
			seqs = numpy.frombuffer(seqs, dtype=numpy.uint8)
			n_rows = end - start
			starts = numpy.arange(n_rows, dtype=numpy.int64) * length
			offsets = numpy.zeros(n_rows, dtype=numpy.int64)
			line = numpy.full(n_rows, len(seqs), dtype=numpy.int64)

			if _one_hot_encode_fasta(X_ohe[start:end], seqs, starts, offsets,
					line, line, mapping, n_jobs=n_jobs) >= 0:
				raise ValueError("Encountered character that is not in " +
					"`alphabet` or in `ignore`.")

	if not fast:
		X_ohe = numpy.ascontiguousarray(numpy.stack([one_hot_encode(
			sequence.upper(), alphabet=alphabet, ignore=ignore).numpy()
				for sequence in sequences]))

	return X_ohe


def reverse_complement(
	seq: str | torch.Tensor | PackedSequence,
	complement_map: dict[str, str] = {"A": "T", "C": "G", "G": "C", "T": "A"},
	allow_N: bool = True,
) -> str | torch.Tensor | PackedSequence:
	"""Return the reverse complement of a single sequence.

	This function will take in a single one-hot encoding of a sequence, or a
	single string, and return the reverse complement. If the input is a torch
	tensor, the encoding is simply flipped along both axes. If the input is
	a string, it is flipped and then each value is flipped according to the
	provided complement map. 

	Note that this function will not convert your sequence to upper-case or
	modify it in any other manner.

	
	Parameters
	----------
	seq: str or torch.Tensor w/ shape (alphabet_size, length), or PackedSequence
		The sequence to be reverse complemented.
		A PackedSequence is reverse complemented on its character indices,
		with its own alphabet, along its last axis whatever its batch axes,
		and returned packed. Its unknown characters stay unknown, and raise a
		ValueError unless `allow_N`.
	
	complement_map: dict, optional
		The ordering and complement of each nucleotide. When the input is a
		string, this is used to directly convert characters. When the input is
		a torch tensor, the ordering of *keys* is assumed to be the order of 
		characters in the alphabet and the manner in which to flip depends on 
		it. Default is the nucleotide alphabet.

	allow_N: bool, optional
		Whether to allow N characters when reverse complementing a string or
		a PackedSequence; a tensor ignores it. Default is True.
	
	Returns
	-------
	rev_comp: str, torch.Tensor w/ shape (alphabet_size, length), or PackedSequence
		The reverse complemented string or tensor, matching the type of `seq`.

	Notes
	-----
	The tensor path takes one sequence, shape `(alphabet_size, length)`. A
	batched tensor `(N, A, L)` raises a ValueError, because the complement
	permutes the first axis; reverse complement a batch with
	`torch.stack([reverse_complement(x) for x in X])` or pass a
	PackedSequence, which keeps its batch axes.
	"""

	if isinstance(seq, PackedSequence):
		if not allow_N and len(seq.n_runs) > 0:
			raise ValueError("'N' not in complement map")

		complement = numpy.array([seq.alphabet.index(complement_map[char])
			for char in seq.alphabet] + [4], dtype=numpy.uint8)

		X_rc = _map_rows(seq.reshape(-1), lambda codes, rows: torch.from_numpy(
			numpy.take(complement, codes.numpy()[:, ::-1])), seq.length,
			seq.alphabet)
		return X_rc.reshape(seq.data.shape[:-1])

	if isinstance(seq, str):
		seq_rc = []

		for char in seq:
			if char in complement_map:
				seq_rc.append(complement_map[char])
			elif char == 'N' and allow_N:
				seq_rc.append('N')
			else:
				raise ValueError("'{}' not in complement map".format(char))

		seq_rc = ''.join(reversed(seq_rc))

	elif isinstance(seq, torch.Tensor):
		if seq.ndim != 2:
			raise ValueError("reverse_complement takes one one-hot encoded "
				"sequence with shape (alphabet_size, length); got shape {}. Loop "
				"over a batch, or pass a PackedSequence.".format(tuple(seq.shape)))

		chars = list(complement_map.keys())
		idxs = [chars.index(char) for char in complement_map.values()]

		seq_rc = torch.flip(seq, dims=(-1,))[idxs]

	return seq_rc


def random_one_hot(
	shape: tuple[int, int, int],
	probs: list | tuple | numpy.ndarray | None = None,
	dtype: str | numpy.dtype = 'int8',
	random_state: int | numpy.random.RandomState | None = None,
	return_packed: bool = False,
) -> torch.Tensor | PackedSequence:
	"""Generate random one-hot encodings. Useful for debugging.

	This function will generate random one-hot encodings where the second to
	last dimension has a single element being a one and every other element
	being a zero. Primarily used for debugging.


	Parameters
	----------
	shape: tuple
		The shape of the 3D tensor to generate.

	probs: tuple, list, numpy.ndarray, or None optional
		A 2D array of probabilities where the first dimension is the batch size
		equal to the batch size of `X` and the second dimension is the alphabet
		size. The values should be the probability of that character occurring
		in that sequence. If a batch size of 1 is used when the batch size of
		X is greater than 1, the same probabilities are used for each sequence.
		The sum of probabilities across the alphabet axis must be equal to 1.
		If None, use a uniform distribution across the axis specified in shape.
		Default is None.

	dtype: str or numpy.dtype, optional
		The datatype to return the matrix as. Default is 'int8'.

	random_state: int or numpy.random.RandomState or None, optional
		The random state to use for generation. If None, do not use a 
		deterministic seed. Default is None.

	return_packed: bool, optional
		Whether to return the sequences as a PackedSequence, drawn as the
		one-hot encoding would be and packed without building it. Needs an
		alphabet of four characters. Default is False.


	Returns
	-------
	ohe: torch.Tensor or PackedSequence
		A tensor with the specified shape that is one-hot encoded, or a
		PackedSequence of that shape.
	"""

	if not isinstance(shape, tuple) or len(shape) != 3:
		raise ValueError("Shape must be a tuple with 3 dimensions.")

	_check_packable(return_packed, shape[1], "shape")

	if not isinstance(random_state, numpy.random.RandomState):
		random_state = numpy.random.RandomState(random_state)

	rows = _random_code_rows(shape, probs, random_state)
	if return_packed:
		# Draw and pack a chunk of sequences at a time, so that only the
		# packed bytes of all of them are held.
		step = _chunk_rows(shape[2])
		chunks = []
		for start in range(0, shape[0], step):
			codes = numpy.empty((min(step, shape[0] - start), shape[2]),
				dtype=numpy.uint8)
			for j in range(codes.shape[0]):
				codes[j] = next(rows)

			chunks.append(PackedSequence.from_codes(torch.from_numpy(codes)))

		if len(chunks) == 0:
			return PackedSequence.from_codes(torch.empty((0, shape[2]),
				dtype=torch.uint8))

		return chunks[0] if len(chunks) == 1 else _cat_packed(chunks)

	ohe = numpy.zeros(shape, dtype=dtype)
	positions = numpy.arange(shape[2])
	for i, choices in enumerate(rows):
		ohe[i, choices, positions] = 1 

	return torch.from_numpy(ohe)


def _random_code_rows(shape, probs, random_state):
	"""Draw the character index of every position of `shape[0]` sequences
	of length `shape[2]` over `shape[1]` characters, yielding one sequence
	at a time from the numpy.random.RandomState `random_state`, in the
	order `random_one_hot` draws them."""

	if isinstance(probs, list):
		probs = numpy.array(probs)

	for i in range(shape[0]):
		if probs is None:
			probs_ = None
		elif probs.ndim == 1:
			probs_ = probs
		elif probs.shape[0] == 1:
			probs_ = probs[0]
		else:
			probs_ = probs[i] 

		yield random_state.choice(shape[1], size=shape[2], p=probs_)


def _random_codes(shape, probs, random_state):
	"""The draws of `_random_code_rows` as one uint8 array of shape
	(shape[0], shape[2])."""

	codes = numpy.empty((shape[0], shape[2]), dtype=numpy.uint8)
	for i, row in enumerate(_random_code_rows(shape, probs, random_state)):
		codes[i] = row

	return codes


# The code of each of the four positions a packed byte holds, in order. The
# first position sits in the two most significant bits.
_PACKED_CODES = ((torch.arange(256)[:, None] >> torch.tensor([6, 4, 2, 0]))
	& 3).to(torch.uint8)

_PACKED_FORMAT_VERSION = 1


# The dtypes the packing kernels read and write directly. to_one_hot decodes
# to int8 and casts for any other dtype, such as float16.
_PACKED_KERNEL_DTYPES = (torch.int8, torch.uint8, torch.int16, torch.int32,
	torch.int64, torch.float32, torch.float64, torch.bool)


@numba.njit(nogil=True, cache=True)
def _pack_row(codes, data, i, length):
	"""Pack the character indices `codes[:length]`, with 4 for an unknown
	character, into row `i` of `data`, four to a byte, and return the number
	of runs of unknown characters."""

	n_full = length // 4
	for b in range(n_full):
		data[i, b] = (((codes[4 * b] & 3) << 6) | ((codes[4 * b + 1] & 3) << 4)
			| ((codes[4 * b + 2] & 3) << 2) | (codes[4 * b + 3] & 3))

	if length % 4 != 0:
		byte = 0
		for j in range(4 * n_full, length):
			byte = (byte << 2) | (codes[j] & 3)
		data[i, n_full] = byte << (2 * (4 - length % 4))

	runs, previous = 0, False
	for j in range(length):
		unknown = codes[j] == 4
		runs += unknown and not previous
		previous = unknown

	return runs


@numba.njit(nogil=True, cache=True)
def _pack_codes_kernel(codes, data, n_runs):
	"""Pack each row of character indices, `codes`, into the same row of
	`data` and count its runs of unknown characters, 4, into `n_runs`.
	Returns the number of indices outside 0 to 4."""

	n_rows, length = codes.shape
	invalid = 0
	for i in range(n_rows):
		for j in range(length):
			invalid += codes[i, j] < 0 or codes[i, j] > 4

		n_runs[i] = _pack_row(codes[i], data, i, length)

	return invalid


@numba.njit(nogil=True, cache=True)
def _pack_one_hot_kernel(X, data, n_runs):
	"""Pack each one-hot encoded row of `X`, shape (n, 4, length), into the
	same row of `data` and count its runs of all-zero columns into `n_runs`.
	Returns the number of columns with a value other than 0 or 1, or with
	more than one 1.

	Each row's character indices are found first without branches, so that
	the loop over positions vectorizes, and then packed.
	"""

	n_rows, length = X.shape[0], X.shape[2]
	codes = numpy.empty(length, dtype=numpy.uint8)
	invalid = 0
	for i in range(n_rows):
		for j in range(length):
			v0, v1, v2, v3 = X[i, 0, j], X[i, 1, j], X[i, 2, j], X[i, 3, j]
			o1, o2, o3 = numpy.uint8(v1 == 1), numpy.uint8(v2 == 1), numpy.uint8(
				v3 == 1)
			ones = numpy.uint8(v0 == 1) + o1 + o2 + o3
			zeros = (numpy.uint8(v0 == 0) + numpy.uint8(v1 == 0) +
				numpy.uint8(v2 == 0) + numpy.uint8(v3 == 0))

			invalid += ones + zeros != 4 or ones > 1
			codes[j] = numpy.uint8(4) if ones == 0 else o1 + 2 * o2 + 3 * o3

		n_runs[i] = _pack_row(codes, data, i, length)

	return invalid


@numba.njit(nogil=True, cache=True)
def _row_runs(codes, length, starts, ends, r):
	"""Write the start and end of each run of 4 in `codes[:length]` to
	`starts` and `ends` from position `r`, and return the position after the
	last."""

	for j in range(length):
		if codes[j] != 4:
			continue

		if j == 0 or codes[j - 1] != 4:
			starts[r] = j

		if j == length - 1 or codes[j + 1] != 4:
			ends[r] = j + 1
			r += 1

	return r


@numba.njit(nogil=True, cache=True)
def _codes_runs_kernel(codes, run_ptr, runs):
	"""Write the runs of 4 in each row i of `codes` to `runs` from row
	`run_ptr[i]`, as (row, start, end)."""

	for i in range(codes.shape[0]):
		if run_ptr[i] == run_ptr[i + 1]:
			continue

		_row_runs(codes[i], codes.shape[1], runs[:, 1], runs[:, 2], run_ptr[i])
		for r in range(run_ptr[i], run_ptr[i + 1]):
			runs[r, 0] = i


@numba.njit(nogil=True, cache=True)
def _one_hot_runs_kernel(X, run_ptr, runs):
	"""Write the runs of all-zero columns in each row i of `X`, shape
	(n, 4, length), to `runs` from row `run_ptr[i]`, as (row, start, end)."""

	n_rows, length = X.shape[0], X.shape[2]
	for i in range(n_rows):
		r = run_ptr[i]
		if r == run_ptr[i + 1]:
			continue

		previous = False
		for j in range(length):
			unknown = (X[i, 0, j] == 0 and X[i, 1, j] == 0 and X[i, 2, j] == 0
				and X[i, 3, j] == 0)
			if unknown and not previous:
				runs[r, 0] = i
				runs[r, 1] = j
			elif previous and not unknown:
				runs[r, 2] = j
				r += 1
			previous = unknown

		if previous:
			runs[r, 2] = length


@numba.njit(nogil=True, cache=True)
def _unpack_row(data, i, run_ptr, runs, codes):
	"""Decode row `i` of `data` into the character indices `codes`, of length
	four times the bytes in a row, with 4 over the row's runs of unknown
	characters."""

	for b in range(data.shape[1]):
		byte = data[i, b]
		codes[4 * b] = byte >> 6
		codes[4 * b + 1] = (byte >> 4) & 3
		codes[4 * b + 2] = (byte >> 2) & 3
		codes[4 * b + 3] = byte & 3

	for r in range(run_ptr[i], run_ptr[i + 1]):
		for j in range(runs[r, 1], runs[r, 2]):
			codes[j] = 4


@numba.njit(nogil=True, cache=True)
def _unpack_codes_kernel(data, length, run_ptr, runs, codes):
	"""Decode the character index of every position of every row of `data`
	into `codes`, with 4 over the runs of unknown characters."""

	row = numpy.empty(4 * data.shape[1], dtype=numpy.uint8)
	for i in range(data.shape[0]):
		_unpack_row(data, i, run_ptr, runs, row)
		for j in range(length):
			codes[i, j] = row[j]


@numba.njit(nogil=True, cache=True)
def _unpack_one_hot_kernel(data, length, run_ptr, runs, X):
	"""Decode every row of `data` into the one-hot encoding `X`, shape
	(n, 4, length), writing every value, with all-zero columns over the runs
	of unknown characters. Each row is decoded to character indices first,
	and then each channel is written in order, which vectorizes."""

	row = numpy.empty(4 * data.shape[1], dtype=numpy.uint8)
	for i in range(data.shape[0]):
		_unpack_row(data, i, run_ptr, runs, row)
		for c in range(4):
			for j in range(length):
				X[i, c, j] = row[j] == c


def _collect_runs(counts, fill):
	"""Given the number of runs in each row, allocate the (row, start, end)
	array of all of them, have `fill(run_ptr, runs)` write it, and return it
	with the row pointer."""

	run_ptr = numpy.zeros(len(counts) + 1, dtype=numpy.int64)
	numpy.cumsum(counts, out=run_ptr[1:])
	runs = numpy.empty((run_ptr[-1], 3), dtype=numpy.int64)
	if len(runs) > 0:
		fill(run_ptr, runs)

	return torch.from_numpy(runs), run_ptr


def _packed_alphabet(alphabet):
	"""Return `alphabet` as a tuple, raising unless it has four characters."""

	alphabet = tuple(alphabet)
	if len(alphabet) != 4:
		raise ValueError("alphabet must have four characters but has {}."
			.format(len(alphabet)))

	return alphabet


class PackedSequence:
	"""Sequences over a four-character alphabet stored at two bits a position.

	A one-hot encoding spends four values on every position, which is four
	bytes in int8 and sixteen in float32. A sequence over a four-character
	alphabet needs two bits: a PackedSequence stores four positions in each
	byte, sixteen times less than an int8 one-hot encoding. It is meant for
	holding many sequences at once, such as genome-wide windows or their
	dinucleotide shuffles, and decoding them a batch at a time with
	`to_one_hot`.

	Each character is stored as its index in `alphabet`, with the first of a
	byte's four positions in its two most significant bits. A sequence whose
	length is not a multiple of four ends in a partial byte whose unused bits
	are zero. Two bits leave no code for an unknown character, encoded in a
	one-hot encoding as an all-zero column, so these are stored as runs in
	`n_runs`, and their bits are zero. Sequences with the same characters
	therefore have the same bytes.

	The sequences can have any number of leading batch axes, such as
	`(n, n_shuffles)` for shuffles, but all have the same length. Indexing
	selects along those axes and returns a PackedSequence, so a slice of a
	large set is decoded without decoding the rest. A PackedSequence holds
	only hard one-hot encodings: soft encodings and PWMs cannot be packed.
	Its bytes stay on the CPU, and `to_one_hot` and `to_codes` decode them
	onto any device.

	Every tangermeme function that takes one-hot sequences as `X` takes a
	PackedSequence with one batch axis. Those that make sequences return
	them packed, with the alphabet of a packed `X`, and with ACGT for a
	one-hot `X` under `return_packed=True`. A function given as `func` or
	`shuffle_fn` receives packed sequences when it is one of tangermeme's
	that take them, and their int8 one-hot encoding otherwise, so a function
	you write receives a tensor. A PackedSequence has no `.to`, `.clone` or
	concatenation, `==` compares identity, and outputs of length zero are
	not supported.


	Parameters
	----------
	data: torch.Tensor, dtype=torch.uint8, shape=(..., ceil(length / 4))
		The packed bytes of each sequence, after any number of batch axes,
		on the CPU.

	length: int
		The number of positions in each sequence.

	n_runs: torch.Tensor or None, shape=(n_runs, 3), optional
		The runs of unknown characters, one row of (sequence, start, end) per
		run, with `sequence` the index of the sequence in the flattened batch
		axes and `end` exclusive. Rows are sorted by sequence and then by
		start, and runs neither overlap nor touch. If None, there are no
		unknown characters. Default is None.

	alphabet: list or tuple of four str, optional
		The characters that codes 0 to 3 stand for, in the order of the
		channels of the one-hot encoding. Default is ('A', 'C', 'G', 'T').
	"""

	def __init__(
		self,
		data: torch.Tensor,
		length: int,
		n_runs: torch.Tensor | None = None,
		alphabet: list[str] | tuple[str, ...] = ('A', 'C', 'G', 'T'),
	) -> None:
		if not isinstance(data, torch.Tensor) or data.dtype != torch.uint8:
			raise ValueError("data must be a torch.Tensor with dtype uint8.")

		if data.ndim == 0:
			raise ValueError("data must have a last axis of packed bytes.")

		if data.device.type != 'cpu':
			raise ValueError("data must be on the CPU, where a PackedSequence "
				"keeps its bytes; decode it onto a device with to_one_hot or "
				"to_codes.")

		length = int(length)
		if length < 0 or data.shape[-1] != (length + 3) // 4:
			raise ValueError("data holds {} bytes per sequence, but a length of "
				"{} takes {}.".format(data.shape[-1], length, (length + 3) // 4))

		alphabet = _packed_alphabet(alphabet)
		n_rows = math.prod(data.shape[:-1])
		if n_runs is None:
			n_runs = torch.zeros((0, 3), dtype=torch.int64)

		n_runs = torch.as_tensor(n_runs).cpu()
		if n_runs.ndim != 2 or n_runs.shape[1] != 3 or (len(n_runs) > 0 and
			n_runs.is_floating_point()):
			raise ValueError("n_runs must be integers with shape (n_runs, 3).")

		n_runs = n_runs.to(torch.int64)
		if len(n_runs) > 0:
			rows, starts, ends = n_runs.unbind(dim=1)
			if (rows.min() < 0 or rows.max() >= n_rows or starts.min() < 0 or
				ends.max() > length or (ends <= starts).any()):
				raise ValueError("n_runs must lie within {} sequences of length "
					"{}, with each end after its start.".format(n_rows, length))

			later_row = rows[1:] > rows[:-1]
			same_row = rows[1:] == rows[:-1]
			if not (later_row | (same_row & (starts[1:] > ends[:-1]))).all():
				raise ValueError("n_runs must be sorted by sequence and start, "
					"and the runs of a sequence must neither overlap nor touch.")

		self.data = data
		self.length = length
		self.n_runs = n_runs
		self.alphabet = alphabet
		self._run_ptr = None
		self._row_ids = None

	@classmethod
	def _from_parts(cls, data, length, n_runs, alphabet, run_ptr=None):
		"""Build a PackedSequence from parts already known to be valid,
		without the checks of the constructor."""

		X = object.__new__(cls)
		X.data = data
		X.length = length
		X.n_runs = n_runs
		X.alphabet = alphabet
		X._run_ptr = run_ptr
		X._row_ids = None
		return X

	def _runs(self):
		"""The runs as a numpy array, and the row pointer: the runs of
		flattened sequence i are rows run_ptr[i] to run_ptr[i+1]."""

		if self._run_ptr is None:
			n_rows = math.prod(self.data.shape[:-1])
			self._run_ptr = numpy.zeros(n_rows + 1, dtype=numpy.int64)
			if len(self.n_runs) > 0:
				numpy.cumsum(numpy.bincount(self.n_runs[:, 0].numpy(),
					minlength=n_rows), out=self._run_ptr[1:])

		return self.n_runs.numpy(), self._run_ptr

	@property
	def shape(self) -> torch.Size:
		"""The shape of the one-hot encoding: the batch axes, 4 and the
		length."""
		return torch.Size((*self.data.shape[:-1], 4, self.length))

	@property
	def device(self) -> torch.device:
		"""The device the packed bytes are on, which is the CPU."""
		return self.data.device

	@property
	def ndim(self) -> int:
		"""The number of axes of the one-hot encoding."""
		return self.data.ndim + 1

	def __len__(self) -> int:
		if self.data.ndim == 1:
			raise TypeError("len() of a single packed sequence")

		return self.data.shape[0]

	def __repr__(self) -> str:
		return "PackedSequence(shape={}, n_runs={}, alphabet={})".format(
			tuple(self.shape), len(self.n_runs), ''.join(self.alphabet))

	def __getitem__(self, index: Any) -> PackedSequence:
		"""Select sequences along the batch axes.

		The index is applied as it would be to a tensor whose shape is the
		batch axes, so integers, slices, lists, integer and boolean tensors,
		and tuples of these over several batch axes all work. `...` stands for
		batch axes only, so `X[..., j]` selects along the last batch axis.
		The character and position axes cannot be indexed: decode first.


		Parameters
		----------
		index: int, slice, list, torch.Tensor, numpy.ndarray or tuple
			The sequences to select.


		Returns
		-------
		X: PackedSequence
			The selected sequences, with their runs of unknown characters.
		"""

		index = index if isinstance(index, tuple) else (index,)

		# The trailing slice keeps an Ellipsis, or more indices than there
		# are batch axes, off the axis of bytes.
		data = self.data[(*index, slice(None))]
		if len(self.n_runs) == 0:
			return PackedSequence._from_parts(data, self.length, self.n_runs,
				self.alphabet)

		if self._row_ids is None:
			self._row_ids = torch.arange(math.prod(self.data.shape[:-1]))

		rows = self._row_ids.reshape(self.data.shape[:-1])[index]
		rows = rows.reshape(-1).numpy()

		runs, run_ptr = self._runs()
		counts = run_ptr[rows + 1] - run_ptr[rows]
		firsts = numpy.cumsum(counts) - counts
		selected = numpy.repeat(run_ptr[rows] - firsts, counts) + numpy.arange(
			counts.sum())

		n_runs = runs[selected]
		n_runs[:, 0] = numpy.repeat(numpy.arange(len(rows)), counts)

		new_ptr = numpy.zeros(len(rows) + 1, dtype=numpy.int64)
		numpy.cumsum(counts, out=new_ptr[1:])
		return PackedSequence._from_parts(data, self.length,
			torch.from_numpy(n_runs), self.alphabet, new_ptr)

	def reshape(self, *shape: int) -> PackedSequence:
		"""Reshape the batch axes, keeping the order of the sequences.


		Parameters
		----------
		shape: int, or one tuple of int
			The new batch axes, given as separate integers or as one tuple,
			with at most one -1, as in `torch.reshape`.


		Returns
		-------
		X: PackedSequence
			The same sequences with batch axes `shape`.
		"""

		if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)):
			shape = tuple(shape[0])

		data = self.data.reshape(*shape, self.data.shape[-1])
		return PackedSequence._from_parts(data, self.length, self.n_runs,
			self.alphabet, self._run_ptr)

	@classmethod
	def from_codes(
		cls,
		codes: torch.Tensor,
		alphabet: list[str] | tuple[str, ...] = ('A', 'C', 'G', 'T'),
	) -> PackedSequence:
		"""Pack the index of every character into a PackedSequence.


		Parameters
		----------
		codes: torch.Tensor or numpy.ndarray, shape=(..., length)
			Integers from 0 to 3, the index of each character in `alphabet`,
			or 4 for an unknown character.

		alphabet: list or tuple of four str, optional
			The characters that codes 0 to 3 stand for. Default is
			('A', 'C', 'G', 'T').


		Returns
		-------
		X: PackedSequence, shape=(..., 4, length)
			The packed sequences.
		"""

		codes = torch.as_tensor(codes)
		if (codes.ndim == 0 or codes.is_floating_point() or codes.is_complex()
			or codes.dtype == torch.bool):
			raise ValueError("codes must be integers with a last axis of "
				"positions.")

		alphabet = _packed_alphabet(alphabet)
		batch, length = codes.shape[:-1], codes.shape[-1]
		n_rows = math.prod(batch)
		codes = numpy.ascontiguousarray(codes.detach().cpu().reshape(n_rows,
			length).numpy())

		data = numpy.empty((n_rows, (length + 3) // 4), dtype=numpy.uint8)
		counts = numpy.empty(n_rows, dtype=numpy.int64)
		if _pack_codes_kernel(codes, data, counts) > 0:
			raise ValueError("codes must be 0 to 3, or 4 for an unknown "
				"character.")

		n_runs, run_ptr = _collect_runs(counts, lambda run_ptr, runs:
			_codes_runs_kernel(codes, run_ptr, runs))
		data = torch.from_numpy(data).reshape(*batch, data.shape[1])
		return cls._from_parts(data, length, n_runs, alphabet, run_ptr)

	@classmethod
	def from_one_hot(
		cls,
		X: torch.Tensor,
		alphabet: list[str] | tuple[str, ...] = ('A', 'C', 'G', 'T'),
	) -> PackedSequence:
		"""Pack a one-hot encoding into a PackedSequence.


		Parameters
		----------
		X: torch.Tensor, shape=(..., 4, length)
			A one-hot encoding of any dtype and device, in which an all-zero
			column is an unknown character. Soft encodings raise a
			ValueError.

		alphabet: list or tuple of four str, optional
			The characters of the four channels of `X`, in order. Default is
			('A', 'C', 'G', 'T').


		Returns
		-------
		X: PackedSequence, shape=(..., 4, length)
			The packed sequences, with their tensors on the CPU.
		"""

		if not isinstance(X, torch.Tensor) or X.ndim < 2 or X.shape[-2] != 4:
			raise ValueError("X must be a torch.Tensor with shape (..., 4, "
				"length).")

		alphabet = _packed_alphabet(alphabet)
		if X.device.type != 'cpu' or X.dtype not in _PACKED_KERNEL_DTYPES:
			_validate_input(X, "X", ohe=True, ohe_dim=-2, allow_N=True)

			return cls.from_codes(_one_hot_codes(X), alphabet)

		batch, length = X.shape[:-2], X.shape[-1]
		n_rows = math.prod(batch)
		X = numpy.ascontiguousarray(X.detach().reshape(n_rows, 4,
			length).numpy())

		data = numpy.empty((n_rows, (length + 3) // 4), dtype=numpy.uint8)
		counts = numpy.empty(n_rows, dtype=numpy.int64)
		if _pack_one_hot_kernel(X, data, counts) > 0:
			raise ValueError("X must be one-hot encoded.")

		n_runs, run_ptr = _collect_runs(counts, lambda run_ptr, runs:
			_one_hot_runs_kernel(X, run_ptr, runs))
		data = torch.from_numpy(data).reshape(*batch, data.shape[1])
		return cls._from_parts(data, length, n_runs, alphabet, run_ptr)

	def to_codes(self, device: str | torch.device | None = None) -> torch.Tensor:
		"""Decode the index of every character.


		Parameters
		----------
		device: str, torch.device or None, optional
			The device to decode on. The packed bytes and the runs of
			unknown characters are moved there first, so the decoded tensor
			is built on the device. If None, decode on the CPU. Default is
			None.


		Returns
		-------
		codes: torch.Tensor, dtype=torch.uint8, shape=(..., length)
			The index of each character in `alphabet`, or 4 for an unknown
			character.
		"""

		device = torch.device('cpu' if device is None else device)
		batch, n_bytes = self.data.shape[:-1], self.data.shape[-1]
		n_rows = math.prod(batch)
		runs, run_ptr = self._runs()

		if device.type == 'cpu':
			data = numpy.ascontiguousarray(self.data.reshape(n_rows,
				n_bytes).numpy())
			codes = numpy.empty((n_rows, self.length), dtype=numpy.uint8)
			_unpack_codes_kernel(data, self.length, run_ptr, runs, codes)
			return torch.from_numpy(codes).reshape(*batch, self.length)

		data = self.data.to(device).reshape(n_rows, n_bytes)
		codes = _PACKED_CODES.to(device)[data.long()]
		codes = codes.reshape(n_rows, 4 * n_bytes)[:, :self.length].contiguous()

		if len(runs) > 0:
			rows, starts, ends = torch.from_numpy(runs).to(device).unbind(dim=1)
			lengths = ends - starts
			firsts = torch.repeat_interleave(torch.cumsum(lengths, dim=0) -
				lengths, lengths)
			positions = torch.repeat_interleave(starts, lengths) + torch.arange(
				len(firsts), device=device) - firsts
			codes[torch.repeat_interleave(rows, lengths), positions] = 4

		return codes.reshape(*batch, self.length)

	def to_one_hot(
		self,
		dtype: torch.dtype = torch.int8,
		device: str | torch.device | None = None,
	) -> torch.Tensor:
		"""Decode the one-hot encoding.


		Parameters
		----------
		dtype: torch.dtype, optional
			The dtype of the one-hot encoding. Default is torch.int8.

		device: str, torch.device or None, optional
			The device to decode on. The packed bytes and the runs of
			unknown characters are moved there first, so the decoded tensor
			is built on the device. If None, decode on the CPU. Default is
			None.


		Returns
		-------
		X: torch.Tensor, shape=(..., 4, length)
			The one-hot encoding, with an all-zero column for each unknown
			character.
		"""

		device = torch.device('cpu' if device is None else device)
		if device.type != 'cpu':
			codes = self.to_codes(device=device)
			alphabet = torch.arange(4, dtype=torch.uint8, device=device)
			return (codes.unsqueeze(-2) == alphabet[:, None]).to(dtype)

		batch, n_bytes = self.data.shape[:-1], self.data.shape[-1]
		n_rows = math.prod(batch)
		runs, run_ptr = self._runs()
		data = numpy.ascontiguousarray(self.data.reshape(n_rows,
			n_bytes).numpy())

		kernel_dtype = dtype if dtype in _PACKED_KERNEL_DTYPES else torch.int8
		X = torch.empty((n_rows, 4, self.length), dtype=kernel_dtype)
		_unpack_one_hot_kernel(data, self.length, run_ptr, runs, X.numpy())

		X = X.reshape(*batch, 4, self.length)
		return X if kernel_dtype == dtype else X.to(dtype)

	def save(self, path: str | os.PathLike) -> None:
		"""Write the sequences to a directory.

		The directory holds `data.npy`, the packed bytes, `n_runs.npy`, the
		runs of unknown characters, and `meta.json`, the length, the
		alphabet and the version of the format. Read it back with `load`.


		Parameters
		----------
		path: str or os.PathLike
			The directory, which is created if needed. Files of these names
			already in it are replaced, also when this PackedSequence was
			loaded from them with `mmap=True`.
		"""

		os.makedirs(path, exist_ok=True)
		meta = {"format_version": _PACKED_FORMAT_VERSION, "length":
			self.length, "alphabet": list(self.alphabet)}

		# Each file is written beside its name and then moved over it, since
		# writing in place would truncate a file that is memory-mapped.
		for name, write in (
			("data.npy", lambda f: numpy.save(f, self.data.numpy())),
			("n_runs.npy", lambda f: numpy.save(f, self.n_runs.numpy())),
			("meta.json", lambda f: f.write(json.dumps(meta).encode()))):
			filename = os.path.join(path, name)
			with open(filename + ".tmp", "wb") as outfile:
				write(outfile)

			os.replace(filename + ".tmp", filename)

	@classmethod
	def load(cls, path: str | os.PathLike, mmap: bool = False) -> PackedSequence:
		"""Read sequences written by `save`.


		Parameters
		----------
		path: str or os.PathLike
			The directory `save` wrote.

		mmap: bool, optional
			Whether to memory-map the packed bytes rather than read them, so
			that indexing reads only the sequences it selects. The mapping is
			copy-on-write: writing to `data` never changes the file. Default
			is False.


		Returns
		-------
		X: PackedSequence
			The sequences.
		"""

		with open(os.path.join(path, "meta.json")) as infile:
			meta = json.load(infile)

		if meta.get("format_version") != _PACKED_FORMAT_VERSION:
			raise ValueError("{} was written in format version {}, but this "
				"version of tangermeme reads version {}.".format(path,
				meta.get("format_version"), _PACKED_FORMAT_VERSION))

		data = numpy.load(os.path.join(path, "data.npy"),
			mmap_mode="c" if mmap else None)
		n_runs = numpy.load(os.path.join(path, "n_runs.npy"))
		return cls(torch.from_numpy(data), meta["length"],
			torch.from_numpy(n_runs), meta["alphabet"])


def _cat_packed(sequences):
	"""Concatenate PackedSequences of the same length, alphabet and trailing
	batch axes along their first batch axis."""

	first = sequences[0]
	n_bytes = first.data.shape[-1]
	data = torch.cat([X.data.reshape(-1, *first.data.shape[1:]) for X in
		sequences])

	runs, offset = [], 0
	for X in sequences:
		runs_ = X.n_runs.numpy().copy()
		runs_[:, 0] += offset
		runs.append(runs_)
		offset += math.prod(X.data.shape[:-1])

	n_runs = torch.from_numpy(numpy.concatenate(runs) if len(runs) > 0 else
		numpy.zeros((0, 3), dtype=numpy.int64))
	return PackedSequence._from_parts(data.reshape(-1, *first.data.shape[1:-1],
		n_bytes), first.length, n_runs, first.alphabet)


def _stack_packed(sequences):
	"""Stack PackedSequences of the same length and alphabet, each with one
	batch axis of the same size, along a new second batch axis, as
	torch.stack(..., dim=1) would."""

	first = sequences[0]
	k = len(sequences)
	data = torch.stack([X.data for X in sequences], dim=1)

	runs = []
	for j, X in enumerate(sequences):
		runs_ = X.n_runs.numpy().copy()
		runs_[:, 0] = runs_[:, 0] * k + j
		runs.append(runs_)

	runs = numpy.concatenate(runs)
	runs = runs[numpy.lexsort((runs[:, 1], runs[:, 0]))]
	return PackedSequence._from_parts(data, first.length, torch.from_numpy(
		runs), first.alphabet)


# The positions handled at a time by the chunked paths for packed sequences:
# 16 MB of character indices, or 64 MB of an int8 one-hot encoding.
_CHUNK_POSITIONS = 2 ** 24


def _chunk_rows(length):
	"""The number of sequences of `length` that make up one chunk."""

	return max(1, _CHUNK_POSITIONS // max(1, length))


def _one_hot_codes(X):
	"""The character index of every position of a one-hot encoding of shape
	(..., len(alphabet), length), as uint8 with 4 for an all-zero column."""

	# `max` rather than `argmax`, which is much slower along this axis on the
	# CPU, gives the same index for a one-hot encoding.
	values, codes = X.max(dim=-2)
	codes[values == 0] = 4
	return codes.to(torch.uint8)


def _codes_of(X, rows):
	"""The character index of every position of sequences `rows` of X, a
	PackedSequence or a one-hot encoding of four characters, as uint8 on the
	CPU with 4 for an unknown character."""

	if isinstance(X, PackedSequence):
		return X[rows].to_codes()

	return _one_hot_codes(X[rows]).cpu()


def _map_rows(X, fn, length, alphabet):
	"""Apply `fn(codes, rows)`, which returns the character indices of the
	outputs of sequences `rows` of X given theirs, a chunk of sequences at a
	time, and pack the outputs, each `length` long, into a PackedSequence."""

	_check_one_batch_axis(X)
	step = _chunk_rows(X.shape[-1])
	parts = [PackedSequence.from_codes(fn(_codes_of(X, rows), rows), alphabet)
		for rows in (slice(i, i + step) for i in range(0, X.shape[0], step))]

	if len(parts) == 0:
		return PackedSequence(torch.zeros((0, (length + 3) // 4),
			dtype=torch.uint8), length, alphabet=alphabet)

	return _cat_packed(parts)


def _keep_references(kept, references, packed):
	"""Add a batch of references to `kept`, packed while `packed` is True,
	and return whether to keep packing. References that are not one-hot,
	which a callable can return, cannot be packed: the batches packed so far
	are then decoded, and they and later batches are kept as tensors."""

	if packed:
		try:
			kept.append(PackedSequence.from_one_hot(references))
			return True
		except ValueError:
			kept[:] = [X.to_one_hot(dtype=references.dtype,
				device=references.device) for X in kept]

	kept.append(references)
	return False


def _position_one_hot(X, row, start, end, dtype=torch.int8):
	"""The one-hot encoding of positions `start` to `end`, with Python's slice
	bounds, of sequence `row` of the PackedSequence X, which has one batch
	axis, decoded from only the bytes that hold those positions."""

	start, end, _ = slice(int(start), int(end)).indices(X.length)
	end = max(start, end)

	first = start // 4
	codes = _PACKED_CODES[X.data[row, first:(end + 3) // 4].long()].reshape(
		-1)[start - 4 * first:end - 4 * first]

	runs, run_ptr = X._runs()
	runs = runs[run_ptr[row]:run_ptr[row + 1]]
	for run_start, run_end in runs[(runs[:, 2] > start) & (runs[:, 1] < end),
		1:]:
		codes[max(run_start, start) - start:min(run_end, end) - start] = 4

	return (codes == torch.arange(4, dtype=codes.dtype)[:, None]).to(dtype)


def chunk(
	X: list[torch.Tensor | PackedSequence],
	size: int = 1024,
	overlap: int = 0,
) -> torch.Tensor | PackedSequence:
	"""Chunk a set of sequences into overlapping blocks.

	This function will take a set of sequences of variable length and will
	return a set of fixed-length blocks that tile the sequence with a fixed
	amount of overlap. This is useful when applying a method, such as FIMO or
	even a larger predictive model, to variable length sequences such as
	chromosomes.

	Unless the total sequence length is a multiple of the size, the final chunk
	produced from a sequence will be shorter than the size. In this case, the
	final chunk is excluded because it would not be an accurate representation
	of that sequence regardless.


	Parameters
	----------
	X: list of torch.Tensors or of PackedSequences
		A list of one-hot encoded sequences that each are of shape (4, -1).
		The sequences can instead be PackedSequences of one sequence each, in
		which case the chunks are returned as a PackedSequence.

	size: int, optional
		The size of the chunks to produce from the sequence. Default is 1024.

	overlap: int, optional
		The overlap between adjacent chunks. This is, essentially, the stride
		of the unrolling process. Default is 0.


	Returns
	-------
	y: torch.Tensor, shape=(-1, len(alphabet), size), or PackedSequence
		A single tensor containing strides across the sequences, or a
		PackedSequence when `X` holds PackedSequences. The chunks are
		concatenated together across examples such that the final chunk from
		the first item is followed by first chunk from the second item.
	"""

	if not isinstance(X, list):
		raise ValueError("X must be a list of tensors.")

	if not isinstance(size, int) or size <= 0:
		raise ValueError("size must be a positive integer.")

	if not isinstance(overlap, int) or overlap < 0:
		raise ValueError("overlap must be a non-negative integer.")

	if len(X) > 0 and isinstance(X[0], PackedSequence):
		for x in X:
			if x.data.ndim != 1:
				raise ValueError("chunk takes PackedSequences of one sequence "
					"each, of shape {}, but one has shape {}.".format(
					(len(x.alphabet), -1), tuple(x.shape)))

		return _cat_packed([PackedSequence.from_codes(x.to_codes().unfold(-1,
			size, size-overlap), x.alphabet) for x in X])

	return torch.cat([x.unfold(-1, size, size-overlap).permute(1, 0, 2) 
		for x in X], dim=0)


def unchunk(
	X: list | numpy.ndarray | torch.Tensor,
	lengths: list | numpy.ndarray | torch.Tensor | None = None,
	overlap: int = 0,
) -> list[torch.Tensor]:
	"""Unchunk fixed-length segments back into variable-length sequences.

	After chunking a set of variable length sequences into fixed-length chunks
	and applying some method on the chunks that results in some bp-resolution
	result, merge the chunks back into a tensor of the same length as the
	original sequence. When the final chunk was discarded due to the original
	sequence not being divisible by the chosen size, that portion will not
	be reconstructed by this method. 

	The overlap value should be the same as when the sequence was chunked, and
	should correspond to the number of positions that are shared across adjacent
	examples. When overlap is set to a value greater than 0, half of the overlap
	goes to the elements as follows::

		<------------*    |
		                overlap
		                |    *----------->


	Parameters
	----------
	X: list or numpy.ndarray or torch.tensor, shape=(-1, n_outputs, size)
		A set of fixed-length tensors for any number of outputs. Usually the
		result of applying `chunk` and then some form of model.

	lengths: list or numpy.ndarray or torch.tensor, shape=(-1,)
		The *original lengths* of the elements that were chunked. This is not
		the number of chunks produced, which will be influenced by the overlap,
		but the actual length in bp of the original sequences. Required:
		None raises a ValueError. Default is None.

	overlap: int, optional
		The number of bp overlap between adjacent chunks. Default is 0.


	Returns
	-------
	y: list of torch.Tensors, shape=(n_outputs, -1)
		One variable-length tensor per original sequence.
	"""

	X = _cast_as_tensor(X)
	if X.ndim <= 2:
		raise ValueError("`X` must have at least three dimensions, with the "
			"last dimension corresponding to length.")

	lengths = _validate_input(_cast_as_tensor(lengths), "lengths", shape=(-1,), 
		min_value=0)

	size = X.shape[-1]
	lengths = (lengths - size) // (size - overlap) + 1
	lengths_csum = 0

	y = []
	for length in lengths:
		X_ = X[lengths_csum:lengths_csum+length]

		if overlap > 0:
			s = overlap // 2
			e = -(overlap - s)

			if X_.shape[0] == 1:
				X_ = X_[..., s:e].moveaxis(0, -2).reshape(*X_.shape[1:-1], -1)
			elif X_.shape[0] == 2:
				X_ = torch.cat([X_[0, ..., :e], X_[1, ..., s:]], dim=-1)
			else:
				X_ = torch.cat([X_[0, ..., :e],
								X_[1:-1, ..., s:e].moveaxis(0, -2).reshape(*X_.shape[1:-1], -1),
								X_[-1, ..., s:]], dim=-1)
		else:
			X_ = X_.moveaxis(0, -2).reshape(*X_.shape[1:-1], -1)

		y.append(X_)
		lengths_csum += length

	return y
	

def pwm_consensus(X: torch.Tensor | numpy.ndarray) -> torch.Tensor:
	"""Take in a PWM and return the consensus.

	This function will take in a PWM that encodes the probabilities of each
	character at each position and will return the consensus, which is the
	most likely individual sequence according to that PWM. This is done by
	taking the argmax at each position. When multiple characters at the same
	position have the maximum probability, the character in the earlier
	numerical position is chosen. If a column has a sum equal to 0 (no
	characters allowed there) the returned consensus also has entirely 0s.


	Parameters
	----------
	X: torch.Tensor, numpy.ndarray, shape=(alphabet_len, pwm_len)
		A PWM containing the probabilities of each character at each position.


	Returns
	-------
	Y: torch.Tensor, shape=(alphabet_len, pwm_len)
		A PWM of the same shape as `X` except with the maximum-value character
		set to 1.
	"""

	X = _cast_as_tensor(X)
	_validate_input(X, "X", shape=(-1, -1), min_value=0, max_value=1)

	alpha_idxs = X.argmax(dim=0)

	Y = torch.zeros_like(X)
	Y[alpha_idxs, torch.arange(X.shape[-1])] = 1
	Y[:, X.sum(dim=0) == 0] = 0
	return Y


def extract_signal(
	loci: pandas.DataFrame,
	X: torch.Tensor | numpy.ndarray,
	verbose: bool = False,
) -> torch.Tensor:
	"""Extracts the signal at coordinates from a tensor of examples.

	This function takes in a dataframe with the first three columns being the
	example index, the start (inclusive) and the end (not inclusive) and
	returns the signal sum across those coordinates from the tensor. This can
	be used, for instance, to extract attributions or genomics signal from
	windows. This sum is done separately for each signal in the tensor.


	Parameters
	----------
	loci: pandas.DataFrame
		A set of loci to extract signal from. Multiple loci can be present on
		the same example in X and the starts and ends can overlap.

	X: torch.Tensor, numpy.ndarray, shape=(-1, n_signals, sequence_length)
		A 3D tensor where the first dimension corresponds to the examples, the
		second dimension corresponds to the number of signals being measured
		at each position (e.g., different ChIP-seq tracks), and the third
		position corresponds to the sequence length.

	verbose: bool, optional
		Whether to print a progress bar tracking the extraction process. Default
		is False.


	Returns
	-------
	Y: torch.Tensor, shape=(n_loci, n_signals)
		The sum of the signal across all positions for each of the loci. The
		returned value is the sum of this signal.
	"""

	_validate_input(X, "X", shape=(-1, -1, -1))

	Y = torch.zeros(loci.shape[0], X.shape[1], dtype=X.dtype, device=X.device)

	loci = loci.values[:, :3].astype(int)
	for i, (idx, start, end) in enumerate(tqdm(loci, disable=not verbose)):
		Y[i] = X[idx, :, start:end].sum(dim=-1)

	return Y


def set_seed(seed: int) -> None:
	"""Seed every RNG that tangermeme code paths might touch.

	Calls `random.seed`, `numpy.random.seed`, `torch.manual_seed`, and
	`torch.cuda.manual_seed_all`. This is a convenience for the common
	case where a notebook or script wants "one seed for everything";
	functions that accept a `random_state=` keyword still take precedence
	when one is provided.

	Parameters
	----------
	seed: int
		The seed to use for all RNGs.
	"""

	random.seed(seed)
	numpy.random.seed(seed)
	torch.manual_seed(seed)
	if torch.cuda.is_available():
		torch.cuda.manual_seed_all(seed)


def gc_content(
	X: torch.Tensor | PackedSequence,
	alphabet: list[str] | tuple[str, ...] = ['A', 'C', 'G', 'T'],
) -> torch.Tensor:
	"""Compute the GC content of one-hot encoded sequences.

	The GC content is the fraction of positions whose character is either
	G or C. Positions that are all-N (sum == 0 along the alphabet axis)
	are excluded from both numerator and denominator. If a sequence has
	zero non-N positions its GC content is reported as 0.

	Parameters
	----------
	X: torch.Tensor, shape=(-1, len(alphabet), length), or PackedSequence
		A one-hot encoded set of sequences.
		A PackedSequence is counted from its character indices, with its own
		alphabet, without decoding its one-hot encoding.

	alphabet: list[str] or tuple[str, ...], optional
		The alphabet whose ordering matches `X`'s second axis. Used only
		to locate G and C; the rest of the alphabet is ignored. Default
		is ['A', 'C', 'G', 'T'].


	Returns
	-------
	gc: torch.Tensor, shape=(-1,)
		The GC content of each sequence, as a float in [0, 1].
	"""

	_validate_input(X, "X", shape=(-1, len(alphabet), -1), ohe=True, allow_N=True)

	gc_idxs = [i for i, c in enumerate(alphabet) if c in ('G', 'C')]
	if len(gc_idxs) == 0:
		raise ValueError("Alphabet {} does not contain G or C; gc_content "
			"is only defined for alphabets containing both.".format(alphabet))

	if isinstance(X, PackedSequence):
		gc_codes = torch.tensor([i for i, c in enumerate(X.alphabet) if c in
			('G', 'C')], dtype=torch.uint8)

		gc, total = torch.empty(len(X)), torch.empty(len(X))
		step = _chunk_rows(X.length)
		for i in range(0, len(X), step):
			codes = X[i:i+step].to_codes()
			gc[i:i+step] = torch.isin(codes, gc_codes).sum(dim=-1)
			total[i:i+step] = (codes != 4).sum(dim=-1)

		return torch.where(total > 0, gc / total.clamp(min=1),
			torch.zeros_like(gc))

	X_float = X.float()
	non_n = X_float.sum(dim=1)  # (-1, length)
	gc = X_float[:, gc_idxs].sum(dim=(1, 2))
	total = non_n.sum(dim=-1)
	return torch.where(total > 0, gc / total.clamp(min=1), torch.zeros_like(gc))


def entropy(
	X: torch.Tensor,
	eps: float = 1e-9,
) -> torch.Tensor:
	"""Compute the Shannon entropy (in bits) at each position.

	Each position is treated as a probability distribution over the
	alphabet axis. `X` may already be a PWM (probabilities) or a one-hot
	encoding; columns are renormalized to sum to 1 before the entropy
	is computed. Columns whose values sum to 0 contribute zero entropy.

	Parameters
	----------
	X: torch.Tensor, shape=(-1, alphabet, length)
		The input PWM or one-hot encoding.

	eps: float, optional
		A small constant added under the log to avoid log(0). Default
		is 1e-9.


	Returns
	-------
	H: torch.Tensor, shape=(-1, length)
		The per-position entropy in bits.
	"""

	X_float = X.float()
	col_sum = X_float.sum(dim=1, keepdim=True)
	probs = X_float / col_sum.clamp(min=eps)
	zero_col = (col_sum.squeeze(1) == 0)

	H = -(probs * torch.log2(probs + eps)).sum(dim=1)
	H[zero_col] = 0.0
	return H


def information_content(
	X: torch.Tensor,
	alphabet_size: int | None = None,
	eps: float = 1e-9,
) -> torch.Tensor:
	"""Compute per-position information content (in bits).

	Information content is `log2(alphabet_size) - entropy`. Columns
	that sum to zero are reported as 0 (rather than the maximum,
	`log2(alphabet_size)`) so all-N positions do not appear informative.

	Parameters
	----------
	X: torch.Tensor, shape=(-1, alphabet, length)
		The input PWM or one-hot encoding.

	alphabet_size: int or None, optional
		The size of the alphabet to use when computing the maximum
		entropy. If None, use `X.shape[1]`. Default is None.

	eps: float, optional
		A small constant for numerical stability in the entropy
		computation. Default is 1e-9.


	Returns
	-------
	IC: torch.Tensor, shape=(-1, length)
		The per-position information content in bits.
	"""

	if alphabet_size is None:
		alphabet_size = X.shape[1]

	X_float = X.float()
	col_sum = X_float.sum(dim=1, keepdim=True)
	zero_col = (col_sum.squeeze(1) == 0)

	max_h = float(numpy.log2(alphabet_size))
	IC = max_h - entropy(X_float, eps=eps)
	IC[zero_col] = 0.0
	return IC
