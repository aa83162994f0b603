#!/usr/bin/env bash
# Run envsnap's GPU suite (tests/gpu, marker `gpu`) on a machine with an NVIDIA GPU, from wheels
# carried along: the machine needs python3, the NVIDIA driver and a CUDA build of torch, nothing
# from a package index.
#
# Prepare the wheels where an index is reachable (from the repository root):
#   python3 -m pip wheel -w .whl ".[test]"          # envsnap and every runtime/test dependency
# then copy the checkout (with .whl/) to the GPU host and run, from the repository root:
#   scripts/gpu-check.sh                            # results in $OUT when set, else ./gpu-check-out
#
# envsnap is installed with --no-index --no-deps --target into a private folder put first on
# PYTHONPATH, so the tests exercise the built wheel (not src/) and the host's own torch stays in use
# (a CUDA torch is several GB; it is not carried). What the tests record on the real hardware (an
# anonymized snapshot, run reports) lands in $OUT/artifacts, ready for snapshots/examples/.
set -euo pipefail
cd "$(dirname "$0")/.."

wheels=${WHEELS:-.whl}
out=${OUT:-$PWD/gpu-check-out}
python=${PYTHON:-python3}
mkdir -p "$out/artifacts"

if ! compgen -G "$wheels/*.whl" >/dev/null; then
  echo "gpu-check: no wheels in $wheels/ (build them with: python3 -m pip wheel -w .whl '.[test]')" >&2
  exit 2
fi
site=$(mktemp -d)/site
# A wheel of torch or nvidia-* in the folder is left out: the host's CUDA torch is the one to test.
mapfile -t carried < <(ls "$wheels"/*.whl | grep -Ev '/(torch|nvidia_[a-z0-9_]+|triton)-[0-9]')
"$python" -m pip install --quiet --no-index --no-deps --target "$site" "${carried[@]}"
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
export ENVSNAP_GPU_ARTIFACTS="$out/artifacts"

{
  echo "# gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv 2>&1 || true
  "$python" -c 'import envsnap, sys; print("envsnap", envsnap.__version__, "from", envsnap.__file__)'
  "$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.is_available())' 2>&1 || true
} | tee "$out/environment.txt"

set +e
"$python" -m pytest -p no:cacheprovider -m gpu tests/gpu -v -rs --junitxml="$out/junit.xml" 2>&1 | tee "$out/pytest.log"
status=${PIPESTATUS[0]}
set -e
echo "gpu-check: pytest exit status $status; results in $out" >&2
exit "$status"
