"""Readers and rules fixed after blind batch 6: each test is a real excerpt from the thread it names."""

from __future__ import annotations

from envsnap.importers import evidence, messages
from envsnap.rules import evaluate
from envsnap.snapshot.finalize import finalize
from tests.rules.pasted import findings_of, kinds_of, snapshot_of


def _packages(text: str) -> dict[str, str]:
    return {p.name: p.version for p in snapshot_of(text).packages or ()}


IPEX_IMPORT = (
    "    import intel_extension_for_pytorch._C as core\n"
    "ImportError: /root/miniconda3/envs/pytorch/lib/python3.9/site-packages/intel_extension_for_pytorch/lib/"
    "libintel-ext-pt-gpu.so: **undefined symbol: _ZNK5torch8autograd4Node4nameB5cxx11Ev**\n"
)


def test_an_undefined_const_member_symbol_of_torch_is_an_abi_mismatch() -> None:
    """oneapi-src/oneAPI-samples#1596: IPEX's GPU library misses torch::autograd::Node::name() const —
    a _ZNK name, which the pattern (only _ZN) did not match."""
    kinds = [m.kind for m in messages.scan(IPEX_IMPORT).messages]
    assert "torch-abi-mismatch" in kinds
    assert findings_of(IPEX_IMPORT) == {("companion-version-mismatch", "error")}


def test_a_c10_const_member_symbol_is_matched_and_other_symbols_are_not() -> None:
    """intel/intel-extension-for-pytorch#477's title: c10::SymBool::guard_bool(...) const (torch 2.0 only)."""
    c10 = "ImportError: libmine.so: undefined symbol: _ZNK3c107SymBool10guard_boolEPKcl\n"
    assert [m.kind for m in messages.scan(c10).messages] == ["torch-abi-mismatch"]
    # a symbol of another library (std::, a CUDA API) says nothing about torch's ABI
    other = (
        "ImportError: libfoo.so: undefined symbol: "
        "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE4findEPKcm\n"
    )
    assert "torch-abi-mismatch" not in [m.kind for m in messages.scan(other).messages]


WHEELS = (
    "and I installed :torch-1.9.0+cu111-cp37-cp37m-win_amd64.whl   &  "
    "torchvision-0.9.1+cu111-cp37-cp37m-win_amd64.whl\n"
)


def test_wheel_file_names_without_a_url_are_the_installed_versions() -> None:
    """pytorch/pytorch#61947: the wheels named alone, after a colon and between spaces."""
    assert _packages(WHEELS) == {"torch": "1.9.0+cu111", "torchvision": "0.9.1+cu111"}


def test_a_name_ending_in_torch_is_not_a_torch_wheel() -> None:
    """'pytorch-...' (conda's archive) and 'libtorch-...' are other files; a URL still counts."""
    text = "pytorch-1.9.0-py3.7_cuda11.1_cudnn8_0.tar.bz2 and libtorch-1.9.0-cp37.zip\n"
    assert not any(f.kind == "package" for f in evidence.read(text))
    url = "https://download.pytorch.org/whl/cu111/torch-1.9.0%2Bcu111-cp37-cp37m-linux_x86_64.whl\n"
    assert [(f.detail, f.value) for f in evidence.read(url) if f.kind == "package"] == [
        ("torch", "1.9.0+cu111")
    ]


def test_torchvision_of_another_torch_1x_release_is_a_companion_mismatch() -> None:
    """pytorch/pytorch#61947: torchvision 0.9.1 belongs to torch 1.8.1 (vision's README table), not 1.9.0."""
    assert findings_of(WHEELS) == {("companion-version-mismatch", "error")}
    paired = WHEELS.replace("torchvision-0.9.1", "torchvision-0.10.0")
    assert findings_of(paired) == set()


def test_a_nightly_torch_next_to_older_companions_from_collect_env() -> None:
    """pytorch/pytorch#78343: torch 1.13 nightly with torchvision 0.12.0 (for 1.11) and torchaudio 0.11.0."""
    text = (
        "PyTorch version: 1.13.0.dev20220525\n"
        "Is debug build: False\n"
        "CUDA used to build PyTorch: None\n"
        "ROCM used to build PyTorch: N/A\n"
        "\n"
        "OS: macOS 12.2.1 (arm64)\n"
        "\n"
        "Versions of relevant libraries:\n"
        "[pip3] numpy==1.22.4\n"
        "[pip3] torch==1.13.0.dev20220525\n"
        "[pip3] torchaudio==0.11.0\n"
        "[pip3] torchvision==0.12.0\n"
    )
    assert findings_of(text) == {("companion-version-mismatch", "error")}
    fixed = text.replace("torchaudio==0.11.0", "torchaudio==0.13.0").replace(
        "torchvision==0.12.0", "torchvision==0.14.0"
    )
    assert findings_of(fixed) == set()


FOOTER = (
    "A python: 3.10.10  \u2022  torch: 1.12.1  \u2022  xformers: N/A  \u2022  gradio: 3.16.2  \u2022  "
    "commit: 0cc0ee1b  \u2022  checkpoint: bf864f41d5\n"
)


def test_an_a1111_footer_with_bullets_states_torch() -> None:
    """AUTOMATIC1111/stable-diffusion-webui#9133: the footer was refused (no fact read) before."""
    facts = {(f.kind, f.value) for f in evidence.read(FOOTER)}
    assert ("torch", "1.12.1") in facts
    # read, not refused: an untagged version pins no build (no CUDA variant), so it is a fact, not a framework
    origin = snapshot_of(FOOTER).meta.origin
    assert origin is not None
    assert list(origin.sections or ()) == ["facts"]
    assert findings_of(FOOTER) == set()


def test_an_a1111_footer_pairs_xformers_with_torch() -> None:
    """The same footer on Windows with xformers (A1111 1.6 style): both versions read, the pair judged."""
    text = (
        "version: v1.6.0  \u2022  python: 3.10.11  \u2022  torch: 2.0.1+cu118  \u2022  xformers: 0.0.20  "
        "\u2022  gradio: 3.41.2  \u2022  checkpoint: 6ce0161689\n"
    )
    assert _packages(text).get("xformers") == "0.0.20"
    assert not any(f.id == "companion-version-mismatch" for f in evaluate(finalize(snapshot_of(text))))


def test_os_release_and_lsb_release_lines_name_the_os() -> None:
    """ROCm/ROCm#1930 pasted `cat /etc/lsb-release`; /etc/os-release says the same in PRETTY_NAME."""
    lsb = (
        "cat /etc/lsb-release \n"
        "DISTRIB_ID=Ubuntu\n"
        "DISTRIB_RELEASE=22.04\n"
        "DISTRIB_CODENAME=jammy\n"
        'DISTRIB_DESCRIPTION="Ubuntu 22.04.2 LTS"\n'
    )
    snapshot = snapshot_of(lsb)
    assert snapshot.host is not None
    assert snapshot.host.os_name == "Ubuntu 22.04.2 LTS"
    pretty = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'
    assert ("os", "Debian GNU/Linux 12 (bookworm)") in {(f.kind, f.value) for f in evidence.read(pretty)}


def test_nvidia_smi_unable_to_reach_the_driver_is_no_driver() -> None:
    """pytorch/pytorch#67991: nvidia-smi's own failure next to torch's 'No CUDA GPUs are available'; the
    line was read by no reader before (a paste of it alone was refused)."""
    text = (
        "$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
        "latest NVIDIA driver is installed and running.\n"
        "\n"
        'File "/home/ubuntu/.local/lib/python3.9/site-packages/torch/cuda/__init__.py", line 214, '
        "in _lazy_init\n"
        "    torch._C._cuda_init()\n"
        "RuntimeError: No CUDA GPUs are available\n"
    )
    assert "no-nvidia-driver" in kinds_of(text)
    assert findings_of(text) == {("nvidia-driver-not-found", "error")}
    # qixuema/envs#4 pasted it with a typographic apostrophe
    assert kinds_of(
        "NVIDIA-SMI has failed because it couldn\u2018t communicate with the NVIDIA driver.\n"
    ) == ["no-nvidia-driver"]


def test_device_lines_judged_by_no_rule_make_a_paste_readable() -> None:
    """Lone lines from Comfy-Org/ComfyUI#2489 (MPS out of memory), huggingface/diffusers#5247 (c10.dll,
    French Windows) and intel/intel-extension-for-pytorch#244 (xpu): each was refused, none is a mismatch."""
    lines = {
        "mps-out-of-memory": (
            "RuntimeError: MPS backend out of memory (MPS allocated: 5.56 GB, other allocations: 1.10 GB, "
            "max allowed: 6.80 GB). Tried to allocate 768.00 MB on private pool. Use "
            "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0\n"
        ),
        "torch-dll-load": (
            "OSError: [WinError 126] Le module sp\u00e9cifi\u00e9 est introuvable. Error loading "
            '"C:\\ai\\stable-diffusion-webui\\venv\\lib\\site-packages\\torch\\lib\\c10.dll" or one of its '
            "dependencies.\n"
        ),
        "xpu-not-linked": "`RuntimeError: PyTorch is not linked with support for xpu devices`\n",
    }
    for kind, text in lines.items():
        assert kinds_of(text) == [kind]
        assert findings_of(text) == set(), kind


def test_a_dll_of_another_package_is_not_torchs() -> None:
    """The DLL pattern names torch's own lib folder only (onnxruntime's is judged elsewhere)."""
    text = (
        "OSError: [WinError 126] The specified module could not be found. Error loading "
        '"C:\\venv\\lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"\n'
    )
    assert "torch-dll-load" not in kinds_of(text)
