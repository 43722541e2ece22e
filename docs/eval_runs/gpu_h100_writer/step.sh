#!/bin/bash
# Device steps for the Carol writer timing (not part of the repo: .gpu/ is ignored).
# first: unpack llama-cpp-python's source and start its CUDA build in the background
# chunk: keep the carried piece
# final: join the pieces, check hashes, run the Carol themes question (cold, cached, cold)
set -u
D=${GPU_D:-/root/g}
REPO=$PWD
mkdir -p $D/pieces
export PATH=/usr/local/cuda/bin:$PATH
for f in .gpu/p[0-9][0-9][0-9]; do [ -f "$f" ] && mv "$f" $D/pieces/; done
echo "pieces: $(ls $D/pieces | wc -l) ($(ls $D/pieces | tr '\n' ' '))"
build_state() {
  if [ -f $D/build.rc ]; then echo "build rc=$(cat $D/build.rc)"; else echo "build running:"; fi
  grep -o '\[[0-9]*/[0-9]*\]' $D/build.log 2>/dev/null | tail -1
  tail -c 400 $D/build.log 2>/dev/null | tr '\n' ' ' | cut -c1-400; echo
}
case "$1" in
first)
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -V; nproc; which python3 nvcc cmake ninja; nvcc --version | tail -1
  python3 -c "import skbuild_core" 2>/dev/null; python3 -m pip show scikit-build-core 2>/dev/null | head -2
  tar xJf .gpu/llsrc.tar.xz -C $D
  EXTRA=""
  if ! ls /usr/local/cuda/lib64/libcublas.so* /usr/local/cuda/targets/*/lib/libcublas.so* > /dev/null 2>&1; then
    L=$(find /opt /usr/local /usr/lib -name 'libcublas.so.1[0-9]' 2>/dev/null | sort | tail -1)
    INC=$(dirname $(dirname $L))/include
    EXTRA="-DCUDA_cublas_LIBRARY=$L -DCUDA_cublasLt_LIBRARY=$(dirname $L)/libcublasLt.so.${L##*.so.} -DCMAKE_CUDA_FLAGS=-I$INC -DCMAKE_CXX_FLAGS=-I$INC"
    echo "$(dirname $L)" > $D/ldpath
  fi
  DRV=$(ldconfig -p | grep -o '/[^ ]*libcuda\.so\.1$' | head -1)
  [ -z "$DRV" ] && DRV=$(find /usr/local/nvidia /usr/lib /usr/lib64 -name 'libcuda.so.1' 2>/dev/null | head -1)
  if ! ls /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/lib64/libcuda.so > /dev/null 2>&1; then
    if [ -n "$DRV" ]; then EXTRA="$EXTRA -DCUDA_cuda_driver_LIBRARY=$DRV"; else EXTRA="$EXTRA -DGGML_CUDA_NO_VMM=ON"; fi
  fi
  echo "EXTRA=$EXTRA"
  setsid nohup bash -c "cd $D/llsrc && CMAKE_ARGS='-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=90 -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF $EXTRA' CMAKE_BUILD_PARALLEL_LEVEL=16 python3 -m pip install --no-build-isolation --no-deps --no-index --target $D/llama -v . > $D/build.log 2>&1; echo \$? > $D/build.rc" > /dev/null 2>&1 < /dev/null &
  sleep 20; build_state
  ;;
chunk)
  build_state
  ;;
final)
  build_state
  cat $(ls -d $D/pieces/* | sort) > $D/blob
  echo "blob $(stat -c %s $D/blob)"
  while read name off size sha; do
    tail -c +$((off + 1)) $D/blob | head -c $size > $D/$name
    got=$(sha256sum $D/$name | cut -d' ' -f1)
    [ "$got" = "$sha" ] && echo "$name ok" || { echo "$name SHA MISMATCH"; exit 3; }
  done < .gpu/layout.txt
  rm -f $D/blob
  tar xJf $D/site312.tar.xz -C $D
  mkdir -p $D/gt && (cd $D/gt && python3 -m zipfile -e $D/gt.whl .)
  mkdir -p $D/home/cache/models && mv $D/model.gguf $D/home/cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
  tar xJf $D/idx.tar.xz -C $D
  for i in $(seq 1 120); do [ -f $D/build.rc ] && break; sleep 5; done
  build_state
  export LD_LIBRARY_PATH=$(cat $D/ldpath 2>/dev/null):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  export PYTHONPATH=$D/llama:$D/site312:$D/gt:$REPO GRAPHRAG_LOCAL_HOME=$D/home PYTHONUNBUFFERED=1
  python3 -c "import llama_cpp; print('llama_cpp', llama_cpp.__version__, 'gpu offload', llama_cpp.llama_supports_gpu_offload())"
  python3 -c "from graphrag_local.models.presets import get_preset, locate; print(locate(get_preset('qwen2.5-coder-1.5b')))"
  Q="What are the main themes of the story?"
  run() {  # run NAME INDEX
    local t0=$(date +%s.%N)
    python3 -c "import sys; from graphrag_local.cli import main; sys.argv=['graphrag-local']+sys.argv[1:]; main()" \
      query "$Q" --index $2 --writer qwen2.5-coder-1.5b --json > $OUT/$1.json 2> $OUT/$1.err
    local rc=$?
    echo "$1 rc=$rc wall=$(python3 -c "import time; print(round(time.time()-$t0, 2))") s"
    python3 - $OUT/$1.json <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("  no json:", e); sys.exit()
t = d["timings"]; w = d.get("written") or {}
print("  ", {k: t.get(k) for k in ("total_seconds", "first_token_seconds", "writer_seconds", "writer_tokens_per_second", "writer_load_seconds", "retrieval_seconds")},
      "llm_calls", d.get("llm_calls"), "completion", d.get("completion_tokens"), "kept", w.get("kept"), "dropped", w.get("dropped"), "cached_topics", w.get("cached_topics"))
PY
    grep -i -E "offload|CUDA0|error|Traceback" $OUT/$1.err | head -5
  }
  cp -a $D/carol5_pristine $D/idx1; cp -a $D/carol5_pristine $D/idx2
  run gpu_cold1 $D/idx1
  run gpu_cached1 $D/idx1
  run gpu_cold2 $D/idx2
  run gpu_cached2 $D/idx2
  nvidia-smi --query-gpu=name,memory.used --format=csv,noheader
  ;;
esac
