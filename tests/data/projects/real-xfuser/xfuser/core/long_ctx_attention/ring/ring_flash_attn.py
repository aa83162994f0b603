from typing import List
import inspect
import math
import torch
import torch.nn.functional as F

from xfuser.core.long_ctx_attention import xFuserLongContextAttention
from xfuser.core.cache_manager.cache_manager import get_cache_manager
import xfuser.envs as envs

if torch.cuda.is_available() or envs._is_npu():
    from yunchang.ring.utils import RingComm, update_out_and_lse
    from yunchang.ring.ring_flash_attn import RingFlashAttnFunc
    from yunchang.kernels import select_flash_attn_impl, AttnType
else:
    RingComm = object
    RingFlashAttnFunc = object
    AttnType = None
    select_flash_attn_impl = None

try:
    import flash_attn
    from flash_attn.flash_attn_interface import _flash_attn_forward
except ImportError:
    flash_attn = None
    _flash_attn_forward = None


def _call_fa3_forward(
    fn,
    q: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    *,
    dropout_p: float,
    softmax_scale,
    causal: bool,
    window_size,
    softcap: float,
    alibi_slopes,
    return_softmax: bool,
    q_descale=None,
    k_descale=None,
    v_descale=None,
):
    """Call a FlashAttention-3 forward adapter across yunchang versions.

    The FA3 adapter in older yunchang releases does not expose the optional
    descaling arguments.  Passing ``None`` for those arguments still raises a
    ``TypeError`` on such releases, so only non-``None`` scales are added when
    the selected adapter advertises them.  A supplied scale is never silently
    discarded: adapters that do not support it fail with a useful error.
    """
    call_kwargs = {
        "dropout_p": dropout_p,
        "softmax_scale": softmax_scale,
        "causal": causal,
        "window_size": window_size,
        "softcap": softcap,
        "alibi_slopes": alibi_slopes,
        "return_softmax": return_softmax,
    }
    descales = {
        "q_descale": q_descale,
        "k_descale": k_descale,
        "v_descale": v_descale,
    }
    supplied = {name: value for name, value in descales.items() if value is not None}
    if supplied:
        try:
            parameters = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            # Extension callables may not expose a Python signature.  Let the
            # kernel validate the arguments in that case.
            parameters = None

        accepts_kwargs = parameters is None or any(
            parameter.kind is inspect.Parameter.VAR_KEYWORD
            for parameter in parameters.values()
        )
        unsupported = (
            []
            if accepts_kwargs or parameters is None
            else [name for name in supplied if name not in parameters]
        )
        if unsupported:
            names = ", ".join(unsupported)
            raise TypeError(
                "The selected FlashAttention-3 adapter does not support "
                f"descaling arguments: {names}"
            )
        call_kwargs.update(supplied)

    return fn(q, key, value, **call_kwargs)


def xdit_ring_flash_attn_forward(
    process_group,
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    softmax_scale,
    dropout_p=0,
    causal=True,
    window_size=(-1, -1),
    alibi_slopes=None,
    deterministic=False,
    attn_type=AttnType.FA,
    attn_processor=None,
    attn_layer=None,
    joint_tensor_key=None,
    joint_tensor_value=None,
    joint_strategy="none",
    q_descale=None,
    k_descale=None,
    v_descale=None,
):
    is_joint = False
    if (joint_tensor_key is not None and 
        joint_tensor_value is not None):
        supported_joint_strategy = ["front", "rear"]
        if joint_strategy not in supported_joint_strategy:
            raise ValueError(
                f"joint_strategy: {joint_strategy} not supprted. supported joint strategy: {supported_joint_strategy}"
            )
        else:
            is_joint = True
    elif (joint_tensor_key is None and 
        joint_tensor_value is None):
        pass
    else:
        raise ValueError(
            f"joint_tensor_key and joint_tensor_value should be None or not None simultaneously."
        )

    comm = RingComm(process_group)

    out = None
    lse = None

    next_k, next_v = None, None

    if attn_layer is not None:
        k, v = get_cache_manager().update_and_get_kv_cache(
            new_kv=[k, v],
            layer=attn_layer,
            slice_dim=1,
            layer_type="attn",
        )
        k = k.contiguous()
        v = v.contiguous()

    for step in range(comm.world_size):
        if step + 1 != comm.world_size:
            next_k: torch.Tensor = comm.send_recv(k)
            next_v: torch.Tensor = comm.send_recv(v)
            comm.commit()

        if is_joint and joint_strategy == "rear":
            if step + 1 == comm.world_size:
                key = torch.cat([k, joint_tensor_key], dim=1)
                value = torch.cat([v, joint_tensor_value], dim=1)
            else:
                key, value = k, v
        elif is_joint and joint_strategy == "front":
            if step == 0:
                key = torch.cat([joint_tensor_key, k], dim=1)
                value = torch.cat([joint_tensor_value, v], dim=1)
            else:
                key, value = k, v
        else:
            key, value = k, v

        if not causal or step <= comm.rank:
            fn = select_flash_attn_impl(attn_type, stage="fwd-only", attn_processor=attn_processor)
            if attn_type == AttnType.FA3: 
                block_out, block_lse = _call_fa3_forward(
                    fn,
                    q,
                    key,
                    value,
                    dropout_p=dropout_p,
                    softmax_scale=softmax_scale,
                    causal=causal and step == 0,
                    window_size=window_size,
                    softcap=0.0,
                    alibi_slopes=alibi_slopes,
                    return_softmax=True and dropout_p > 0,
                    q_descale=q_descale,
                    k_descale=k_descale,
                    v_descale=v_descale,
                )
            else:
                block_out, block_lse = fn(
                    q,
                    key,
                    value,
                    dropout_p=dropout_p,
                    softmax_scale=softmax_scale,
                    causal=causal and step == 0,
                    window_size=window_size,
                    softcap=0.0,
                    alibi_slopes=alibi_slopes,
                    return_softmax=True and dropout_p > 0,
                )
            if attn_type == AttnType.SPARSE_SAGE:
                out, lse = block_out, block_lse
            else:
                out, lse = update_out_and_lse(out, lse, block_out, block_lse)

        if step + 1 != comm.world_size:
            comm.wait()
            k = next_k
            v = next_v

    out = out.to(q.dtype)
    if attn_type != AttnType.SPARSE_SAGE:
        lse = lse.squeeze(dim=-1).transpose(1, 2)
    return out, lse


class xFuserRingFlashAttnFunc(RingFlashAttnFunc):
    @staticmethod
    def forward(
        ctx,
        q,
        k,
        v,
        dropout_p,
        softmax_scale,
        causal,
        window_size,
        alibi_slopes,
        deterministic,
        return_softmax,
        group,
        attn_type,
        attn_processor,
        attn_layer,
        joint_tensor_key,
        joint_tensor_value,
        joint_strategy,
        q_descale=None,
        k_descale=None,
        v_descale=None,
    ):
        if softmax_scale is None:
            softmax_scale = 1.0 / math.sqrt(q.size(-1))

        assert alibi_slopes is None
        if attn_layer is None:
            k = k.contiguous()
            v = v.contiguous()
        out, softmax_lse = xdit_ring_flash_attn_forward(
            group,
            q,
            k,
            v,
            softmax_scale=softmax_scale,
            dropout_p=dropout_p,
            causal=causal,
            window_size=window_size,
            alibi_slopes=alibi_slopes,
            deterministic=False,
            attn_type=attn_type,
            attn_processor=attn_processor,
            attn_layer=attn_layer,
            joint_tensor_key=joint_tensor_key,
            joint_tensor_value=joint_tensor_value,
            joint_strategy=joint_strategy,
            q_descale=q_descale,
            k_descale=k_descale,
            v_descale=v_descale,
        )
        # this should be out_padded
        ctx.save_for_backward(q, k, v, out, softmax_lse)
        ctx.softcap = 0.0
        ctx.dropout_p = dropout_p
        ctx.softmax_scale = softmax_scale
        ctx.causal = causal
        ctx.window_size = window_size
        ctx.alibi_slopes = alibi_slopes
        ctx.deterministic = deterministic
        ctx.group = group
        ctx.attn_type = attn_type
        ctx.attn_processor = attn_processor
        ctx.q_descale = q_descale
        ctx.k_descale = k_descale
        ctx.v_descale = v_descale
        return out if not return_softmax else (out, softmax_lse, None)
    
    @staticmethod
    def backward(ctx, dout, *args):
        from yunchang.ring.ring_flash_attn import ring_flash_attn_backward
        
        q, k, v, out, softmax_lse = ctx.saved_tensors
        dq, dk, dv = ring_flash_attn_backward(
            ctx.group,
            dout,
            q, k, v,
            out,
            softmax_lse,
            softmax_scale=ctx.softmax_scale,
            dropout_p=ctx.dropout_p,
            causal=ctx.causal,
            window_size=ctx.window_size,
            softcap=0.0,  # xFuser doesn't use softcap in forward
            alibi_slopes=ctx.alibi_slopes,
            deterministic=ctx.deterministic,
            attn_type=ctx.attn_type,
        )
        
        # Return gradients: 3 tensor gradients + 17 None values for non-tensor params
        # Order matches forward parameters:
        # dq, dk, dv, (dropout_p, softmax_scale, causal, window_size,
        #              alibi_slopes, deterministic, return_softmax, group,
        #              attn_type, attn_processor, attn_layer, joint_tensor_key,
        #              joint_tensor_value, joint_strategy, q_descale, k_descale,
        #              v_descale)
        return (
            dq, dk, dv,        # Gradients for q, k, v
            None, None, None, None,  # dropout_p, softmax_scale, causal, window_size
            None, None, None, None,  # alibi_slopes, deterministic, return_softmax, group
            None, None,              # attn_type, attn_processor
            None, None, None, None, # attn_layer, joint_tensor_key, joint_tensor_value, joint_strategy
            None, None, None,       # q_descale, k_descale, v_descale
        )


def xdit_ring_flash_attn_func(
    q,
    k,
    v,
    dropout_p=0.0,
    softmax_scale=None,
    causal=False,
    window_size=(-1, -1),
    alibi_slopes=None,
    deterministic=False,
    return_attn_probs=False,
    group=None,
    attn_type=AttnType.FA,
    attn_processor=None,
    attn_layer=None,
    joint_tensor_key=None,
    joint_tensor_value=None,
    joint_strategy="none",
    q_descale=None,
    k_descale=None,
    v_descale=None,
):
    return xFuserRingFlashAttnFunc.apply(
        q,
        k,
        v,
        dropout_p,
        softmax_scale,
        causal,
        window_size,
        alibi_slopes,
        deterministic,
        return_attn_probs,
        group,
        attn_type,
        attn_processor,
        attn_layer,
        joint_tensor_key,
        joint_tensor_value,
        joint_strategy,
        q_descale,
        k_descale,
        v_descale,
    )

def xdit_sana_ring_flash_attn_forward(
    process_group,
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    attn_layer=None,
):

    comm = RingComm(process_group)

    out = None

    next_k, next_v = None, None

    if attn_layer is not None:
        k, v = get_cache_manager().update_and_get_kv_cache(
            new_kv=[k, v],
            layer=attn_layer,
            slice_dim=1,
            layer_type="attn",
        )
        k = k.contiguous()
        v = v.contiguous()
        
    q = F.relu(q).permute(0, 2, 3, 1).contiguous()
    k = F.relu(k).transpose(1, 2).contiguous()
    v = v.permute(0, 2, 3, 1).contiguous()
    v = F.pad(v, (0, 0, 0, 1), mode="constant", value=1.0)

    for step in range(comm.world_size):
        if step + 1 != comm.world_size:
            next_k: torch.Tensor = comm.send_recv(k)
            next_v: torch.Tensor = comm.send_recv(v)
            comm.commit()

        key, value = k, v

        # b x n_heads x len_seq x d
        q, key, value = q.float(), key.float(), value.float()
        block_out = value @ key @ q
        out = block_out.float() if out is None else out + block_out.float()

        if step + 1 != comm.world_size:
            comm.wait()
            k = next_k
            v = next_v

    out = out.to(q.dtype)
    out = out[:, :, :-1] / (out[:, :, -1:] + torch.finfo(out.dtype).eps)
    out = out.transpose(-2, -1)
    return out

class xFuserSanaRingFlashAttnFunc(RingFlashAttnFunc):
    @staticmethod
    def forward(
        ctx,
        q,
        k,
        v, 
        attn_layer, 
        group, 
    ):

        if attn_layer is None:
            k = k.contiguous()
            v = v.contiguous()
        out = xdit_sana_ring_flash_attn_forward(
            group,
            q,
            k,
            v,
            attn_layer=attn_layer,
        )
        
        ctx.group = group
        return out

def xdit_sana_ring_flash_attn_func(
        q:torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        group=None,
        attn_layer=None,
    ) -> torch.Tensor:

    return xFuserSanaRingFlashAttnFunc.apply(
        q,
        k,
        v, 
        attn_layer, 
        group, 
    )
