#!/usr/bin/env bash
# Install the optional open-source comparators used by 11_method_comparison.ipynb.
# Model downloads happen here, outside benchmark timing.
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd -- "${SCRIPT_DIR}/../.." && pwd)"
TOOL_ROOT="${SCALESURFER_SEGMENTATION_TOOLS:-${SCRIPT_DIR}/.segmentation_tools}"
UV_CACHE_DIR="${UV_CACHE_DIR:-${TOOL_ROOT}/.uv-cache}"
export UV_CACHE_DIR
FASTSURFER_REF="${FASTSURFER_REF:-v2.5.4}"
FASTSURFER_TORCH_BACKEND="${FASTSURFER_TORCH_BACKEND:-cu128}"
BRAINCHOP_REF="${BRAINCHOP_REF:-v0.2.5}"
BRAINCHOP_CLI_HOME="${BRAINCHOP_CLI_HOME:-${REPO_ROOT}/brainchop-cli}"
BRAINCHOP_MODEL_DIR="${BRAINCHOP_DKATLAS_MODEL_DIR:-${TOOL_ROOT}/brainchop-models/model24chan104cls_synth}"
SYNTHSEG_CUDA_LIB_ROOT="${SYNTHSEG_CUDA_LIB_ROOT:-${TOOL_ROOT}/synthseg-cuda-libs}"
BRAINCHOP_MODEL_JSON_SHA256="0926df057e3e9b4de2bf28aa4ff33261eca470cb94dfc85180894eda386b878e"
BRAINCHOP_MODEL_PTH_SHA256="835a71904719ff9e3582c3534179af6e1d7436d77b654b3387d0f3c855079cd8"
install_fastsurfer=false
install_brainchop=false
install_synthseg_cuda=false
check_only=false

usage() {
    sed -n '2,8p' "$0"
    printf '\nUsage: %s [--all | --fastsurfer | --brainchop | --synthseg-cuda | --check]\n' "$0"
    printf 'SynthSeg weights/code come from FreeSurfer; --synthseg-cuda installs its local CUDA 11.8 runtime libraries.\n'
}

if [[ $# -eq 0 ]]; then
    install_fastsurfer=true
    install_brainchop=true
    install_synthseg_cuda=true
fi

while [[ $# -gt 0 ]]; do
    case "$1" in
        --all)
            install_fastsurfer=true
            install_brainchop=true
            install_synthseg_cuda=true
            ;;
        --fastsurfer)
            install_fastsurfer=true
            ;;
        --brainchop)
            install_brainchop=true
            ;;
        --synthseg-cuda)
            install_synthseg_cuda=true
            ;;
        --check)
            check_only=true
            ;;
        -h|--help)
            usage
            exit 0
            ;;
        *)
            printf 'Unknown argument: %s\n' "$1" >&2
            usage >&2
            exit 2
            ;;
    esac
    shift
done

check_command() {
    local label="$1"
    local command_path="$2"
    if [[ -x "$command_path" ]]; then
        printf '[ok]      %-12s %s\n' "$label" "$command_path"
    else
        printf '[missing] %-12s %s\n' "$label" "$command_path"
    fi
}

check_file() {
    local label="$1"
    local file_path="$2"
    if [[ -f "$file_path" ]]; then
        printf '[ok]      %-12s %s\n' "$label" "$file_path"
    else
        printf '[missing] %-12s %s\n' "$label" "$file_path"
    fi
}

verify_sha256() {
    local label="$1"
    local file_path="$2"
    local expected="$3"
    local result actual
    result="$(sha256sum "$file_path")"
    actual="${result%% *}"
    if [[ "$actual" != "$expected" ]]; then
        printf 'Checksum mismatch for %s: expected %s, got %s\n' "$label" "$expected" "$actual" >&2
        exit 1
    fi
}

check_tools() {
    local synthseg_path=""
    if [[ -n "${SYNTHSEG_BIN:-}" ]]; then
        synthseg_path="$SYNTHSEG_BIN"
    elif [[ -n "${FREESURFER_HOME:-}" ]]; then
        synthseg_path="${FREESURFER_HOME}/bin/mri_synthseg"
    elif command -v mri_synthseg >/dev/null 2>&1; then
        synthseg_path="$(command -v mri_synthseg)"
    fi

    if [[ -n "$synthseg_path" ]]; then
        check_command "SynthSeg" "$synthseg_path"
    else
        printf '[missing] %-12s install FreeSurfer >=7.3.2 or set SYNTHSEG_BIN\n' "SynthSeg"
    fi
    # run_prediction.py is invoked through the environment's Python and is not
    # marked executable in upstream releases.
    check_file "FastSurfer" "${TOOL_ROOT}/FastSurfer/FastSurferCNN/run_prediction.py"
    if [[ -x "${BRAINCHOP_CLI_HOME}/.venv/bin/brainchop" ]]; then
        check_command "BrainChop" "${BRAINCHOP_CLI_HOME}/.venv/bin/brainchop"
    else
        check_command "BrainChop" "${TOOL_ROOT}/brainchop-cli/.venv/bin/brainchop"
    fi
    check_file "DKatlas cfg" "${BRAINCHOP_MODEL_DIR}/model.json"
    check_file "DKatlas wts" "${BRAINCHOP_MODEL_DIR}/model.pth"
    check_file "SynthSeg GPU" "${SYNTHSEG_CUDA_LIB_ROOT}/nvidia/cudnn/lib/libcudnn.so.8"
}

if [[ "$check_only" == true ]]; then
    check_tools
    exit 0
fi

command -v uv >/dev/null 2>&1 || {
    printf 'uv is required. Install it from https://docs.astral.sh/uv/ and rerun.\n' >&2
    exit 1
}
mkdir -p "$TOOL_ROOT"

if [[ "$install_synthseg_cuda" == true ]]; then
    if [[ -f "${SYNTHSEG_CUDA_LIB_ROOT}/nvidia/cudnn/lib/libcudnn.so.8" ]]; then
        printf 'Reusing SynthSeg CUDA 11.8 libraries: %s\n' "$SYNTHSEG_CUDA_LIB_ROOT"
    else
        # FreeSurfer 8.2 ships a CUDA-enabled TensorFlow 2.13 build, but not the
        # CUDA 11.8/cuDNN 8 runtime libraries that build dynamically loads.
        uv pip install --quiet --target "$SYNTHSEG_CUDA_LIB_ROOT" \
            'nvidia-cublas-cu11==11.11.3.6' \
            'nvidia-cuda-cupti-cu11==11.8.87' \
            'nvidia-cuda-runtime-cu11==11.8.89' \
            'nvidia-cudnn-cu11==8.6.0.163' \
            'nvidia-cufft-cu11==10.9.0.58' \
            'nvidia-curand-cu11==10.3.0.86' \
            'nvidia-cusolver-cu11==11.4.1.48' \
            'nvidia-cusparse-cu11==11.7.5.86' \
            'nvidia-nccl-cu11==2.16.5' \
            'nvidia-nvtx-cu11==11.8.86'
    fi
fi

if [[ "$install_fastsurfer" == true ]]; then
    fastsurfer_dir="${TOOL_ROOT}/FastSurfer"
    if [[ ! -d "${fastsurfer_dir}/.git" ]]; then
        git clone --depth 1 --branch "$FASTSURFER_REF" \
            https://github.com/Deep-MI/FastSurfer.git "$fastsurfer_dir"
    else
        printf 'Reusing existing FastSurfer checkout: %s\n' "$fastsurfer_dir"
    fi
    if [[ ! -x "${fastsurfer_dir}/.venv/bin/python" ]]; then
        uv venv --python 3.12 "${fastsurfer_dir}/.venv"
    fi
    if PYTHONPATH="${fastsurfer_dir}${PYTHONPATH:+:${PYTHONPATH}}" \
        "${fastsurfer_dir}/.venv/bin/python" -c \
        'import FastSurferCNN, torch; assert torch.version.cuda' >/dev/null 2>&1; then
        printf 'Reusing complete FastSurfer CUDA environment: %s\n' "${fastsurfer_dir}/.venv"
    else
        fastsurfer_lock="$(mktemp "${TMPDIR:-/tmp}/scalesurfer-fastsurfer.XXXXXX.txt")"
        uv pip compile --quiet --python "${fastsurfer_dir}/.venv/bin/python" \
            --torch-backend "$FASTSURFER_TORCH_BACKEND" \
            --output-file "$fastsurfer_lock" "${fastsurfer_dir}/requirements.txt"
        uv pip sync --quiet --python "${fastsurfer_dir}/.venv/bin/python" \
            --torch-backend "$FASTSURFER_TORCH_BACKEND" "$fastsurfer_lock"
        rm -f "$fastsurfer_lock"
    fi
    # The checkpoint utility imports FastSurferCNN as a top-level package and
    # therefore must run from the checkout (or with its root on PYTHONPATH).
    # Only VINN is used by this segmentation benchmark; skip unrelated surface,
    # corpus-callosum, cerebellum, and hypothalamus checkpoints.
    (
        cd "$fastsurfer_dir"
        export PYTHONPATH="${fastsurfer_dir}${PYTHONPATH:+:${PYTHONPATH}}"
        .venv/bin/python FastSurferCNN/download_checkpoints.py --vinn
    )
fi

if [[ "$install_brainchop" == true ]]; then
    brainchop_dir="$BRAINCHOP_CLI_HOME"
    if [[ ! -d "${brainchop_dir}/.git" ]]; then
        brainchop_dir="${TOOL_ROOT}/brainchop-cli"
        BRAINCHOP_CLI_HOME="$brainchop_dir"
        if [[ ! -d "${brainchop_dir}/.git" ]]; then
            git clone --depth 1 --branch "$BRAINCHOP_REF" \
                https://github.com/neuroneural/brainchop-cli.git "$brainchop_dir"
        fi
    else
        printf 'Using local BrainChop checkout: %s\n' "$brainchop_dir"
    fi
    if [[ ! -x "${brainchop_dir}/.venv/bin/python" ]]; then
        uv venv --python 3.12 "${brainchop_dir}/.venv"
    fi
    if DEBUG=0 "${brainchop_dir}/.venv/bin/python" -c \
        'import brainchop, niimath, tinygrad' >/dev/null 2>&1; then
        printf 'Reusing complete BrainChop environment: %s\n' "${brainchop_dir}/.venv"
    else
        uv pip install --python "${brainchop_dir}/.venv/bin/python" -e "$brainchop_dir"
    fi
    # Download model metadata and weights outside benchmark timing. Keep them
    # in the writable tool root: tinygrad opens safetensors with O_RDWR even
    # though inference is read-only, which breaks on read-only home caches.
    DEBUG="${BRAINCHOP_DEBUG:-0}" "${brainchop_dir}/.venv/bin/brainchop" --list >/dev/null
    mkdir -p "$BRAINCHOP_MODEL_DIR"
    if [[ ! -f "${BRAINCHOP_MODEL_DIR}/model.json" ]]; then
        curl -L --fail -o "${BRAINCHOP_MODEL_DIR}/model.json" \
            https://raw.githubusercontent.com/neuroneural/brainchop-models/main/meshnet/model24chan104cls_synth/model.json
    fi
    if [[ ! -f "${BRAINCHOP_MODEL_DIR}/model.pth" ]]; then
        curl -L --fail -o "${BRAINCHOP_MODEL_DIR}/model.pth" \
            https://raw.githubusercontent.com/neuroneural/brainchop-models/main/meshnet/model24chan104cls_synth/model.pth
    fi
    verify_sha256 "BrainChop DKatlas model.json" \
        "${BRAINCHOP_MODEL_DIR}/model.json" "$BRAINCHOP_MODEL_JSON_SHA256"
    verify_sha256 "BrainChop DKatlas model.pth" \
        "${BRAINCHOP_MODEL_DIR}/model.pth" "$BRAINCHOP_MODEL_PTH_SHA256"
fi

printf '\nComparator status:\n'
check_tools
printf '\nSet SCALESURFER_SEGMENTATION_TOOLS=%s when running elsewhere.\n' "$TOOL_ROOT"
