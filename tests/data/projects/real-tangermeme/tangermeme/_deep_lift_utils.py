# _deep_lift_utils.py
# Contact: Jacob Schreiber <jmschreiber91@gmail.com>
# adapted from code written by Valeh Amiri and Ruchir Rastogi

from __future__ import annotations

import math

from contextlib import contextmanager

import torch
import torch.nn.functional as F

from numpy.polynomial.legendre import leggauss


class _HookState:
	"""A process-wide switch controlling whether the DeepLIFT hooks do work.

	A hook that needs to re-run its own module, as the local-IG rule does,
	would otherwise trip the forward hooks a second time and overwrite the
	very activations it is in the middle of reading. Flipping this switch off
	for the duration of that inner pass makes every hook a no-op without
	unregistering and re-registering it.

	The state is global rather than per-module because the hooks are plain
	functions with no shared instance to hang it on. Use `_disable_hooks`
	rather than setting this directly, so the previous value is restored even
	if the inner pass raises.
	"""

	enabled = True


@contextmanager
def _disable_hooks():
	"""Temporarily make every DeepLIFT hook a no-op.

	Restores the previous value on exit, including on a raise, so blocks
	nest.


	Returns
	-------
	context: contextlib.contextmanager
		A context manager that disables the hooks for the duration of its
		block.
	"""

	previous = _HookState.enabled
	_HookState.enabled = False
	try:
		yield
	finally:
		_HookState.enabled = previous


def _hooks_disabled():
	"""Return whether the DeepLIFT hooks are currently switched off.


	Returns
	-------
	disabled: bool
		True when the hooks have been switched off by `_disable_hooks`.
	"""

	return not _HookState.enabled


def _rescale(delta_in, delta_out, grad_input, grad_output):
	"""The rescale rule on tensors: `grad_output` times the secant
	`delta_out / delta_in`, or `grad_input` where `abs(delta_in) < 1e-6`.

	`_nonlinear` applies it to a hooked module. The arguments broadcast
	against each other, so the differences, computed once per example and
	reference, can serve gradients for both halves of a batch, or for a
	sequence and each of its references.
	"""

	return torch.where(torch.abs(delta_in) < 1e-6, grad_input,
		grad_output * (delta_out / delta_in))


def _nonlinear(module, grad_input, grad_output):
	"""An internal function implementing a general-purpose nonlinear correction.

	This function, copied and slightly modified from Captum, is meant to be
	the `rescale` rule applied to general non-linear functions such as
	activations.

	The rescale rule replaces the gradient of a non-linearity with the ratio
	of the change in its output to the change in its input, measured between
	the observed activation and the reference activation. That secant, rather
	than the tangent an ordinary backward pass would use, is what makes the
	attributions sum to the difference in model output. Where the input
	barely moves between the two the ratio is numerically unstable, so the
	plain gradient is substituted below a threshold of 1e-6.
	
	Parameters
	----------
	module: torch.nn.Module
		The module being corrected. The backward hook has put `module.input`
		and `module.output` on it for the forward call being unwound, each
		holding the observed batch concatenated with the reference batch along
		the first axis.

	grad_input: tuple of torch.tensor
		What torch would pass to a full backward hook as the gradient with
		respect to the module's inputs: the upstream gradient propagated through
		this module's ordinary local gradient. Used as the fallback wherever the
		rescale ratio is numerically unstable.

	grad_output: tuple of torch.tensor
		The upstream gradient handed to a full backward hook: the gradient of
		the model output with respect to this module's output.


	Returns
	-------
	grad_input: tuple of one torch.tensor
		The replacement gradient with respect to the module's input, i.e. the
		upstream gradient propagated through the DeepLIFT multiplier for this
		module instead of through its ordinary local gradient.
	"""

	delta_in = torch.sub(*module.input.chunk(2))
	delta_out = torch.sub(*module.output.chunk(2))

	# The secant depends only on the activations, so it is computed at half
	# width and broadcast over both halves of the batch.
	shape = (2, *delta_in.shape)
	grad = _rescale(delta_in, delta_out, grad_input[0].reshape(shape),
		grad_output[0].reshape(shape))

	return (grad.reshape(grad_input[0].shape),)


def _windows_overlap(module):
	"""Whether any two of a pooling module's windows can share an input.

	A window spans `dilation * (kernel_size - 1) + 1` positions, so the
	windows tile without touching exactly when that span fits inside the
	stride. Each of the three parameters is a scalar for a 1D pool and may be
	a pair for a 2D one, so every axis is checked.

	Parameters
	----------
	module: torch.nn.Module
		A MaxPool1d or MaxPool2d, or anything else carrying `kernel_size`,
		`stride` and `dilation`.


	Returns
	-------
	overlap: bool
		Whether one input position can win more than one window.
	"""

	def _tuple(value):
		return value if isinstance(value, (tuple, list)) else (value,)

	kernel = _tuple(module.kernel_size)
	stride = _tuple(module.stride)
	dilation = _tuple(module.dilation)

	def _axis(value, i):
		return value[i] if len(value) > 1 else value[0]

	n = max(len(kernel), len(stride), len(dilation))
	return any(_axis(dilation, i) * (_axis(kernel, i) - 1) + 1 > _axis(stride, i)
		for i in range(n))


def _is_dilated(module):
	"""Whether a pooling module spaces the entries of its windows apart.

	`max_unpool1d` and `max_unpool2d` take no dilation argument and check
	the output size against an undilated window span, so they can reject the
	true input length of a dilated pool whether or not its windows overlap.

	Parameters
	----------
	module: torch.nn.Module
		A MaxPool1d or MaxPool2d, or anything else carrying `dilation`.


	Returns
	-------
	dilated: bool
		Whether any axis has a dilation greater than one.
	"""

	dilation = module.dilation
	if not isinstance(dilation, (tuple, list)):
		dilation = (dilation,)

	return any(d > 1 for d in dilation)


def _unpool(values, indices, shape):
	"""Route pooled values back to the input positions that won each max.

	`torch.nn.functional.max_unpool1d` and its 2D counterpart assign rather
	than accumulate, so when one input position is the argmax of more than one
	output window -- which happens whenever the pooling windows overlap, as
	they do for `MaxPool1d(4, 2)` -- every contribution but one is silently
	dropped. Scatter-adding keeps all of them, which is what the rescale rule
	needs for the routed change to sum to the change in the pooled output.
	The two agree exactly when the windows do not overlap.

	Parameters
	----------
	values: torch.tensor
		The values to route back, shaped like the pooled output.

	indices: torch.tensor
		The argmax indices returned by `max_pool1d` or `max_pool2d` when
		called with `return_indices=True`, which index into the flattened
		spatial dimensions of the un-pooled input.

	shape: torch.Size or tuple
		The shape of the un-pooled input, `(batch, channels, *spatial)`.


	Returns
	-------
	unpooled: torch.tensor
		`values` accumulated into a tensor of shape `shape`.
	"""

	n, d = shape[0], shape[1]

	unpooled = torch.zeros(n, d, math.prod(shape[2:]), dtype=values.dtype,
		device=values.device)
	unpooled.scatter_add_(-1, indices.reshape(n, d, -1),
		values.reshape(n, d, -1))

	return unpooled.reshape(shape)


def _maxpool(module, grad_input, grad_output):
	"""An internal function implementing a max-pooling correction.

	This function, copied and slightly modified from Captum, is meant to be
	the `rescale` rule applied to max pooling layers given their nature of
	aggregating values across multiple positions.

	Pooling is not elementwise, so the rescale rule cannot be applied
	position by position. Instead the change in the pooled output is routed
	back through the pooling indices, which sends each output's share to
	whichever input position won the max and accumulates the shares landing
	on the same position, and the result is divided by the change in the
	input. Despite the name, both MaxPool1d and MaxPool2d are handled;
	anything else raises.
	
	Parameters
	----------
	module: torch.nn.Module
		The module being corrected. The backward hook has put `module.input`
		and `module.output` on it for the forward call being unwound, each
		holding the observed batch concatenated with the reference batch along
		the first axis.

	grad_input: tuple of torch.tensor
		What torch would pass to a full backward hook as the gradient with
		respect to the module's inputs: the upstream gradient propagated through
		this module's ordinary local gradient. Its observed half is substituted
		at the positions where the input does not change at all, which are the
		only ones without a well-defined ratio.

	grad_output: tuple of torch.tensor
		The upstream gradient handed to a full backward hook: the gradient of
		the model output with respect to this module's output.


	Returns
	-------
	grad_input: tuple of one torch.tensor
		The replacement gradient with respect to the module's input, i.e. the
		upstream gradient propagated through the DeepLIFT multiplier for this
		module instead of through its ordinary local gradient.


	Raises
	------
	ValueError
		If the module is neither a MaxPool1d nor a MaxPool2d.
	"""

	if isinstance(module, torch.nn.MaxPool1d):
		pool_func, unpool_func = F.max_pool1d, F.max_unpool1d
	elif isinstance(module, torch.nn.MaxPool2d):
		pool_func, unpool_func = F.max_pool2d, F.max_unpool2d
	else:
		raise ValueError("module must be either MaxPool1d or MaxPool2d")


	with torch.no_grad():
		delta_in_ = torch.sub(*module.input.chunk(2))

		output, output_ref = module.output.chunk(2)
		delta_out_xmax = torch.max(output, output_ref)
		delta_out = torch.cat([delta_out_xmax - output_ref, 
			output - delta_out_xmax])

		_, indices = pool_func(module.input, module.kernel_size, module.stride, 
			module.padding, module.dilation, module.ceil_mode, True)

		# `max_unpool` is one kernel to the scatter-add's two and gives the
		# same answer when no two windows share an input. It drops shares
		# when they do, and can reject dilated pools (`_is_dilated`).
		if _windows_overlap(module) or _is_dilated(module):
			unpool_ = _unpool(grad_output[0] * delta_out, indices,
				module.input.shape)
		else:
			unpool_ = unpool_func(grad_output[0] * delta_out, indices,
				module.kernel_size, module.stride, module.padding,
				list(module.input.shape))
		unpool_delta, unpool_ref_delta = torch.chunk(unpool_, 2)

	unpool_delta_ = unpool_delta + unpool_ref_delta

	# A position's routed change is bounded by its own change, so only an
	# exact zero needs a fallback. Both halves must take the same multiplier
	# there, or the pair stops summing to delta in a pooling rule further up,
	# so it is built once at half width.
	idxs_ = delta_in_ == 0
	denominator_ = delta_in_.masked_fill(idxs_, 1)

	half = torch.where(idxs_, grad_input[0].chunk(2)[0],
		unpool_delta_ / denominator_)

	new_grad_inp = torch.cat([half, half])
	return (new_grad_inp,)


def _glu(module, grad_input, grad_output):
	"""An internal function implementing the correction for GLU.

	A gated linear unit splits its input in half along `module.dim` and
	returns `y = a * sigmoid(b)`, so it is neither elementwise nor
	shape-preserving: the output is half the width of the input and each
	output depends on two input positions. The rescale rule therefore does
	not apply, and applying it anyway raises a size mismatch.

	The product of two varying quantities takes the same midpoint rule the
	bilinear op uses. Writing s = sigmoid(b), the multipliers are

		m_{a -> y} = (s + s_ref) / 2
		m_{b -> y} = (a + a_ref) / 2 * Δs / Δb

	which sum to delta exactly, because the cross terms cancel:

		Δa * (s + s_ref)/2 + (a + a_ref)/2 * Δs = a * s - a_ref * s_ref

	Only the secant Δs/Δb needs a guard; it falls back to the sigmoid's
	derivative at the reference when the two logits are too close.


	Parameters
	----------
	module: torch.nn.GLU
		The module being corrected. The backward hook has put `module.input`
		and `module.output` on it for the forward call being unwound, each
		holding the observed batch concatenated with the reference batch along
		the first axis. `module.dim` is the axis the input is halved along.

	grad_input: tuple of torch.tensor
		What torch would pass to a full backward hook as the gradient with
		respect to the module's inputs: the upstream gradient propagated through
		this module's ordinary local gradient. Unused; the closed form is
		evaluated everywhere and the one ratio in it has its own fallback.

	grad_output: tuple of torch.tensor
		The upstream gradient handed to a full backward hook: the gradient of
		the model output with respect to this module's output.


	Returns
	-------
	grad_input: tuple of one torch.tensor
		The replacement gradient with respect to the module's input, i.e. the
		upstream gradient propagated through the DeepLIFT multiplier for this
		module instead of through its ordinary local gradient.


	Raises
	------
	ValueError
		If the module gates along the batch axis.
	"""

	dim = module.dim
	if dim < 0:
		dim = module.input.ndim + dim

	if dim == 0:
		raise ValueError("GLU over the batch axis is not supported. "
			"DeepLIFT stacks each example with its reference along that axis, "
			"so gating over it would mix the two.")

	x, x_ref = module.input.chunk(2, dim=0)
	a, b = x.chunk(2, dim=dim)
	a_ref, b_ref = x_ref.chunk(2, dim=dim)

	s = torch.sigmoid(b)
	s_ref = torch.sigmoid(b_ref)

	# m_{a -> y}, the sigmoid averaged over the two ends of the path.
	mult_a = (s + s_ref) / 2

	# m_{b -> y}, the other operand's average times the sigmoid's secant.
	delta_b = b - b_ref
	ds_db = torch.where(delta_b.abs() > 1e-6, (s - s_ref) / delta_b,
		s_ref * (1 - s_ref))
	mult_b = (a + a_ref) / 2 * ds_db

	grad_out, grad_out_ref = grad_output[0].chunk(2, dim=0)

	grad_in = torch.cat([grad_out * mult_a, grad_out * mult_b], dim=dim)
	grad_in_ref = torch.cat([grad_out_ref * mult_a, grad_out_ref * mult_b],
		dim=dim)

	return (torch.cat([grad_in, grad_in_ref], dim=0),)


def _layer_normalization_helper(module, grad_input, grad_output,
	norm_type: str = "layernorm"):
	"""An internal function implementing the correction for the norm layers.

	LayerNorm and RMSNorm differ only in whether the input is mean-centred
	first, so both rules are derived here and the two public hooks select
	between them. Neither layer is elementwise: every output position depends
	on every input position in the normalized window, through the mean and
	the variance. A rescale rule applied position by position would therefore
	miss most of the dependence.

	Writing y_i = γ_i * a_i * v + β_i, where a_i = x_i - μ and
	v = (σ^2 + ε) ** -0.5, the multiplier from input j to output i is

		m_ji = γ_i * [ (v + v_ref)/2 * (δ_ij - 1/D)
			+ (a_i + a_ref_i)/2 * (Δv / Δσ^2) * (a_j + a_ref_j) / D ]

	where δ_ij is the Kronecker delta, equal to 1 if i = j and 0 otherwise.

	Multiplying by the upstream gradient g_i and summing over the outputs gives
	the vectorized form computed below, in two terms

		grad_in_j = (v + v_ref)/2 * (g_tilde_j - mean(g_tilde_j))   [Term 1]
			+ (Δv / Δ(σ^2)) * (a_j + a_ref_j)/(2D) * sum_i[g_tilde_i * (a_i + a_ref_i)]   [Term 2]

	where g_tilde_i = g_i * γ_i is the upstream gradient scaled by the affine
	weight.

	RMSNorm is the same expression with a_i = x_i and no mean subtraction, and
	so has no mean term in the first half.

	The ratio Δv / Δ(σ^2) is evaluated in closed form as
	-v^2 * v_ref^2 / (v + v_ref) rather than as a difference quotient, which
	avoids the cancellation that would otherwise dominate when the two
	variances are close.
	
	Parameters
	----------
	module: torch.nn.Module
		The module being corrected. The backward hook has put `module.input`
		and `module.output` on it for the forward call being unwound, each
		holding the observed batch concatenated with the reference batch along
		the first axis.

	grad_input: tuple of torch.tensor
		What torch would pass to a full backward hook as the gradient with
		respect to the module's inputs: the upstream gradient propagated through
		this module's ordinary local gradient. Unused; the closed form is
		evaluated everywhere and needs no fallback.

	grad_output: tuple of torch.tensor
		The upstream gradient handed to a full backward hook: the gradient of
		the model output with respect to this module's output.

	norm_type: str, optional
		Either "layernorm", which mean-centres the input first, or "rmsnorm",
		which does not. Default is "layernorm".


	Returns
	-------
	grad_input: tuple of one torch.tensor
		The replacement gradient with respect to the module's input, i.e. the
		upstream gradient propagated through the DeepLIFT multiplier for this
		module instead of through its ordinary local gradient.
	"""

	assert norm_type in ["layernorm", "rmsnorm"], (
		f"Unsupported norm_type: {norm_type}")

	x, x_ref = module.input.chunk(2)
	n_norm_dims = len(module.normalized_shape)

	# `torch.nn.RMSNorm.eps` defaults to None, which `F.rms_norm` reads as the
	# dtype's epsilon.
	eps = module.eps if module.eps is not None else torch.finfo(x.dtype).eps
	mu, v = _layer_normalization_stats(x, n_norm_dims, eps, norm_type)
	mu_ref, v_ref = _layer_normalization_stats(x_ref, n_norm_dims, eps,
		norm_type)
	terms = _layer_normalization_terms(x, mu, v, x_ref, mu_ref, v_ref,
		n_norm_dims)

	# gamma-scaled upstream gradients for both halves of the batch
	gamma = module.weight if module.weight is not None else 1.0
	g_tilde, g_tilde_ref = (grad_output[0] * gamma).chunk(2)

	grad_in = _layer_normalization_grad(g_tilde, *terms, n_norm_dims,
		norm_type)
	grad_in_ref = _layer_normalization_grad(g_tilde_ref, *terms, n_norm_dims,
		norm_type)

	return (torch.cat([grad_in, grad_in_ref]),)


def _layer_normalization_stats(x, n_norm_dims, eps, norm_type="layernorm"):
	"""The statistics of `_layer_normalization_helper`'s derivation over the
	last `n_norm_dims` axes of `x`, with those axes kept: the mean mu, None
	for RMSNorm, which does not centre, and the inverse standard deviation
	v = (σ^2 + eps)^{-1/2}."""

	norm_dims = list(range(-n_norm_dims, 0))

	# Mean-centered inputs: a_i = x_i - mu
	if norm_type == "rmsnorm":
		mu = None
		a = x
	else:
		mu = x.mean(dim=norm_dims, keepdim=True)
		a = x - mu

	# Inverse std: v = (σ^2 + eps)^{-1/2}
	var = (a ** 2).mean(dim=norm_dims, keepdim=True)
	return mu, (var + eps) ** (-0.5)


def _layer_normalization_terms(x, mu, v, x_ref, mu_ref, v_ref, n_norm_dims):
	"""The terms of the normalization rule that depend only on the
	activations, from `_layer_normalization_helper`'s derivation: v_avg, a_sum
	and Term 2's leading factor.

	`x` and `x_ref` come with their statistics, from
	`_layer_normalization_stats`, so that a caller can compute them once and
	keep them. They are normalized over their last `n_norm_dims` axes and
	broadcast against each other on the others, so one example can be paired
	with each of its references without being copied.
	"""

	D = 1
	for s in x.shape[-n_norm_dims:]:
		D *= s

	a = x if mu is None else x - mu
	a_ref = x_ref if mu_ref is None else x_ref - mu_ref

	v_avg = (v + v_ref) / 2
	a_sum = a + a_ref

	# ratio = Δv / Δ(σ^2)
	#       = (v - v_ref) / (v^{-2} - v_ref^{-2})
	#       = -v^2 * v_ref^2 / (v + v_ref)
	#       = -v^2 * v_ref^2 / (2 * v_avg)
	ratio = (-(v ** 2) * (v_ref ** 2)) / (2 * v_avg)

	# Term 2's leading factor is shared by both halves, so build it once.
	variance_term = ratio * a_sum / (2 * D)
	return v_avg, a_sum, variance_term


def _layer_normalization_grad(g_tilde, v_avg, a_sum, variance_term,
	n_norm_dims, norm_type="layernorm"):
	"""The normalization rule's gradient at the input, given the gamma-scaled
	upstream gradient `g_tilde` of one half of the batch and the terms of
	`_layer_normalization_terms`."""

	norm_dims = list(range(-n_norm_dims, 0))
	if norm_type == "rmsnorm":
		term1 = v_avg * g_tilde
	else:
		term1 = v_avg * (g_tilde - g_tilde.mean(dim=norm_dims, keepdim=True))
	dot = (g_tilde * a_sum).sum(dim=norm_dims, keepdim=True)
	return term1 + variance_term * dot


def _layernorm(module, grad_input, grad_output):
	"""An internal function implementing the correction for LayerNorm.

	A thin wrapper around `_layer_normalization_helper`, which carries the
	derivation for both norm layers. LayerNorm mean-centres the input before
	scaling it, so the multiplier picks up a mean term that RMSNorm does not
	have.


	Parameters
	----------
	module: torch.nn.LayerNorm
		The module being corrected. The backward hook has put `module.input`
		and `module.output` on it for the forward call being unwound, each
		holding the observed batch concatenated with the reference batch along
		the first axis.

	grad_input: tuple of torch.tensor
		What torch would pass to a full backward hook as the gradient with
		respect to the module's inputs: the upstream gradient propagated through
		this module's ordinary local gradient. Unused; the closed form is
		evaluated everywhere and needs no fallback.

	grad_output: tuple of torch.tensor
		The upstream gradient handed to a full backward hook: the gradient of
		the model output with respect to this module's output.


	Returns
	-------
	grad_input: tuple of one torch.tensor
		The replacement gradient with respect to the module's input, i.e. the
		upstream gradient propagated through the DeepLIFT multiplier for this
		module instead of through its ordinary local gradient.
	"""

	return _layer_normalization_helper(module, grad_input, grad_output,
		norm_type="layernorm")


def _rmsnorm(module, grad_input, grad_output):
	"""An internal function implementing the correction for RMSNorm.

	A thin wrapper around `_layer_normalization_helper`, which carries the
	derivation for both norm layers. RMSNorm skips the mean subtraction, so
	the same expression is evaluated with a_i = x_i and without the mean term.


	Parameters
	----------
	module: torch.nn.RMSNorm
		The module being corrected. The backward hook has put `module.input`
		and `module.output` on it for the forward call being unwound, each
		holding the observed batch concatenated with the reference batch along
		the first axis.

	grad_input: tuple of torch.tensor
		What torch would pass to a full backward hook as the gradient with
		respect to the module's inputs: the upstream gradient propagated through
		this module's ordinary local gradient. Unused; the closed form is
		evaluated everywhere and needs no fallback.

	grad_output: tuple of torch.tensor
		The upstream gradient handed to a full backward hook: the gradient of
		the model output with respect to this module's output.


	Returns
	-------
	grad_input: tuple of one torch.tensor
		The replacement gradient with respect to the module's input, i.e. the
		upstream gradient propagated through the DeepLIFT multiplier for this
		module instead of through its ordinary local gradient.
	"""

	return _layer_normalization_helper(module, grad_input, grad_output,
		norm_type="rmsnorm")


def _bilinear(module, grad_input, grad_output):
	"""An internal function implementing the correction for bilinear tensor
	products using the DeepLIFT midpoint product rule.

	A product admits more than one DeepLIFT rule. The one implemented here is
	the midpoint product rule, which for a scalar product (y = ab) yields the
	multipliers

		m_{a -> y} = (b + b_ref) / 2
		m_{b -> y} = (a + a_ref) / 2

	which are the ordinary derivatives of y at the midpoint of a straight-line
	path from the reference values to the observed ones. The same holds for a
	bilinear tensor product, whose multiplier matrix is the ordinary Jacobian
	evaluated at that midpoint. `torch.autograd.grad` can therefore produce the
	Jacobian-vector product against the upstream gradient directly, without
	materializing the Jacobian.

	Unlike the other rules here this returns two multipliers rather than one,
	because the module takes two operands.


	Parameters
	----------
	module: BilinearOp
		The module being corrected, carrying the two cached operands as
		`module.left` and `module.right` and the contraction as
		`module.equation`. Each operand holds the observed batch concatenated
		with the reference batch along the first axis.

	grad_input: tuple of torch.tensor
		What torch would pass to a full backward hook as the gradients with
		respect to the module's inputs: the upstream gradient propagated through
		this module's ordinary local gradient. Unused; the rule is well defined
		everywhere and needs no fallback.

	grad_output: tuple of torch.tensor
		The upstream gradient handed to a full backward hook: the gradient of
		the model output with respect to this module's output.


	Returns
	-------
	grad_input: tuple of two torch.tensor
		The replacement gradients with respect to the left and right operands,
		i.e. the upstream gradient propagated through the DeepLIFT multiplier for
		each operand instead of through this module's ordinary local gradient.
	"""

	left, left_ref = module.left.chunk(2)
	right, right_ref = module.right.chunk(2)
	grad_out, grad_out_ref = grad_output[0].chunk(2)

	left_mid = (0.5 * (left + left_ref)).detach().requires_grad_(True)
	right_mid = (0.5 * (right + right_ref)).detach().requires_grad_(True)

	with torch.enable_grad():
		if module.equation is None:
			out = torch.matmul(left_mid, right_mid)
		elif module.equation == "...,...->...":
			out = left_mid * right_mid
		else:
			out = torch.einsum(module.equation, left_mid, right_mid)

		grad_in_left, grad_in_right = torch.autograd.grad(
			out,
			(left_mid, right_mid),
			grad_outputs=grad_out,
			retain_graph=True,
			create_graph=False,
		)

		grad_in_left_ref, grad_in_right_ref = torch.autograd.grad(
			out,
			(left_mid, right_mid),
			grad_outputs=grad_out_ref,
			retain_graph=False,
			create_graph=False,
		)

	return (
		torch.cat([grad_in_left, grad_in_left_ref], dim=0),
		torch.cat([grad_in_right, grad_in_right_ref], dim=0),
	)


def _softmax(module, grad_input, grad_output):
	"""An internal function implementing the correction for softmax.

	This rule decomposes the operation into steps that each have an exact
	multiplier and then chains them

		a_i = exp(x_i - c),   s = sum_i a_i,   v = 1 / s,   y_i = a_i * v

	where c is subtracted from both the observed and the reference logits for
	numerical stability and cancels out of the result.

	The rule is applied along whichever axis the module normalizes over. Only
	the batch axis is rejected, because DeepLIFT stacks each example with its
	reference along it and a softmax over that axis would mix the two.


	Parameters
	----------
	module: torch.nn.Softmax
		The module being corrected, carrying the cached `module.input` and the
		axis to normalize over as `module.dim`.

	grad_input: tuple of torch.tensor
		What torch would pass to a full backward hook as the gradient with
		respect to the module's inputs: the upstream gradient propagated through
		this module's ordinary local gradient. Unused.

	grad_output: tuple of torch.tensor
		The upstream gradient handed to a full backward hook: the gradient of
		the model output with respect to this module's output.


	Returns
	-------
	grad_input: tuple of one torch.tensor
		The replacement gradient with respect to the module's input, i.e. the
		upstream gradient propagated through the DeepLIFT multiplier for this
		module instead of through its ordinary local gradient.


	Raises
	------
	ValueError
		If the module normalizes over the batch axis.
	"""

	dim = module.dim
	if dim < 0:
		dim = module.input.ndim + dim

	if dim == 0:
		raise ValueError("Softmax over the batch axis is not supported. "
			"DeepLIFT stacks each example with its reference along that axis, "
			"so normalizing over it would mix the two.")

	# Half precision cannot resolve the differences divided below or the 1e-6
	# guards, so compute in at least float32; `_b_hook` casts back.
	dtype = torch.promote_types(module.input.dtype, torch.float32)
	x, x_ref = module.input.to(dtype).chunk(2, dim=0)
	grad_out, grad_out_ref = grad_output[0].to(dtype).chunk(2, dim=0)

	# Picking c = max(x, x_ref) makes the largest exponent exactly exp(0)=1,
	# so nothing overflows.
	c = torch.maximum(
		x.max(dim=dim, keepdim=True).values,
		x_ref.max(dim=dim, keepdim=True).values,
	)
	a = torch.exp(x - c)
	a_ref = torch.exp(x_ref - c)
	s = a.sum(dim=dim, keepdim=True)
	s_ref = a_ref.sum(dim=dim, keepdim=True)
	# s underflows to zero, which makes log(v) below NaN, only when a mask
	# differs between an example and its reference. Such a row carries no
	# attribution, so the clamped value does not matter.
	tiny = torch.finfo(s.dtype).tiny
	v = s.clamp_min(tiny).reciprocal()
	v_ref = s_ref.clamp_min(tiny).reciprocal()
	y = a * v
	y_ref = a_ref * v_ref

	# Multiplier for x_j -> a_j, with derivative fallback.
	# m_{x_j -> a_j} = Δa_j / Δx_j
	delta_x = x - x_ref
	mult_x_to_a = torch.where(delta_x.abs() > 1e-6, (a - a_ref) / delta_x,
		a_ref)

	# Define a few intermediate quantities for the log-ratio multipliers.
	delta_y = y - y_ref
	delta_v = v - v_ref
	delta_log_v = torch.log(v) - torch.log(v_ref)

	# Δlog(a_j) is Δx_j, since log(a_j) = x_j - c with the same c on both
	# sides, so Δlog(y_j) = Δlog(a_j) + Δlog(v) reuses delta_x.
	delta_log_y = delta_x + delta_log_v

	delta_y_over_delta_log_y = torch.where(
		delta_log_y.abs() > 1e-6,
		delta_y / delta_log_y,
		y_ref,
	)
	delta_log_v_over_delta_v = torch.where(
		delta_v.abs() > 1e-6,
		delta_log_v / delta_v,
		v_ref.reciprocal(),
	)

	# Log-ratio multiplier for the denominator path (m_{v -> y_i}).
	#  m_{v -> y_i} = (Δy_i / Δlog(y_i)) * (Δlog(v) / Δv)
	mult_v_to_y = delta_y_over_delta_log_y * delta_log_v_over_delta_v

	# Combine the a_i -> y_i and v -> y_i paths with the upstream gradient:
	#
	#     grad_in_j = grad_out_j * (Δy_j / Δlog(y_j))
	#         - m_{x_j -> a_j} * sum_i grad_out_i
	#             * (1 / (s * s_ref))
	#             * (Δy_i / Δlog(y_i))
	#             * (Δlog(v) / Δv)
	#
	# The numerator path has no factor of m_{x_j -> a_j}: times
	# Δlog(a_j) / Δa_j it is Δlog(a_j) / Δx_j, which is one. Guarding the two
	# ratios separately instead fails on a peaked softmax, where Δa trips its
	# threshold while Δx does not.
	reciprocal_mult = -v * v_ref # reuse the clamped reciprocals
	grad_in = (
		grad_out * delta_y_over_delta_log_y
		+ mult_x_to_a
			* (grad_out * mult_v_to_y * reciprocal_mult).sum(dim=dim,
				keepdim=True)
	)
	grad_in_ref = (
		grad_out_ref * delta_y_over_delta_log_y
		+ mult_x_to_a
			* (grad_out_ref * mult_v_to_y * reciprocal_mult).sum(dim=dim,
				keepdim=True)
	)

	return (torch.cat([grad_in, grad_in_ref], dim=0),)


def _gauss_legendre(n_points):
	"""Return Gauss-Legendre nodes and weights mapped from [-1, 1] to [0, 1].

	Gauss-Legendre quadrature is defined on [-1, 1], but we use it for a path
	integral that runs from the reference activation to the observed one,
	parameterized over [0, 1]. Both the nodes and the weights are rescaled
	once, when the hook is built, rather than on every backward pass.


	Parameters
	----------
	n_points: int
		The number of quadrature points.


	Returns
	-------
	alphas: numpy.ndarray, shape=(n_points,)
		The quadrature nodes, on [0, 1].

	weights: numpy.ndarray, shape=(n_points,)
		The corresponding weights, summing to one.
	"""

	nodes, weights = leggauss(n_points)
	alphas = (nodes + 1.0) / 2.0
	weights = weights / 2.0
	return alphas, weights


# The cached activations each rule reads; `_f_hook` clones only these. The
# bilinear rule reads the operands `BilinearOp` staged and needs neither. A
# rule without `_reads`, such as one from `additional_nonlinear_ops`, gets both.
_READS_BOTH = ("input", "output")

_nonlinear._reads = _READS_BOTH
_maxpool._reads = _READS_BOTH
_glu._reads = ("input",)
_layernorm._reads = ("input",)
_rmsnorm._reads = ("input",)
_softmax._reads = ("input",)
_bilinear._reads = ()


def _build_nonlinear_ops(additional_nonlinear_ops=None):
	"""Build the table mapping a module type onto the rule that corrects it.

	`deep_lift_shap` and `pisa` both call this, so a rule cannot be registered
	in one and silently missing (treated as linear) in the other. A fresh
	dictionary is returned on every call so that one call's
	`additional_nonlinear_ops` cannot leak into the next. `BilinearOp` is
	imported locally because `deep_lift_shap` imports this module.


	Parameters
	----------
	additional_nonlinear_ops: dict or None, optional
		Rules to add to the table, keyed by module type. A key that collides
		with a built-in replaces it. If None, return the built-in table
		alone. Default is None.


	Returns
	-------
	ops: dict
		A mapping from module type onto a function with the signature
		`rule(module, grad_input, grad_output)`.
	"""

	from .deep_lift_shap import BilinearOp

	ops = {
		torch.nn.ReLU: _nonlinear,
		torch.nn.ReLU6: _nonlinear,
		torch.nn.RReLU: _nonlinear,
		torch.nn.SELU: _nonlinear,
		torch.nn.CELU: _nonlinear,
		torch.nn.GELU: _nonlinear,
		torch.nn.SiLU: _nonlinear,
		torch.nn.Mish: _nonlinear,
		torch.nn.GLU: _glu,
		torch.nn.ELU: _nonlinear,
		torch.nn.LeakyReLU: _nonlinear,
		torch.nn.Sigmoid: _nonlinear,
		torch.nn.Tanh: _nonlinear,
		torch.nn.Softplus: _nonlinear,
		torch.nn.Softshrink: _nonlinear,
		torch.nn.LogSigmoid: _nonlinear,
		torch.nn.PReLU: _nonlinear,
		torch.nn.MaxPool1d: _maxpool,
		torch.nn.MaxPool2d: _maxpool,
		torch.nn.Softmax: _softmax,
		torch.nn.LayerNorm: _layernorm,
		torch.nn.RMSNorm: _rmsnorm,
		BilinearOp: _bilinear,
	}

	if additional_nonlinear_ops is not None:
		ops.update(additional_nonlinear_ops)

	return ops
