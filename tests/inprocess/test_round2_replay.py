"""Issue 23, items 1, 2, 7, 8: bundles read by structure, and replays that stay faithful.

Real CPU torch, models built in code (round2_models.py). Timing is never asserted (``slow=None``).
"""

from __future__ import annotations

import contextlib
import json
import struct
from pathlib import Path

import pytest
import torch
from safetensors.torch import save

import envsnap
from envsnap.errors import BadInput
from envsnap.inprocess.bundle.check import check_tensor_file
from envsnap.inprocess.verify.report import VerifyReport
from tests.inprocess.round2_models import (
    ConvNet,
    KVCache,
    images,
    make_gpt,
    tanh_gelu,
    tokens,
)

FAST = {"environment": "none", "repeats": 2, "warmup": 0}


def _header_128_bytes() -> bytes:
    """A real safetensors file whose header length is 128 mod 256 (its first byte is 0x80)."""
    for length in range(1, 400):
        data: bytes = save({"x" * length: torch.zeros(2)})
        if data[0] == 0x80:
            return data
    raise AssertionError("no name length gives a header of 128 mod 256")


def test_a_safetensors_header_of_128_mod_256_bytes_is_accepted() -> None:
    data = _header_128_bytes()
    header = check_tensor_file(data, "inputs.safetensors")
    assert len(header.tensors) == 1


def test_pickle_bytes_are_still_refused_as_pickle() -> None:
    import io
    import pickle

    buffer = io.BytesIO()
    pickle.dump({"weights": [1.0, 2.0]}, buffer, protocol=4)
    with pytest.raises(BadInput, match="pickle"):
        check_tensor_file(buffer.getvalue(), "inputs.safetensors")
    torch_buffer = io.BytesIO()
    torch.save({"w": torch.zeros(2)}, torch_buffer)
    with pytest.raises(BadInput, match=r"pickle/torch\.save"):
        check_tensor_file(torch_buffer.getvalue(), "inputs.safetensors")


def test_a_forged_header_length_is_refused_in_one_line() -> None:
    body = json.dumps({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
    data = struct.pack("<Q", len(body) + 50) + body + bytes(8)
    with pytest.raises(BadInput, match="header"):
        check_tensor_file(data, "inputs.safetensors")


def _record_decode(path: Path, gpt: torch.nn.Module, scale: float = 1.0) -> None:
    """Prefill then one decode step, both through the cache object (unstorable)."""
    with envsnap.record(path, model=gpt, **FAST) as rec:  # type: ignore[arg-type]
        cache = KVCache()
        cache.scale_cached = scale
        gpt(tokens(seq=6), cache=cache)
        rec.tap("next", gpt(tokens(seq=1, seed=3), cache=cache))


def _verify_decode(path: Path, gpt: torch.nn.Module, scale: float = 1.0) -> VerifyReport:
    with envsnap.verify(path, model=gpt, environment="none", slow=None) as v:
        cache = KVCache()
        cache.scale_cached = scale
        gpt(tokens(seq=6), cache=cache)
        v.tap("next", gpt(tokens(seq=1, seed=3), cache=cache))
    return v.report


def test_an_unstorable_cache_argument_makes_noise_unknown_not_fake(tmp_path: Path) -> None:
    path = tmp_path / "decode"
    _record_decode(path, make_gpt())
    manifest = envsnap.verify(path).bundle.manifest
    assert any("KVCache" in note for note in manifest.notes)
    # No value is given a noise measured on a replay that fed None for the cache.
    assert all(leaf.noise_max_abs is None for call in manifest.calls for leaf in call.outputs)

    same = _verify_decode(path, make_gpt())
    assert same.verdict in ("pass", "pass-with-limitations")
    assert not any("nondeterministic" in x for x in same.limitations)

    buggy = _verify_decode(path, make_gpt(), scale=1.05)  # the cached keys come back 5% off
    assert buggy.verdict == "fail"


def _train_step(model: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    out = model(x)
    loss = out.float().pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    result: torch.Tensor = out
    return result


def test_a_training_step_keeps_the_reference_the_reference(tmp_path: Path) -> None:
    path = tmp_path / "train"
    gpt = make_gpt().train()
    with envsnap.record(path, model=gpt, **FAST):  # type: ignore[arg-type]
        _train_step(gpt, tokens())
    manifest = envsnap.verify(path).bundle.manifest
    noise = [leaf.noise_max_abs for call in manifest.calls for leaf in call.outputs]
    assert all(n in (None, 0.0) for n in noise), "the noise replay ran on the updated weights"

    target = tanh_gelu(make_gpt(), 0).train()
    with envsnap.verify(path, model=target, environment="none", slow=None) as v:
        _train_step(target, v.inputs)
    assert v.report.verdict == "fail"

    same = make_gpt().train()
    with envsnap.verify(path, model=same, environment="none", slow=None) as v:
        _train_step(same, v.inputs)
    assert v.report.verdict in ("pass", "pass-with-limitations")


def test_a_batch_caught_raising_inside_the_block_does_not_corrupt_the_capture(tmp_path: Path) -> None:
    path = tmp_path / "skip"
    gpt = make_gpt()
    with envsnap.record(path, model=gpt, **FAST):  # type: ignore[arg-type]
        with contextlib.suppress(IndexError, RuntimeError):  # a bad batch, skipped
            gpt(tokens(seq=CONTEXT_TOO_LONG))
        gpt(tokens())
    manifest = envsnap.verify(path).bundle.manifest
    assert len(manifest.top_calls) == 1
    assert [c.key for c in manifest.calls][-1] == "GPT#0"
    assert "h.0.attn.c_attn#0" in {c.key for c in manifest.calls}

    with envsnap.verify(path, model=make_gpt(), environment="none", slow=None) as v:
        make_gpt()  # a second model built inside the block is not the verified one
        v.model(v.inputs)
    assert v.report.verdict == "pass"


CONTEXT_TOO_LONG = 40  # past the position table: wpe raises inside the forward


def _state(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in model.state_dict().items()}


def test_record_and_verify_leave_buffers_and_rng_as_the_block_left_them(tmp_path: Path) -> None:
    path = tmp_path / "cnn"
    torch.manual_seed(0)
    net = ConvNet().train()
    with envsnap.record(path, model=net, **FAST):  # type: ignore[arg-type]
        net(images())
        after_block = _state(net)
        rng = torch.random.get_rng_state()
    assert net.bn1.num_batches_tracked is not None
    assert net.bn1.num_batches_tracked.item() == 1
    for key, value in _state(net).items():
        assert torch.equal(value, after_block[key]), key
    assert torch.equal(torch.random.get_rng_state(), rng)

    torch.manual_seed(0)
    target = ConvNet().train()
    with envsnap.verify(path, model=target, environment="none", slow=None) as v:
        target(v.inputs)
        after_block = _state(target)
        rng = torch.random.get_rng_state()
    for key, value in _state(target).items():
        assert torch.equal(value, after_block[key]), key
    assert torch.equal(torch.random.get_rng_state(), rng)
    assert v.report.verdict in ("pass", "pass-with-limitations")
