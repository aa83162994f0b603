# deep_lift_shap.py
# Contact: Jacob Schreiber <jmschreiber91@gmail.com>

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from typing import Any

import torch

from tqdm import trange

from ._compat import _autocast_supported, _resolve_device
from .ersatz import dinucleotide_shuffle
from .results import AttributionReferencesResult
from .utils import _accepts_packed
from .utils import _cat_packed
from .utils import _keep_references
from .utils import _validate_input
from .utils import PackedSequence
from ._deep_lift_utils import _build_nonlinear_ops
from ._deep_lift_utils import _READS_BOTH
from ._deep_lift_utils import _hooks_disabled
from ._deep_lift_utils import _disable_hooks
from ._deep_lift_utils import _gauss_legendre

# Re-exported so `from tangermeme.deep_lift_shap import _nonlinear` keeps
# working; the redundant `as` marks each as deliberate rather than unused.
from ._deep_lift_utils import _nonlinear as _nonlinear
from ._deep_lift_utils import _maxpool as _maxpool
from ._deep_lift_utils import _softmax as _softmax
from ._deep_lift_utils import _layernorm as _layernorm
from ._deep_lift_utils import _rmsnorm as _rmsnorm
from ._deep_lift_utils import _bilinear as _bilinear
from ._deep_lift_utils import _glu as _glu


def hypothetical_attributions(
	multipliers: tuple[torch.Tensor],
	X: tuple[torch.Tensor],
	references: tuple[torch.Tensor],
) -> tuple[torch.Tensor]:
	"""A function for aggregating contributions into hypothetical attributions.

	When handling categorical data, like one-hot encodings, the gradients
	returned by a method like DeepLIFT/SHAP may need to be modified because
	the choice of one character at a position explicitly means that the other
	characters are not there. So, one needs to account for each character change 
	actually being the addition of one character AND the subtraction of another 
	character. Basically, once you've calculated the multipliers, you need to 
	subtract out the contribution of the nucleotide actually present and then
	add in the contribution of the nucleotide you are becoming.

	Each element in the tensor is considered an independent example.

	As an implementation note: to be compatible with Captum, each input must
	be a tuple of length 1 and the returned value will be a tuple of length 1.
	I know this sounds silly but it's the most convenient implementation choice 
	to make the function compatible across DeepLiftShap implementations.


	Parameters
	----------
	multipliers: tuple of one torch.tensor, shape=(n_baselines, 4, length)
		The multipliers/gradient calculated by a method like DeepLIFT/SHAP.
		These should include values for both the observed characters and the
		unobserved characters at each position

	X: tuple of one torch.tensor, shape=(n_baselines, 4, length)
		The one-hot encoded sequence being explained

	references: tuple of one torch.tensor, shape=(n_baselines, 4, length)
		The one-hot encoded reference sequences, usually a shuffled version
		of the corresponding sequence in X.


	Returns
	-------
	projected_contribs: tuple of one torch.tensor, shape=(1, 4, length)
		The attribution values for each nucleotide in the input.
	"""

	for val in multipliers, X, references:
		if not isinstance(val, tuple) or len(val) != 1:
			raise ValueError("All inputs must be one-element tuples.")

		if not isinstance(val[0], torch.Tensor):
			raise ValueError("The first element of each input must be a "
				"tensor.")

		if val[0].shape != multipliers[0].shape:
			raise ValueError("Shape of all tensors must match.") 


	projected_contribs = torch.zeros_like(references[0], dtype=X[0].dtype, 
		device=X[0].device)
	
	for i in range(X[0].shape[1]):
		hypothetical_input = torch.zeros_like(X[0], dtype=X[0].dtype, 
			device=X[0].device)
		hypothetical_input[:, i] = 1.0
		hypothetical_diffs = hypothetical_input - references[0]
		hypothetical_contribs = hypothetical_diffs * multipliers[0]

		projected_contribs[:, i] = torch.sum(hypothetical_contribs, dim=1)

	return (projected_contribs,)


def _register_hooks(module): 
	if len(module._backward_hooks) > 0:
		return
	if not isinstance(module, tuple(module._NON_LINEAR_OPS.keys())):
		return

	module._caches = {}
	module._fwd_counter = 0

	module.handles = []
	module.handles.append(module.register_forward_hook(_f_hook))
	module.handles.append(module.register_full_backward_hook(_b_hook))


def _reset_caches(module):
	"""Drop the activations cached during the previous forward pass.

	Called once per forward pass, so that a module holds one pass' worth of
	activations at a time rather than accumulating them over every batch of a
	call. The entries cannot be dropped as the backward pass consumes them
	instead, because `pisa` runs one backward pass per block of output
	positions over a single forward graph, and every one of them needs the
	same activations.
	"""

	if hasattr(module, "_caches"):
		module._caches.clear()
		module._fwd_counter = 0

		# Dropping the tag with the entries it indexes keeps it from ever
		# naming a call from an earlier pass.
		module.__dict__.pop("_bw_idx", None)


def _clear_hooks(module):
	if hasattr(module, "handles") and len(module.handles) > 0:
		for handle in module.handles:
			handle.remove()

		del module.handles

	for name in ("_caches", "_fwd_counter", "_bw_idx", "_staged"):
		if name in module.__dict__:
			del module.__dict__[name]

	# Still set only if a rule raised inside `_b_hook`. Only tensors are
	# removed, so a model's own attribute of one of these names survives.
	for name in ("input", "output", "left", "right"):
		if isinstance(module.__dict__.get(name), torch.Tensor):
			delattr(module, name)


def _f_hook(module, inputs, outputs):
	if _hooks_disabled():
		return

	# Operands `BilinearOp.forward` staged before this hook ran; taken whether
	# or not this call is kept.
	cache = module.__dict__.pop("_staged", {})

	if not outputs.requires_grad:
		return

	# A module called more than once per forward pass keeps one cache per
	# call, in call order. The output's tensor hook tells `_b_hook` which call
	# the backward pass is in.
	idx = module._fwd_counter
	module._fwd_counter += 1

	ops = getattr(module, "_NON_LINEAR_OPS", None) or {}
	reads = getattr(ops.get(type(module)), "_reads", _READS_BOTH)

	if "input" in reads:
		cache["input"] = inputs[0].detach().clone()
	if "output" in reads:
		cache["output"] = outputs.detach().clone()

	module._caches[idx] = cache

	def _tag_backward(grad):
		module._bw_idx = idx

	outputs.register_hook(_tag_backward)


def _b_hook(module, grad_input, grad_output):
	if _hooks_disabled():
		return

	# Set by the output's tensor hook, which torch fires just before this
	# call's backward node. Missing when `_f_hook` declined the call.
	idx = module.__dict__.pop("_bw_idx", None)
	if idx is None:
		return grad_input

	cache = module._caches[idx]
	for name, value in cache.items():
		setattr(module, name, value)

	multipliers = module._NON_LINEAR_OPS[type(module)](module, grad_input, 
		grad_output)

	for name in cache:
		delattr(module, name)

	# torch rejects a gradient whose dtype differs from the one it handed the
	# hook, and under autocast a rule may return float32 for a half-precision
	# gradient.
	return tuple(m if m is None or g is None or m.dtype == g.dtype
		else m.to(g.dtype) for m, g in zip(multipliers, grad_input))


@contextlib.contextmanager
def _attributing(model, device, nonlinear_ops):
	"""Hold a model in the state an attribution pass needs, then put it back.

	Attaches the rule table to every module, registers the hooks, and moves
	the model to `device` in eval mode. All four are undone on exit, including
	on a raise, so a failed call leaves no hooks, rule table, or activation
	cache behind.


	Parameters
	----------
	model: torch.nn.Module
		The model being attributed. It is left on the device it came from and
		in the training mode it came in.

	device: str or torch.device
		The device to run the pass on, already resolved.

	nonlinear_ops: dict
		The rule table, as built by `_build_nonlinear_ops`.


	Returns
	-------
	context: contextlib.contextmanager
		A context manager wrapping the attribution pass.
	"""

	try:
		_orig_device = next(model.parameters()).device
	except StopIteration:
		_orig_device = None
	_was_training = model.training

	model.to(device).eval()

	try:
		for module in model.modules():
			module._NON_LINEAR_OPS = nonlinear_ops

		model.apply(_register_hooks)
		yield
	finally:
		model.apply(_clear_hooks)
		for module in model.modules():
			if hasattr(module, "_NON_LINEAR_OPS"):
				del module._NON_LINEAR_OPS

		if _was_training:
			model.train()
		if _orig_device is not None and _orig_device != device:
			model.to(_orig_device)


def _squeeze_output(y, name):
	"""Return a `(batch_size, n_outputs)` model output, or raise a ValueError.

	`deep_lift_shap` and `pisa` index the outputs on axis 1 and check each
	against one input difference per example, so they share this check. A
	model ending in a global pool returns `(batch_size, n_outputs, 1)`, and its
	trailing axes are dropped; left in place, they broadcast against the input
	differences. Any other axis after the outputs leaves no single value per
	output to explain.
	"""

	if y.ndim > 2:
		if y.shape[2:].numel() != 1:
			raise ValueError("{} requires the model to return a (batch_size, "
				"n_outputs) tensor, optionally followed by axes of length 1, but "
				"it returned shape {} per example. Wrap the model so that it "
				"returns one value per output, e.g., by summing or slicing the "
				"extra axes.".format(name, tuple(y.shape[1:])))

		y = y.reshape(y.shape[0], y.shape[1])

	return y


class BilinearOp(torch.nn.Module):
	"""A bilinear contraction of two tensors, written as a hookable module.

	DeepLIFT attaches its rules to `torch.nn` modules, so an operation can only
	be attributed if it lives inside a module. Bilinear operations like `matmul`,
	`einsum`, and elementwise tensor products have no dedicated `nn` module and
	are usually written as bare function calls, which have nothing for a rule to
	attach to. This module wraps such operations so that they become something
	the `_bilinear` rule can hook.

	The contraction performed depends on `equation`. The operands are used
	exactly as passed, so any transpose, reshape, cast, or scaling belongs
	outside this module, which keeps the backward rule to a single
	contraction with no bookkeeping.

	The two operands are cached on the module during an attribution call,
	because the backward rule needs both of them and torch hands a backward
	hook only the gradients. One pair is kept per call, so the op may be used
	more than once in a forward pass. A pair lives until the next forward
	pass rather than being dropped once read, because `pisa` runs several
	backward passes over one forward graph. Nothing is cached outside an
	attribution call.


	Parameters
	----------
	equation: str or None, optional
		The contraction to perform. If None, `torch.matmul(left, right)`. If
		the string "...,...->...", the elementwise product `left * right`,
		written directly rather than handed to einsum. Any other string is
		passed to `torch.einsum` with the two operands. Default is None.
	"""

	def __init__(self, equation: str | None = None):
		super().__init__()
		self.equation = equation

	def forward(self, left: torch.Tensor, right: torch.Tensor) -> torch.Tensor:
		"""Contract the two operands according to `equation`.


		Parameters
		----------
		left: torch.tensor
			The left operand, used exactly as passed.

		right: torch.tensor
			The right operand, used exactly as passed.


		Returns
		-------
		out: torch.tensor
			The contraction of the two operands.
		"""

		# Staged only during an attribution call, and not in a re-entrant pass
		# such as the local-IG rule's, which would overwrite the operands an
		# enclosing rule is reading. `_f_hook` files them under this call.
		if hasattr(self, "_NON_LINEAR_OPS") and not _hooks_disabled():
			self._staged = {
				"left": left.detach(),
				"right": right.detach(),
			}

		if self.equation is None:
			return torch.matmul(left, right)
		elif self.equation == "...,...->...":
			return left * right
		return torch.einsum(self.equation, left, right)


def integrated_gradients_op(
	K: int = 8,
	name: str | None = None,
) -> Callable[..., tuple[torch.Tensor]]:
	"""Build an operation that attributes any module using integrated gradients.

	The returned function goes in the `additional_nonlinear_ops` dictionary
	of `deep_lift_shap` or `pisa`, keyed by the module type it should handle,
	the same way the built-in rules are registered.

	Use this where a closed-form DeepLIFT rule is impractical to derive by
	hand. The multiplier it implements is the Jacobian of the module
	integrated along the straight-line path from the reference activation
	``z0`` to the observed activation ``z``, which is the integrated-gradients
	construction of Sundararajan et al (PMLR 2017) applied to one layer rather
	than to a whole model. The integral is approximated by Gauss-Legendre
	quadrature over ``K`` nodes.

	Only vector-Jacobian products are computed, never a full Jacobian. The
	``K`` path points for each example-reference pair are packed into one
	batch, so the module runs one forward pass over ``K`` times as many rows
	as there are pairs. Both halves of the batch contract the same integrated
	Jacobian with their own upstream gradient, which is constant along the
	path, so they share that forward pass and take one backward pass each.

	The module's forward and backward hooks are disabled during that pass, so
	that re-entering the module neither overwrites the cached activations the
	rule reads nor re-triggers the backward hook into infinite recursion.


	Parameters
	----------
	K: int, optional
		The number of Gauss-Legendre quadrature points used to approximate the
		path integral. Higher values give a more accurate multiplier at a
		proportionally larger batch in the forward pass. Default is 8.

	name: str or None, optional
		A suffix for the returned hook's ``__name__``, which is otherwise
		``_integrated_gradients_op_fn_K{K}``. Only affects debugging output.
		Default is None.


	Returns
	-------
	hook: callable
		A function with the signature ``hook(module, grad_input, grad_output)``,
		suitable for passing to ``deep_lift_shap`` or ``pisa`` through
		``additional_nonlinear_ops``.
	"""

	_nodes_list, _weights_list = _gauss_legendre(K)
	_quadrature = {}

	def _grid(dtype, device, ndim):
		"""The nodes and weights, shaped to broadcast over a batch of `ndim`.

		Cached per dtype, device and rank, since a backward hook is called
		once per batch and the grid is the same every time.
		"""

		key = (dtype, device, ndim)
		if key not in _quadrature:
			shape = (-1,) + (1,) * ndim
			_quadrature[key] = (
				torch.tensor(_nodes_list, dtype=dtype, device=device).view(shape),
				torch.tensor(_weights_list, dtype=dtype, device=device).view(shape),
			)
		return _quadrature[key]

	def _hook(module, grad_input, grad_output):
		z, z0 = module.input.chunk(2)
		q, q0 = grad_output[0].chunk(2)

		# The module may change the shape, so the nodes are shaped against the
		# input and the weights against the output.
		z_tail, q_tail = z.shape[1:], q.shape[1:]
		nodes, _ = _grid(z.dtype, z.device, z.ndim)
		_, weights = _grid(q.dtype, q.device, q.ndim)

		# One row per (quadrature node, pair), so one forward pass covers
		# every node.
		z_path = (z0 + nodes * (z - z0)).reshape(-1, *z_tail)
		z_path = z_path.detach().requires_grad_()

		with torch.enable_grad(), _disable_hooks():
			y_path = module(z_path)

			# The halves differ only in the upstream gradient, so they
			# share the forward and each takes its own backward.
			grads = [torch.autograd.grad(
				y_path,
				z_path,
				grad_outputs=(weights * g.detach()).reshape(-1, *q_tail),
				retain_graph=g is q,
				create_graph=False,
				allow_unused=False,
			)[0].reshape(K, -1, *z_tail).sum(dim=0) for g in (q, q0)]

		return (torch.cat(grads),)

	suffix = name if name is not None else "fn"
	_hook.__name__ = f"_integrated_gradients_op_{suffix}_K{K}"
	_hook._reads = ("input",)
	return _hook


@_accepts_packed
def deep_lift_shap(
	model: torch.nn.Module,
	X: torch.Tensor | PackedSequence,
	args: tuple | None = None,
	target: int = 0,
	batch_size: int = 32,
	references: Callable[..., Any] | torch.Tensor = dinucleotide_shuffle,
	n_shuffles: int = 20,
	return_references: bool = False,
	hypothetical: bool = False,
	warning_threshold: float = 0.001,
	additional_nonlinear_ops: dict | None = None,
	print_convergence_deltas: bool = False,
	raw_outputs: bool = False,
	only_warn: bool = False,
	dtype: str | torch.dtype | None = None,
	device: str | torch.device | None = None,
	random_state: int | None = None,
	verbose: bool = False,
) -> torch.Tensor | AttributionReferencesResult:
	"""Calculate attributions for a set of sequences using DeepLIFT/SHAP.

	This function will calculate the DeepLIFT/SHAP attributions on a set of
	sequences given a model. These attributions have the additive property that
	the sum of the attributions is ~equal to the difference in prediction
	between the original sequence and the reference sequences.

	As an implementation note, the batch size refers to the number of
	example-reference pairs that are being run simultaneously. When the batch
	size is smaller than the number of references, multiple batches will be
	run per example and the attributions will only be averaged across the
	references after they have all been covered. You may want to do this if the
	model or examples are so large that only a few can fit in memory at a time.
	The result will be identical to if all examples could fit in memory and
	each batch contained all the references.

	Convergence deltas are calculated automatically for each example-reference
	pair. Theoretically, these should be zero, but may in practice just be a
	small number due to machine precision issues with non-linear models. If
	these deltas exceed a warning threshold, a non-terminating warning will be 
	issued to let you know that the deltas have been exceeded.

	NOTE: predictions MUST yield a `(batch_size, n_targets)` tensor, even if
	n_targets is 1. Trailing axes of length 1, such as the one a global
	pooling layer leaves, are dropped, so `(batch_size, n_targets, 1)` also
	works. Any other axis after `n_targets`, such as the length axis of a
	profile, raises a ValueError. Wrap such a model in a small class that
	operates on the outputs in a manner that yields a `(batch_size,
	n_targets)` tensor, e.g., by slicing the output or summing along a
	relevant axis.


	Parameters
	----------
	model: torch.nn.Module
		A PyTorch model to use for making predictions. These models can take in
		any number of inputs and make any number of outputs. The additional
		inputs must be specified in the `args` parameter.

	X: torch.tensor, shape=(-1, len(alphabet), length), or PackedSequence
		A set of one-hot encoded sequences to calculate attribution values
		for, or a PackedSequence with one batch axis, of which each batch is
		decoded in `dtype`. The attributions are those of its one-hot
		encoding.

	args: tuple or None, optional
		An optional set of additional arguments to pass into the model. If
		provided, each element in the tuple or list is one input to the model
		and the element must be formatted to be the same batch size as `X`. If
		None, no additional arguments are passed into the forward function.
		Default is None.

	target: int, optional
		The output of the model to calculate gradients/attributions for. This
		indexes the second axis of the predictions, `model(X)[:, target]`.
		Default is 0.

	batch_size: int, optional
		The number of sequence-reference pairs to pass through DeepLiftShap at
		a time. Importantly, this is not the number of elements in `X` that
		are processed simultaneously (alongside ALL their references) but the
		total number of `X`-`reference` pairs that are processed. This means
		that if you are in a memory-limited setting where you cannot process
		all references for even a single sequence simultaneously that the
		work is broken down into doing only a few references at a time. Default
		is 32.

	references: func or torch.Tensor, optional
		If a function is passed in, the function must accept `(X, n=...)` and
		(when `random_state` is not None) `(X, n=..., random_state=...)`. It is
		called with `n=1` per shuffle and once per `(example, shuffle_idx)` pair
		when seeded, or once per batch when not. It should return a tensor
		shaped `(batch, 1, *X.shape[1:])` (the second axis is squeezed off).
		The function should transform a sequence into some form of signal-null
		background, such as by shuffling it. If a torch.Tensor is passed in,
		that tensor must have shape `(len(X), n_shuffles, *X.shape[1:])`, in
		that for each sequence a number of shuffles are provided. It must be
		one-hot encoded, except that all-zero columns are allowed. A baseline
		that is not one-hot, such as 0.25 everywhere, must come from a
		callable, whose output is not validated. A PackedSequence of batch
		shape `(len(X), n_shuffles)` can be passed instead of the tensor, and
		each batch of it is decoded on `device`. Default is the function
		`dinucleotide_shuffle`.

	n_shuffles: int, optional
		The number of shuffles to use if a function is given for `references`.
		If a torch.Tensor is provided, this number is ignored. Default is 20.

	return_references: bool, optional
		Whether to return the references that were generated during this
		process. Only use if `references` is not a torch.Tensor. Default is
		False.

	hypothetical: bool, optional
		Whether to return attributions for all possible characters at each
		position (`True`) or only for the character that is actually in the
		sequence (`False`). When `False`, the per-character attributions are
		multiplied by the one-hot encoded input so that only the observed
		character has a non-zero attribution at each position. Default is False.

	warning_threshold: float, optional
		An absolute threshold on the convergence delta of each example-reference
		pair that raises a warning when a delta exceeds it. Normal deltas are in
		the range of 1e-6 to 1e-8. Because it is absolute, a model whose
		outputs are small can exceed it by a large fraction without a warning,
		so a second warning, not controlled by this value, is raised when the
		mean delta of a batch exceeds 1% of the mean absolute output
		difference. Default is 0.001.

	additional_nonlinear_ops: dict or None, optional
		If additional nonlinear ops need to be added to the dictionary of
		operations that can be handled by DeepLIFT/SHAP, pass a dictionary here
		where the keys are class types and the values are the name of the
		function that handle that sort of class. Make sure that the signature
		matches those of `_nonlinear` and `_maxpool` in `_deep_lift_utils`.
		This can also be used to overwrite the hard-coded operations by
		passing in a dictionary with overlapping key names. If None, do not
		add any additional operations. Default is None.

	print_convergence_deltas: bool, optional
		Whether to print the convergence deltas for each example when using
		DeepLiftShap. Default is False.

	raw_outputs: bool, optional
		Whether to return the raw outputs from the method -- in this case,
		the multipliers for each example-reference pair -- or the processed
		attribution values. Default is False.

	only_warn: bool, optional
		Whether to only warn when a violation is recorded instead of raise a
		terminating error. This applies to input validation on `X` and (if
		passed) `references`; it does NOT suppress the runtime convergence-delta
		warnings emitted from the DeepLIFT computation itself. Default is False.

	dtype: str or torch.dtype or None, optional
		The dtype to use with mixed precision autocasting. If None, use the dtype of
		the *model*. This allows you to use int8 to represent large data sets and
		only convert batches to the higher precision, saving memory. Default is None.

	device: str or torch.device or None, optional
		The device to move the model and batches to when making predictions. If
		None, use CUDA when available and fall back to CPU otherwise. Default
		is None.

	random_state: int or None, optional
		The random seed for the references: reference `k` of every example is
		drawn with seed `random_state + k`, so the references are the same on
		every call. Must be an int (or None); `numpy.random.RandomState`
		instances are not supported here. The seed does not fix the kernels: on
		a GPU two calls can differ at the 1e-8 to 1e-5 level unless
		`torch.backends.cudnn.deterministic` is set. If None, the references
		differ on every call. Default is None.

	verbose: bool, optional
		Whether to display a progress bar. Default is False.


	Returns
	-------
	attributions: torch.tensor
		If `raw_outputs=False` (default), the attribution values with shape
		equal to `X`. If `raw_outputs=True`, the multipliers for each example-
		reference pair with shape equal to `(X.shape[0], n_shuffles, X.shape[1],
		X.shape[2])`.

	references: torch.tensor or PackedSequence, optional
		The references used for each input sequence, with the shape
		(n_input_sequences, n_shuffles, 4, length). A PackedSequence when
		`references` is one, or when `X` is one and the references are
		one-hot, packed a batch at a time. Only returned if
		`return_references = True`.
	"""

	_validate_input(X, "X", shape=(-1, -1, -1), ohe=True, only_warn=only_warn)

	if X.shape[0] == 0:
		raise ValueError("deep_lift_shap requires at least one example; got "
			"X with shape[0] == 0.")

	_NON_LINEAR_OPS = _build_nonlinear_ops(additional_nonlinear_ops)

	device = _resolve_device(device)

	if dtype is None:
		try:
			dtype = next(model.parameters()).dtype
		except (StopIteration, AttributeError):
			dtype = torch.float32
	elif isinstance(dtype, str):
		dtype = getattr(torch, dtype)

	use_autocast = _autocast_supported(device, dtype)

	with _attributing(model, device, _NON_LINEAR_OPS):
		# Begin DeepLIFT procedure
	
		attributions, references_, Xi, rj, attr_ = [], [], [], [], []

		given = isinstance(references, (torch.Tensor, PackedSequence))
		if given:
			_validate_input(references, "references", shape=(X.shape[0], -1, X.shape[1], 
				X.shape[2]), ohe=True, allow_N=True, ohe_dim=-2, only_warn=only_warn)
			n_shuffles = references.shape[1]

		return_packed = (isinstance(X, PackedSequence) or
			isinstance(references, PackedSequence))

		n, z = X.shape[0] * n_shuffles, 0

		for i in trange(n, disable=not verbose):
			Xi.append(i // n_shuffles)
			rj.append(i % n_shuffles)

			if len(Xi) == batch_size or i == (n-1):
				if isinstance(X, PackedSequence):
					_X = X[Xi].to_one_hot(dtype=dtype)
				else:
					_X = X[Xi].cpu().type(dtype)
				_args = None if args is None else tuple([a[Xi].to(device).type(dtype)
					for a in args])

				# Handle reference sequences while ensuring that the same seed is
				# used for each shuffle even if not all shuffles are done in the
				# same batch.
				if isinstance(references, PackedSequence):
					_references = references[Xi, rj].to_one_hot(dtype=dtype,
						device=device)
				elif given:
					_references = references[Xi, rj]
				else:
					if random_state is None:
						_references = references(_X, n=1)[:, 0]
					elif references is dinucleotide_shuffle:
						# One call draws the batch, giving each pair the seed
						# the per-pair calls below would give it.
						_references = references(_X, n=1, random_state=[
							random_state + k for k in rj])[:, 0]
					else:
						_references = torch.cat([references(_X[j:j+1], n=1,
							random_state=random_state+rj[j])[:, 0] 
								for j in range(len(_X))])

				_X = _X.to(device).type(dtype).requires_grad_()
				_references = _references.to(device).type(dtype).requires_grad_()

				# This next block is actually running DeepLIFT by concatenating
				# the batch of examples and the batch of references and running
				# the forward and backward passes that have been modified by
				# the above hooks.
				X_ = torch.cat([_X, _references])

				if use_autocast:
					autocast_ctx = torch.autocast(device_type=device.type, dtype=dtype)
				else:
					autocast_ctx = contextlib.nullcontext()

				model.apply(_reset_caches)

				# Calculate the gradients using the rescale rule
				with torch.autograd.set_grad_enabled(True):
					with autocast_ctx:
						if _args is not None:
							_args = (torch.cat([arg, arg]) for arg in _args)
							y = model(X_, *_args)
						else:
							y = model(X_)

						y = _squeeze_output(y, "deep_lift_shap")[:, target]
						multipliers = torch.autograd.grad(y.sum(), _X)[0]

				# Check that the prediction-difference-from-reference is equal to
				# the sum of the attributions
				output_diff = torch.sub(*torch.chunk(y, 2))
				input_diff = torch.sum((_X - _references) * multipliers, 
					dim=(1, 2))
				convergence_deltas = abs(output_diff - input_diff)

				if torch.any(convergence_deltas > warning_threshold):
					warnings.warn("Convergence deltas too high: " +   
						str(convergence_deltas), RuntimeWarning)

				relative = convergence_deltas.mean() / output_diff.abs().mean(
					).clamp_min(1e-12)
				if relative > 0.01:
					warnings.warn("Convergence deltas are {:.1%} of the output "
						"differences: an operation in the model has no DeepLIFT "
						"rule and is being treated as linear. See "
						"additional_nonlinear_ops.".format(relative.item()),
						RuntimeWarning)
					
				if print_convergence_deltas:
					print(convergence_deltas)

				# If not returning the raw multipliers then apply the correction for
				# character encodings
				if raw_outputs == False:
					multipliers = hypothetical_attributions((multipliers,), (_X,), 
						(_references,))[0]

				# attr_ is a list where each element is a tensor for the multipliers
				# of one example-reference pair, so that once all references for an
				# example have been processed we can chunk them together.
				attr_.extend(list(multipliers.cpu().detach()))

				# When all references for a sequence have been calculated, remove
				# that block from the list of example-reference attributions and
				# add it to the final attribution list, averaging across references
				# if providing the processed results.
				while len(attr_) >= n_shuffles:
					attr_chunk = torch.stack(attr_[:n_shuffles])

					if raw_outputs == False:
						attr_chunk = attr_chunk.mean(dim=0)
						if not hypothetical:
							if isinstance(X, PackedSequence):
								attr_chunk *= X[z].to_one_hot()
							else:
								attr_chunk *= X[z].cpu()

					attributions.append(attr_chunk)
					attr_ = attr_[n_shuffles:]
					z += 1

				if return_references:
					return_packed = _keep_references(references_,
						_references.detach().cpu(), return_packed)

				Xi, rj = [], []

		attributions = torch.stack(attributions)

		if return_references:
			references_ = (_cat_packed(references_).reshape(X.shape[0],
				n_shuffles) if return_packed else torch.cat(references_).reshape(
				X.shape[0], n_shuffles, *X.shape[1:]))
			return AttributionReferencesResult(
				attributions=attributions, references=references_)
		return attributions


def _captum_deep_lift_shap(
	model: torch.nn.Module,
	X: torch.Tensor,
	args: tuple | None = None,
	target: int = 0,
	batch_size: int = 32,
	references: Callable[..., Any] | torch.Tensor = dinucleotide_shuffle,
	n_shuffles: int = 20,
	return_references: bool = False,
	hypothetical: bool = False,
	device: str | torch.device | None = None,
	random_state: int | None = None,
	verbose: bool = False,
) -> torch.Tensor | AttributionReferencesResult:
	"""Calculate attributions using captum's DeepLiftShap and a given model.

	This function will calculate DeepLift/Shap attributions on a set of
	sequences by delegating to captum's `DeepLiftShap` and using a user-
	supplied (or default `dinucleotide_shuffle`) reference function or
	pre-computed reference tensor, the same `references` contract used by
	`deep_lift_shap`.

	This is an internal/debugging function that is mostly meant to be used to
	check for differences with the `deep_lift_shap` method.


	Parameters
	----------
	model: torch.nn.Module
		A PyTorch model to use for making predictions. These models can take in
		any number of inputs and make any number of outputs. The additional
		inputs must be specified in the `args` parameter.

	X: torch.tensor, shape=(-1, len(alphabet), length), or PackedSequence
		A set of one-hot encoded sequences to calculate attribution values
		for, or a PackedSequence with one batch axis, of which each sequence
		is decoded in the dtype of the model's parameters.

	args: tuple or None, optional
		An optional set of additional arguments to pass into the model. If
		provided, each element in the tuple or list is one input to the model
		and the element must be formatted to be the same batch size as `X`. If
		None, no additional arguments are passed into the forward function.
		Default is None.

	target: int, optional
		The output of the model to calculate gradients/attributions for. This
		will index the last dimension of the predictions. Default is 0.

	batch_size: int, optional
		The number of sequence-reference pairs to pass through DeepLiftShap at
		a time. Importantly, this is not the number of elements in `X` that
		are processed simultaneously (alongside ALL their references) but the
		total number of `X`-`reference` pairs that are processed. This means
		that if you are in a memory-limited setting where you cannot process
		all references for even a single sequence simultaneously that the
		work is broken down into doing only a few references at a time. Default
		is 32.

	references: func or torch.Tensor, optional
		If a function is passed in, the function must accept `(X, n=...,
		random_state=...)`. It is called once per example with `n=n_shuffles`
		and should return a tensor shaped `(1, n_shuffles, *X.shape[1:])`
		(the leading axis is indexed off). The function should transform a
		sequence into some form of signal-null background, such as by
		shuffling it. If a torch.Tensor is passed in, that tensor must have
		shape `(len(X), n_shuffles, *X.shape[1:])`, in that for each sequence
		a number of shuffles are provided. Default is the function
		`dinucleotide_shuffle`.

	n_shuffles: int, optional
		The number of shuffles to use if a function is given for `references`.
		If a torch.Tensor is provided, this number is ignored. Default is 20.

	return_references: bool, optional
		Whether to return the references that were generated during this
		process. Only use if `references` is not a torch.Tensor. Default is
		False.

	hypothetical: bool, optional
		Whether to return attributions for all possible characters at each
		position (`True`) or only for the character that is actually in the
		sequence (`False`). When `False`, the per-character attributions are
		multiplied by the one-hot encoded input so that only the observed
		character has a non-zero attribution at each position. Default is False.

	device: str or torch.device or None, optional
		The device to move the model and batches to when making predictions. If
		None, use CUDA when available and fall back to CPU otherwise. Default
		is None.

	random_state: int or None, optional
		The random seed to use to ensure determinism. Passed through to the
		`references` callable; `numpy.random.RandomState` instances are not
		supported. If None, the process is not deterministic. Default is None.

	verbose: bool, optional
		Whether to display a progress bar. Default is False.


	Returns
	-------
	attributions: torch.tensor
		The attributions calculated for each input sequence, with the same
		shape as the input sequences.

	references: torch.tensor, optional
		The references used for each input sequence, with the shape
		(n_input_sequences, n_shuffles, 4, length). Only returned if
		`return_references = True`.
	"""

	from captum.attr import DeepLiftShap as CaptumDeepLiftShap

	device = _resolve_device(device)
	model = model.to(device).eval()

	dtype = next(model.parameters(), torch.zeros(1)).dtype
	return_packed = (isinstance(X, PackedSequence) or
		isinstance(references, PackedSequence))

	attributions = []
	references_ = []
	with torch.no_grad():
		for i in trange(len(X), disable=not verbose):
			if isinstance(X, PackedSequence):
				_X = X[i:i+1].to_one_hot(dtype=dtype, device=device)
			else:
				_X = X[i:i+1].to(device)

			_args = None if args is None else tuple([a[i:i+1].to(device) 
				for a in args])

			# Calculate references
			if isinstance(references, PackedSequence):
				_references = references[i].to_one_hot(dtype=dtype,
					device=device)
			elif isinstance(references, torch.Tensor):
				_references = references[i].to(device)
			else:
				_references = references(_X, n=n_shuffles, 
					random_state=random_state)[0].to(device)
						
			attr = CaptumDeepLiftShap(model).attribute(_X, _references, 
				target=target, additional_forward_args=_args, 
				custom_attribution_func=hypothetical_attributions)

			if not hypothetical:
				attr = (attr * _X)
			
			if return_references:
				return_packed = _keep_references(references_,
					_references.unsqueeze(0).cpu(), return_packed)

			attributions.append(attr.cpu())

	attributions = torch.cat(attributions)

	if return_references:
		references_ = (_cat_packed(references_) if return_packed else
			torch.cat(references_))
		return AttributionReferencesResult(
			attributions=attributions, references=references_)
	return attributions
