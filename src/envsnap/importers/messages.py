"""The lines torch, NVML and HIP print around a pasted report: evidence as strong as the report itself.

A bug report rarely holds only ``collect_env``: the warnings torch printed while collecting it and
the traceback that made the user file the issue sit around it. Each line recognized here becomes a
``ReportMessage`` (kind + the text as pasted) in ``meta.origin.messages``, and the facts it states
are written where the rules already look, so live snapshots and imports are judged alike:

- ``found version 10010`` (torch's "driver too old"): a CUDA driver API version, 10010 = CUDA 10.1,
  the newest CUDA the driver runs -> ``accelerators.nvidia.cuda_driver_version``;
- ``... with CUDA capability sm_120 is not compatible ... supports CUDA capabilities sm_50 ...``:
  the GPU's capability and the build's arch list -> the device and ``frameworks.torch.arch_list``;
- ``Found GPU0 ... which is of cuda capability 3.7``: the GPU's capability;
- ``Driver/library version mismatch``: ``accelerators.nvidia.library_version_mismatch``.

Paste wraps long lines, so the patterns run over the text with whitespace collapsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from envsnap.importers.base import ImportedSections
from envsnap.snapshot.model import (
    Accelerators,
    Frameworks,
    NvidiaDevice,
    NvidiaInfo,
    ReportMessage,
    TorchInfo,
)

MAX_TEXT = 300
"""A message is kept to this many characters: the evidence, not the whole traceback."""

_DRIVER_TOO_OLD = re.compile(
    r"The NVIDIA driver on your system is too old \(found version (?P<api>\d{4,5})\)"
)
_SM_INCOMPATIBLE = re.compile(
    r"(?P<name>[\w .()/-]{2,80}?) with CUDA capability sm_(?P<sm>\d{2,3})a? "
    r"is not compatible with the current "
    # "installation.The current": the two sentences glued when the warning is quoted on one line
    r"PyTorch installation\.?\s*The current PyTorch install supports CUDA capabilities "
    r"(?P<list>(?:(?:sm|compute)_\d{2,3}a?[ ,]*)+)",
    re.IGNORECASE,
)
_SM_INCOMPATIBLE_ALONE = re.compile(
    r"(?P<name>[\w .()/-]{2,80}?) with CUDA capability sm_(?P<sm>\d{2,3})a? "
    r"is not compatible with the current PyTorch installation\b",
    re.IGNORECASE,
)
"""The same warning's first sentence alone, as issue titles and one-line summaries quote it ("Bug
Report:NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the current PyTorch
installation."): torch says the GPU's capability has no kernels in the build; only the build's list is not
known."""
_TOO_OLD_GPU = re.compile(
    r"Found GPU ?(?P<index>\d+) (?P<name>.{2,80}?) which is of cuda capability (?P<cc>\d+\.\d+)\.?"
    r"(?: PyTorch no longer supports this GPU)?"
    # torch >= 2.8 words the same check as a range: "Minimum and Maximum cuda capability supported by this
    # version of PyTorch is (7.0) - (12.0)"
    r"(?: Minimum and Maximum cuda capability supported by this version of PyTorch is "
    r"\((?P<min>\d{1,2}\.\d{1,2})\) ?- ?\((?P<max>\d{1,2}\.\d{1,2})\))?",
    re.IGNORECASE,
)
_AMD_NAME = re.compile(r"\b(?:AMD|Radeon|Instinct|Ellesmere|Polaris|Vega|Navi|gfx\d{3,4})\b", re.I)
_SIMPLE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("no-kernel-image", re.compile(r"no kernel image is available for execution on the device", re.I)),
    ("no-kernel-image", re.compile(r"cudaErrorNoKernelImageForDevice")),
    (
        # ggml's NO_DEVICE_CODE trap (llama.cpp, whisper.cpp, ollama, koboldcpp): "ERROR: CUDA kernel
        # mul_mat_vec has no device code compatible with CUDA arch 520. ggml-cuda.cu was compiled for: ...";
        # the HIP build words it "HIP kernel ... HIP arch 1300". The kernel the GPU needs is not in the build.
        "no-kernel-image",
        re.compile(
            r"\b(?:CUDA|HIP) kernel \w{1,100} has no device code compatible with (?:CUDA|HIP) arch \d{2,4}\b"
        ),
    ),
    (
        "hip-invalid-device-function",
        re.compile(
            r"HIP error: invalid device function|hipErrorInvalidDeviceFunction|hipErrorNoBinaryForGpu|"
            r"Unable to find code object for all current devices|"
            # rocBLAS's form (ollama, llama.cpp, torch): no Tensile kernels for the GPU's gfx target
            r"TensileLibrary\.dat: Illegal seek for GPU arch ?: ?gfx\w+",
            re.I,
        ),
    ),
    ("nvml-mismatch", re.compile(r"Driver/library version mismatch|NVRM: API mismatch", re.I)),
    (
        # ollama's own check of the GPU's gfx target against the ROCm libraries it ships (amd_linux.go):
        # 'amdgpu [0] gfx1103 is not supported by /tmp/ollama.../rocm [gfx1030 gfx1100 ...]', and its later
        # form 'amdgpu is not supported (supported types:[gfx1030 ...])" gpu_type=gfx1103'
        "rocm-gfx-not-in-library",
        re.compile(
            r"\bamdgpu (?:\[\d{1,3}\] )?gfx[0-9a-f]{3,4} is not supported by \S{1,300} "
            r"\[gfx[0-9a-f]{3,4}(?: gfx[0-9a-f]{3,4}){0,40}\]"
            r"|\bamdgpu is not supported \(supported types:\[gfx[0-9a-f]{3,4}(?: gfx[0-9a-f]{3,4}){0,40}\]\)"
            r"\\?\"? {1,4}gpu_type=gfx[0-9a-f]{3,4}\b",
        ),
    ),
    (
        "driver-insufficient",
        re.compile(r"CUDA driver version is insufficient for CUDA runtime version", re.I),
    ),
    (
        # PaddlePaddle's "Cuda error(35)": CUDA runtime error 35 is cudaErrorInsufficientDriver (the same
        # cause, when a title or summary keeps only the code)
        "driver-insufficient",
        re.compile(r"\bCuda error\(35\)", re.I),
    ),
    (
        # JAX's warning that its CUDA backend did not start (it falls back to the CPU): evidence of a GPU
        # stack problem, judged by no rule (the reason after the colon varies: a missing CUDA, a cuInit error)
        "jax-cuda-backend-failed",
        re.compile(r"CUDA backend failed to initialize: [^\n]{3,200}"),
    ),
    (
        # ONNX Runtime's CUDA execution provider DLL that Windows could not load (error 126: a DLL it needs,
        # CUDA's or cuDNN's, is missing): the session runs on the CPU; judged by no rule, it names no version
        "ort-cuda-provider-not-loaded",
        re.compile(
            r'LoadLibrary failed with error 12[67] "[^"\n]{0,100}" when trying to load '
            r'"[^"\n]{0,300}?onnxruntime_providers_cuda\.dll'
        ),
    ),
    (
        # CUDA error 804 (cudaErrorCompatNotSupportedOnDevice): the CUDA runtime is newer than the kernel
        # driver and the forward-compatibility libcuda it tried (a CUDA image's compat package) serves
        # data-centre GPUs only: on this GPU the driver is simply too old for the program's CUDA.
        "driver-forward-compat",
        re.compile(r"forward compatibility was attempted on non supported HW", re.I),
    ),
    (
        # CUDA error 222 (cudaErrorUnsupportedPtxVersion / CUDA_ERROR_UNSUPPORTED_PTX_VERSION): the PTX came
        # from a newer toolkit than the driver's JIT compiler supports, i.e. the driver is older than the
        # CUDA the program was built with (llama.cpp/ollama runners, Triton kernels print it so).
        "ptx-unsupported-toolchain",
        re.compile(
            r"the provided PTX was compiled with an unsupported toolchain|"
            r"cudaErrorUnsupportedPtxVersion|CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
            re.I,
        ),
    ),
    (
        "no-nvidia-driver",
        # The third is the banner NVIDIA's CUDA/NGC container images print at start when the container
        # was run without the GPU (no ``--gpus``, no NVIDIA runtime): no driver is visible inside it.
        re.compile(
            r"Found no NVIDIA driver on your system|NVML Shared Library Not Found|"
            r"The NVIDIA Driver was not detected\.\s+GPU functionality will not be available|"
            # nvidia-smi's own: the kernel module is not loaded (or the container has no GPU mounted)
            r"NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver|"
            # the NVIDIA container toolkit's hook: the host has no NVML (libnvidia-ml ships with the driver)
            r"nvidia-container-cli: initialization error: load library failed: libnvidia-ml\.so\.1",
            re.I,
        ),
    ),
    (
        # A GPU the driver cannot reach: NVML's answer for a device that fell off the bus (nvidia-smi
        # prints it instead of its table), the kernel's Xid 79 line, and the kernel's line for a GPU the
        # driver could not initialise at all (then nvidia-smi says "No devices were found").
        "gpu-lost",
        re.compile(
            r"Unable to determine the device handle for GPU ?"
            r"[0-9A-Fa-f]{0,8}:?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]: "
            r"(?:Unknown Error|GPU is lost)|GPU has fallen off the bus|RmInitAdapter failed!|"
            # lspci's line for an NVIDIA device whose config space reads all ones: it is off the bus
            r"NVIDIA Corporation [^\n]{1,100}\(rev ff\)",
            re.I,
        ),
    ),
    (
        # kept as evidence: vLLM chose its CPU platform, so its probe's "NVML Shared Library Not Found" is
        # the expected answer on a machine without an NVIDIA driver, not a missing driver.
        "vllm-cpu-platform",
        re.compile(
            r"Automatically detected platform cpu\.|device type=cpu is not supported by the V1 Engine", re.I
        ),
    ),
    (
        # jaxlib's plugin_support.py warns so when a jax_cuda*/jax_rocm* plugin from another release is
        # installed (then JAX does not use it and runs on the CPU): the plugin and jaxlib versions are both
        # in the line.
        "jax-plugin-incompatible",
        re.compile(
            r"JAX plugin jax_(?:cuda|rocm)\d+_plugin version \S+ is installed,\s+but it is not compatible "
            r"with the installed jaxlib version [\w.+-]+"
        ),
    ),
    ("torch-not-compiled-with-cuda", re.compile(r"Torch not compiled with CUDA enabled", re.I)),
    # collect_env's build line when ``torch.version.cuda`` is None: torch imported (else it says N/A) and has
    # no CUDA. Judged only beside a torch version and no ROCm/XPU build (auto.py, rules/build.py).
    (
        "torch-build-no-cuda",
        re.compile(r"\bCUDA used to build PyTorch\s{0,40}[:：]\s*(?:None|Could not collect)\b"),
    ),
    # kept as evidence for the CPU-only check: the launchers of kohya_ss, SD.Next and their forks log this
    # when nvidia-smi is on PATH (their check_torch: shutil.which('nvidia-smi')), i.e. an NVIDIA driver is
    # installed, before they log the torch they import
    ("launcher-nvidia-smi-found", re.compile(r"\bnVidia toolkit detected\b")),
    # the same assertion from torch.xpu (torch/xpu/__init__.py _lazy_init) when the build has no XPU
    ("torch-not-compiled-with-xpu", re.compile(r"Torch not compiled with XPU enabled", re.I)),
    ("gpu-too-old", re.compile(r"PyTorch no longer supports this GPU because it is too old", re.I)),
    # torch's "driver too old" error quoted without its "(found version NNNNN)": torch's own words for a
    # driver older than the CUDA the build needs, so the cause without the driver's number
    ("driver-too-old", re.compile(r"The NVIDIA driver on your system is too old(?! ?\(found version)")),
    ("no-cuda-gpus", re.compile(r"No CUDA GPUs are available", re.I)),
    ("cuda-init", re.compile(r"CUDA initialization: [^\n]{3,}", re.I)),
    (
        "cudnn-mismatch",
        re.compile(
            # torch >= 1.0 prints tuples and "incompatibility"; torch 0.4 printed "mismatch" and the
            # versions as integers ("compiled against 7102 but linked against 7600" = 7.1.2 vs 7.6.0).
            r"cuDNN version (?:incompatibility|mismatch): PyTorch was compiled\s+against "
            r"(?:\([\d, ]+\)|\d{3,5}) but (?:linked against|found runtime version) (?:\([\d, ]+\)|\d{3,5})"
            r"|Loaded runtime CuDNN library: [\d.]+ but source was compiled with: [\d.]+",
            re.I,
        ),
    ),
    (
        "xformers-built-for",
        re.compile(
            r"xFormers was built for:\s+PyTorch (?P<built>\S+) with CUDA \S+ \(you have (?P<have>[^)]+)\)",
            re.I,
        ),
    ),
    (
        "nvcc-mismatch",
        re.compile(
            r"The detected CUDA version \([\d.]+\) mismatches the version that was used to compile\s+"
            r"PyTorch \([\d.]+\)",
            re.I,
        ),
    ),
    # _ZN names a function in a namespace, _ZNK a const member function (c10::SymBool::guard_bool,
    # torch::autograd::Node::name): both are torch's ABI.
    ("torch-abi-mismatch", re.compile(r"undefined symbol: _ZNK?(?:3c10|2at|5torch)\w*")),
    (
        # DeepSpeed's op_builder raises this when its prebuilt ops were built with another torch (or CUDA)
        # than the one importing them; only the whole message with both versions, not a guide quoting its
        # first words.
        "deepspeed-ops-other-torch",
        re.compile(
            r"DeepSpeed ops were compiled and installed with a different version than what is being used at "
            r"runtime\.[^\n]{0,200}?(?:Install (?:torch|CUDA) version=[\w.+]{1,20}, Runtime (?:torch|CUDA) "
            r"version=[\w.+]{1,20}|DeepSpeed install versions: torch=[\w.+]{1,20}, cuda=[\w.+]{1,20}, "
            r"runtime versions: ?torch=[\w.+]{1,20})"
        ),
    ),
    (
        "onnxruntime-cuda-libs",
        # Only a CUDA library's soname number is a CUDA major (libcublasLt.so.11 = CUDA 11); a missing
        # libcudnn*.so.9 is cuDNN 9 not installed, whatever CUDA major onnxruntime was built for.
        # Windows names the DLL: 'onnxruntime_providers_cuda.dll" which depends on "cublasLt64_12.dll"'.
        re.compile(
            r"libonnxruntime_providers_cuda\.so with error: lib(?!cudnn)\w+\.so\.\d+: "
            r"cannot open shared object file"
            r'|onnxruntime_providers_cuda\.dll" which depends on "(?!cudnn)\w+64_\d+\.dll" which is missing'
        ),
    ),
    (
        # kept as evidence, judged by no rule: cuDNN's major is not installed (or not on the path)
        "onnxruntime-cudnn-missing",
        re.compile(
            r"libonnxruntime_providers_cuda\.so with error: libcudnn\w*\.so\.\d+: "
            r"cannot open shared object file"
            r'|onnxruntime_providers_cuda\.dll" which depends on "cudnn\w*64_\d+\.dll" which is missing'
        ),
    ),
    (
        # kept as evidence, judged by no rule: TensorFlow could not dlopen a CUDA library. On a machine
        # without a GPU it prints these at every start ("Ignore above cudart dlerror if you do not have a
        # GPU set up"), so a missing libcudart/libcuda here says nothing about a broken stack by itself.
        "tensorflow-cuda-library-missing",
        re.compile(
            r"Could not load dynamic library '(?:lib)?(?:cuda|cudart|cublas|cublasLt|cufft|curand|cusolver"
            r"|cusparse|cudnn|nvinfer|nvinfer_plugin)\w*\.(?:so(?:\.\d+(?:\.\d+)?)?|dll)'; dlerror"
        ),
    ),
    # Kept as evidence, judged by no rule: what a run printed about its device, so a paste of these lines
    # alone is read (not refused) and names the platform, without a mismatch to report.
    ("mps-out-of-memory", re.compile(r"MPS backend out of memory \(MPS allocated: [\d.]+ \w+")),
    # torch's caching allocator on a CUDA (ROCm: HIP) device: the workload wants more memory than is free,
    # which a working stack prints as readily as a broken one ("Tried to allocate 1.69 GiB (GPU 0; 14.56 GiB
    # total capacity; ..." before torch 2.1, "GPU 0 has a total capacity of ..." after)
    (
        "cuda-out-of-memory",
        re.compile(r"\b(?:CUDA|HIP) out of memory\. Tried to allocate \d{1,6}(?:\.\d{1,3})? [KMGT]?i?B\b"),
    ),
    # a kernel read or wrote outside its memory (cudaErrorIllegalAddress, hipErrorIllegalAddress): a bug in
    # the kernel or its inputs, which the CUDA runtime reports on a working stack; torch and ggml print the
    # runtime's own string. Kept as evidence, as the out-of-memory line is: the paste is read, no cause named.
    ("cuda-illegal-address", re.compile(r"\b(?:CUDA|HIP) error: an illegal memory access was encountered\b")),
    # NCCL could not run a CUDA call (NCCL_DEBUG=INFO names it): a device, driver or topology state at run
    # time ("Cuda failure 999 'unknown error'"), not a version of the stack; torch's c10d words it "NCCL
    # error in: <file>:<line>, unhandled cuda error, NCCL version 2.7.8", vLLM's pynccl "NCCL error:
    # unhandled cuda error", NCCL 2.4's own "NCCL Error 1: unhandled cuda error"
    (
        "nccl-cuda-error",
        re.compile(
            r"\bNCCL error(?: \d{1,2})?(?: in: \S{1,300})?:? unhandled cuda error|\bncclUnhandledCudaError\b",
            re.I,
        ),
    ),
    # torch's MPSFallback warning: an op without an MPS kernel ran on the CPU (slow, not broken); the
    # quotes are often turned typographic by the forum or editor the text went through
    (
        "mps-op-fallback",
        re.compile(
            r"The operator ['\u2018][\w:.]{1,100}['\u2019] is not currently supported on the MPS backend "
            r"and will fall back to run on the CPU"
        ),
    ),
    (
        # Windows could not load one of torch's own DLLs (a missing VC++ runtime or libomp, a broken
        # wheel): WinError 126 "module not found", 127 "procedure not found".
        "torch-dll-load",
        re.compile(r"\[WinError 12[67]\][^\n]{0,200}?Error loading \S{0,300}?torch\\lib\\\w+\.dll"),
    ),
    # kept as evidence, judged by no rule: torch's NotImplementedError for an op with no MPS kernel when the
    # CPU fallback is off (torch 1.12 printed "is not current implemented", later releases "currently"); it
    # names the Apple GPU backend and an operator gap, not a mismatch in the stack
    (
        "mps-op-not-implemented",
        re.compile(
            r"The operator ['\u2018][\w:.]{1,100}['\u2019] is not current(?:ly)? implemented "
            r"for the MPS device"
        ),
    ),
    (
        # TensorFlow's own refusal of a GPU below its build's minimum compute capability ("Ignoring
        # visible gpu device (device: 0, name: GeForce 820M, ..., compute capability: 2.1) with Cuda
        # compute capability 2.1. The minimum required Cuda capability is 3.0."): the build has no kernels
        # for it. Its twin about the multiprocessor count ("The minimum required count is 8") is a tunable
        # threshold, not the build.
        "tf-gpu-below-minimum",
        re.compile(
            r"Ignoring visible gpu device \([^()\n]{0,200}\) with Cuda compute capability \d{1,2}\.\d{1,2}\. "
            r"The minimum required Cuda capability is \d{1,2}\.\d{1,2}\b"
        ),
    ),
    (
        # candle's own refusal (the Rust ML library under text-embeddings-inference): the GPU's compute
        # capability ("Runtime compute cap 70") is not one its kernels were compiled for ("compile time
        # compute cap 80"), so the image has no code for this GPU. With equal numbers the line is the
        # check's own bug (an early TEI release on a T4), not a missing arch: scan() drops those.
        "compute-cap-not-compiled",
        re.compile(
            r"Runtime compute cap (?P<run>\d{2,3}) is not compatible with compile time compute cap "
            r"(?P<built>\d{2,3})\b"
        ),
    ),
    ("xpu-not-linked", re.compile(r"PyTorch is not linked with support for xpu devices")),
    # kept as evidence, judged by no rule: IPEX's runtime (DPC++/SYCL) sees no Intel GPU at all (no
    # Level-Zero/compute-runtime driver, or the user lacks the render group); no Intel driver check exists
    ("xpu-no-devices", re.compile(r"DPCPP Device count is zero!")),
    # nvidia-smi's answer when the driver is loaded but sees no GPU (a CPU node, a GPU not passed through)
    ("nvidia-smi-no-devices", re.compile(r"\bNo devices were found\b")),
    (
        # kept as evidence, judged by no rule: NCCL_DEBUG's own line prefix,
        # "host:pid:tid [cudaDev] NCCL INFO|WARN" (NCCL 2.2-2.3 printed "file.cu:line WARN" without the
        # word NCCL); they name the collective library and its transport, so a paste of these lines alone
        # is read (not refused)
        "nccl-debug",
        re.compile(
            r"[\w.-]{1,100}:\d{1,10}:\d{1,10} \[\d{1,5}\] "
            r"(?:NCCL (?:INFO|WARN)|[\w/.-]{1,100}\.(?:cu|cc|cpp|h|c):\d{1,6} (?:NCCL )?WARN) "
        ),
    ),
    (
        # cuDNN's own loader on Windows: a cuDNN 8 sub-library is not on the DLL path (not installed, or
        # its zlibwapi.dll dependency missing); it names no version torch or CUDA could be judged against
        "cudnn-dll-missing",
        re.compile(r"Could not (?:locate|load library) cudnn_\w+64_\d+\.dll", re.I),
    ),
    (
        # TensorRT refuses a serialized engine built by another TensorRT release: the cached plan file is
        # stale (rebuild it), the installed stack is not judged by it
        "tensorrt-engine-version",
        re.compile(
            r"engine plan file is not compatible with this version of TensorRT, expecting library version "
            r"[\d.]+ got [\d.]+",
            re.I,
        ),
    ),
    (
        # kept as evidence, judged by no rule: the TensorRT a framework was built against is not the one it
        # loaded. TF 1.x warns "TensorRT mismatch. Compiled against version 5.0.2, but loaded 5.1.2", TF 2.x
        # errors "Loaded TensorRT 8.6.1 but linked TensorFlow against TensorRT 8.4.3" (its info pair of
        # "Linked ..."/"Loaded ..." versions is compared in _tensorrt_pair); no rule holds TensorRT's
        # compatibility table
        "tensorrt-version-mismatch",
        re.compile(
            r"TensorRT mismatch\. Compiled against version [\d.]{1,20}, but loaded [\d.]{1,20}"
            r"|Loaded TensorRT [\d.]{1,20} but linked TensorFlow against TensorRT [\d.]{1,20}"
        ),
    ),
    (
        # kept as evidence, judged by no rule: docker has no runtime for `--gpus` (the NVIDIA container
        # toolkit is not installed or not registered with this docker); the host's driver is not judged by it
        "docker-gpu-runtime-missing",
        re.compile(r'could not select device driver "[^"\n]{0,100}" with capabilities: \[\[gpu\]\]'),
    ),
    (
        "bitsandbytes-cpu",
        re.compile(
            r"Defaulting to [`'\"]?libbitsandbytes_cpu\.so|bitsandbytes was compiled without GPU support|"
            r"Proceeding to load CPU-only library",
            re.I,
        ),
    ),
    (
        "cuda-lib-shadowed",
        re.compile(r"symbol \w+, version (libcublas(?:Lt)?\.so\.\d+) not defined in file \1"),
    ),
    (
        "pip-conflict",
        re.compile(
            r"\b(?:torchvision|torchaudio|torchtext|xformers|flash[-_]attn|torchao|torchdata) \S+ "
            r"(?:requires|has requirement) torch[=<>!~][^,\s]*,? but you(?:'ll)? have torch \S+ "
            r"which is incompatible"
        ),
    ),
)


_KEYWORDS: dict[str, tuple[str, ...]] = {
    "no-kernel-image": ("kernel image", "nokernelimage", "no device code compatible"),
    "hip-invalid-device-function": (
        "invalid device function",
        "invaliddevicefunction",
        "nobinaryforgpu",
        "unable to find code object",
        "illegal seek for gpu arch",
    ),
    "nvml-mismatch": ("version mismatch", "api mismatch"),
    "driver-insufficient": ("is insufficient", "cuda error(35)"),
    "jax-cuda-backend-failed": ("cuda backend failed to initialize",),
    "ort-cuda-provider-not-loaded": ("onnxruntime_providers_cuda",),
    "driver-forward-compat": ("forward compatibility was attempted",),
    "rocm-gfx-not-in-library": ("is not supported by", "supported types:["),
    "ptx-unsupported-toolchain": (
        "unsupported toolchain",
        "unsupportedptxversion",
        "unsupported_ptx_version",
    ),
    "no-nvidia-driver": (
        "no nvidia driver",
        "nvml shared library not found",
        "driver was not detected",
        "communicate with the nvidia driver",
        "libnvidia-ml.so.1",
    ),
    "gpu-lost": ("device handle", "fallen off the bus", "rminitadapter", "(rev ff)"),
    "vllm-cpu-platform": ("platform cpu", "device type=cpu"),
    "jax-plugin-incompatible": ("not compatible with the installed jaxlib",),
    "torch-not-compiled-with-cuda": ("not compiled with cuda",),
    "torch-build-no-cuda": ("cuda used to build pytorch",),
    "torch-not-compiled-with-xpu": ("not compiled with xpu",),
    "launcher-nvidia-smi-found": ("nvidia toolkit detected",),
    "gpu-too-old": ("no longer supports",),
    "driver-too-old": ("driver on your system is too old",),
    "cuda-init": ("cuda initialization",),
    "no-cuda-gpus": ("no cuda gpus",),
    "cudnn-mismatch": ("cudnn",),
    "xformers-built-for": ("xformers was built",),
    "nvcc-mismatch": ("detected cuda version",),
    "torch-abi-mismatch": ("undefined symbol",),
    "deepspeed-ops-other-torch": ("deepspeed ops were compiled",),
    "onnxruntime-cuda-libs": ("onnxruntime_providers_cuda",),
    "onnxruntime-cudnn-missing": ("onnxruntime_providers_cuda",),
    "tensorflow-cuda-library-missing": ("could not load dynamic library",),
    "mps-out-of-memory": ("mps backend out of memory",),
    "cuda-out-of-memory": ("out of memory. tried to allocate",),
    "nccl-cuda-error": ("unhandled cuda error", "ncclunhandledcudaerror"),
    "cuda-illegal-address": ("illegal memory access",),
    "mps-op-fallback": ("mps backend and will fall back",),
    "mps-op-not-implemented": ("implemented for the mps device",),
    "torch-dll-load": ("winerror 12",),
    "xpu-not-linked": ("support for xpu",),
    "tf-gpu-below-minimum": ("minimum required cuda capability",),
    "compute-cap-not-compiled": ("compile time compute cap",),
    "xpu-no-devices": ("device count is zero",),
    "nvidia-smi-no-devices": ("no devices were found",),
    "nccl-debug": ("nccl info", "nccl warn", " warn "),
    "cudnn-dll-missing": ("cudnn_",),
    "tensorrt-engine-version": ("engine plan file",),
    "tensorrt-version-mismatch": ("tensorrt mismatch", "linked tensorflow against"),
    "docker-gpu-runtime-missing": ("could not select device driver",),
    "bitsandbytes-cpu": ("libbitsandbytes_cpu", "without gpu support", "cpu-only library"),
    "cuda-lib-shadowed": ("not defined in file",),
    "pip-conflict": ("which is incompatible",),
}
"""Lower-case words each pattern needs: the regular expressions only run where one occurs."""


@dataclass
class Found:
    """What the messages in a text say."""

    messages: list[ReportMessage] = field(default_factory=list)
    cuda_driver_version: str | None = None
    mismatch: bool = False
    devices: list[NvidiaDevice] = field(default_factory=list)
    arch_list: tuple[str, ...] | None = None

    def sections(self) -> ImportedSections | None:
        """The facts as snapshot sections (None when the text states none)."""
        nvidia = None
        if self.cuda_driver_version or self.mismatch or self.devices:
            nvidia = NvidiaInfo(
                status="ok",
                source="import",
                cuda_driver_version=self.cuda_driver_version,
                library_version_mismatch=True if self.mismatch else None,
                devices=tuple(self.devices) or None,
            )
        frameworks = None
        if self.arch_list:
            frameworks = Frameworks(torch=TorchInfo(status="ok", arch_list=self.arch_list))
        if nvidia is None and frameworks is None:
            return None
        return ImportedSections(
            accelerators=Accelerators(nvidia=nvidia) if nvidia is not None else None, frameworks=frameworks
        )


_TENSORRT_PAIR = re.compile(
    r"\b(?P<which>Linked|Loaded) (?:TensorRT|TRT) ver(?:sion)?: ?"
    r"\(?(?P<v>\d{1,3}(?:(?:\.|, ?)\d{1,3}){1,2})\)?",
    re.I,
)
"""TF-TRT's info pair, "Linked TensorRT version: 8.4.3" and "Loaded TensorRT version: 8.6.1" (the tuple
form, "(8, 4, 3)", where the two ``get_*_tensorrt_version()`` calls are printed; "TRT" abbreviated)."""


def _tensorrt_pair(flat: str) -> str | None:
    """The linked and loaded TensorRT versions as one line, when the text states both and they differ."""
    seen: dict[str, re.Match[str]] = {}
    for match in _TENSORRT_PAIR.finditer(flat):
        seen.setdefault(match.group("which").lower(), match)
        if len(seen) == 2:
            break
    if len(seen) < 2:
        return None
    linked, loaded = seen["linked"], seen["loaded"]
    if re.sub(r", ?", ".", linked.group("v")) == re.sub(r", ?", ".", loaded.group("v")):
        return None
    return f"{linked.group(0)} / {loaded.group(0)}"


def _same_torch(match: re.Match[str]) -> bool:
    """Whether xFormers' "built for" torch is the installed one ("PyTorch 2.6.0+cu118 with CUDA 1107 (you
    have 2.6.0+cu118)"): the same version with the same local tag, whatever CUDA xFormers itself was compiled
    with. An untagged version ("PyTorch 2.0.1 with CUDA 1106 (you have 2.0.1)") names no variant: PyPI's
    Linux wheel is a CUDA build, the macOS and CPU ones are not, so the warning stays a mismatch."""
    built, have = match.group("built").strip().lower(), match.group("have").strip().lower()
    return built == have and "+" in built


def _runs_newest_major(cc: str, maximum: str | None) -> bool:
    """Whether a GPU above the range torch printed still runs the build's newest kernels: cubins for
    sm_XY run on any sm_XZ with Z >= Y (binary compatibility within a major), so a 12.1 GPU (GB10) runs a
    build whose maximum is 12.0; a GPU below the minimum or of a newer major does not."""
    if maximum is None:
        return False
    gpu = tuple(int(part) for part in cc.split("."))
    top = tuple(int(part) for part in maximum.split("."))
    return gpu[0] == top[0] and gpu >= top


def cuda_of_driver_api(api_version: int) -> str:
    """A CUDA driver API version as CUDA's major.minor: ``10010`` -> ``"10.1"``, ``12040`` -> ``"12.4"``."""
    return f"{api_version // 1000}.{(api_version % 1000) // 10}"


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _line_at(text: str, start: int) -> str:
    """The pasted line holding offset ``start`` of ``text``."""
    begin = text.rfind("\n", 0, start) + 1
    end = text.find("\n", start)
    return text[begin : end if end != -1 else len(text)]


def _add_warned_gpu(found: Found, name: str, sm: str) -> None:
    """The GPU an sm_XX warning names, with the capability it states (``sm_120`` = 12.0)."""
    cc = f"{sm[:-1]}.{sm[-1]}"
    name = re.sub(r"^.*?(?:UserWarning: |warnings\.warn\()", "", name).strip()
    found.devices.append(NvidiaDevice(index=len(found.devices), name=name, compute_capability=cc))


def scan(text: str) -> Found:
    """Every recognized message in ``text``, each kind once, and the facts they state."""
    found = Found()
    flat = " ".join(text.split())
    seen: set[str] = set()

    def add(kind: str, line: str) -> None:
        if kind not in seen:
            seen.add(kind)
            found.messages.append(ReportMessage(kind=kind, text=_clip(line)))

    lower = flat.lower()  # cheap keyword checks first: most reports print none of these lines
    match = _DRIVER_TOO_OLD.search(flat) if "found version" in lower else None
    if match:
        found.cuda_driver_version = cuda_of_driver_api(int(match.group("api")))
        add("driver-too-old", match.group(0))
    for match in _SM_INCOMPATIBLE.finditer(flat) if "capability sm_" in lower else ():
        _add_warned_gpu(found, match.group("name"), match.group("sm"))
        found.arch_list = tuple(re.findall(r"(?:sm|compute)_\d+a?", match.group("list")))
        add("arch-not-compatible", match.group(0))
    if "arch-not-compatible" not in seen and "is not compatible with the current pytorch" in lower:
        for match in _SM_INCOMPATIBLE_ALONE.finditer(flat):
            _add_warned_gpu(found, match.group("name"), match.group("sm"))
            add("arch-not-compatible", match.group(0))
    old_gpus = list(_TOO_OLD_GPU.finditer(flat)) if "which is of cuda capability" in lower else []
    # torch on ROCm reports an AMD GPU's made-up "cuda capability" (3.0 for a gfx803) in the same warning:
    # it says nothing about the build's kernels, so such a warning is no NVIDIA GPU and no finding.
    amd_only = bool(old_gpus) and all(_AMD_NAME.search(m.group("name")) for m in old_gpus)
    for match in () if amd_only else old_gpus:
        index = int(match.group("index"))
        if all(device.index != index for device in found.devices):
            found.devices.append(
                NvidiaDevice(
                    index=index, name=match.group("name").strip(), compute_capability=match.group("cc")
                )
            )
        # kept as evidence, judged by no rule: a GPU one minor above the build's newest runs its kernels
        add(
            "gpu-newer-minor" if _runs_newest_major(match.group("cc"), match.group("max")) else "gpu-too-old",
            match.group(0),
        )
    for kind, pattern in _SIMPLE:
        if not any(keyword in lower for keyword in _KEYWORDS[kind]):
            continue
        if kind == "gpu-too-old" and amd_only:
            continue
        in_text = pattern.search(text)
        hit = in_text or pattern.search(flat)
        if hit is None:
            continue
        if kind == "nvml-mismatch":
            found.mismatch = True
        if kind == "xformers-built-for" and _same_torch(hit):
            # xFormers prints the warning whenever its extensions fail to load; with the torch it was built
            # for installed (a failed source build, a missing kernel) the versions are no cause: kept as
            # evidence, judged by no rule
            kind = "xformers-extensions-not-loaded"
        line = _line_at(text, in_text.start()) if in_text else hit.group(0)
        if kind == "tf-gpu-below-minimum":
            # TensorFlow's log prefix (time, source path) would crowd out the GPU and the minimum
            line = hit.group(0)
        if kind == "compute-cap-not-compiled":
            if hit.group("run") == hit.group("built"):
                continue
            line = hit.group(0)  # the log prefix and "Could not start backend:" repeat nothing of use
        if kind == "no-kernel-image" and in_text:
            component = _component(text, in_text.start())
            line = f"raised in {component}: {line.strip()}" if component else line
        add(kind, line)
    if ("linked t" in lower and "loaded t" in lower) and (pair := _tensorrt_pair(flat)) is not None:
        add("tensorrt-version-mismatch", pair)
    return found


_FRAME_PACKAGE = re.compile(r"(?:site|dist)-packages/(?P<package>[A-Za-z_][\w]*)/")
EXTENSIONS = frozenset(
    {
        "vllm",
        "flashinfer",
        "sgl_kernel",
        "xformers",
        "flash_attn",
        "apex",
        "bitsandbytes",
        "deepspeed",
        "mmcv",
        "detectron2",
        "tensorrt_llm",
        "auto_gptq",
        "exllamav2",
    }
)
"""Packages whose own compiled kernels can lack a GPU's arch while torch's build covers it."""


def _component(text: str, start: int) -> str | None:
    """The compiled extension that raised the error at ``start``: the package in its own line
    (flashinfer prints its header's path) or in the traceback's last frame above it; None for torch."""
    line_end = text.find("\n", start)
    window = text[max(0, start - 4000) : line_end if line_end != -1 else len(text)]
    packages = [m.group("package") for m in _FRAME_PACKAGE.finditer(window)]
    last = packages[-1] if packages else None
    if "RMSNorm failed with error code" in window[-400:]:
        last = last if last in EXTENSIONS else "flashinfer"
    return last if last in EXTENSIONS else None
