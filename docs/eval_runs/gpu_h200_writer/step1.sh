#!/bin/bash
# Device steps for the Carol writer timing (not part of the repo: .gpu/ is ignored).
# first: unpack llama-cpp-python's source and start its CUDA build in the background
# chunk: keep the carried piece
# final: join the pieces, check hashes, find a way to load the writer on the GPU,
#        run the Carol themes question (cold, cached, cold, cached)
set -u
D=${GPU_D:-/root/g}
REPO=$PWD
PY=${PY:-python3}
mkdir -p $D/pieces
export PATH=/usr/local/cuda/bin:$PATH
[ -z "${SIM:-}" ] && for f in .gpu/p[0-9][0-9][0-9]; do [ -f "$f" ] && mv "$f" $D/pieces/; done
echo "pieces: $(ls $D/pieces | wc -l)"
build_state() {
  if [ -f $D/build.rc ]; then echo "build rc=$(cat $D/build.rc)"; else echo "build running:"; fi
  grep -o '\[[0-9]*/[0-9]*\]' $D/build.log 2>/dev/null | tail -1
  tail -c 300 $D/build.log 2>/dev/null | tr '\n' ' ' | cut -c1-300; echo
}
case "$1" in
first)
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -V; nproc; which python3 nvcc cmake ninja; nvcc --version | tail -1
  python3 -c "import pyarrow; print('pyarrow', pyarrow.__version__)"
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
  sleep 3; build_state
  ;;
chunk)
  build_state
  ;;
final)
  LOG=$OUT/final.log
  exec > >(tee -a $LOG) 2>&1
  build_state
  T0=$(date +%s)
  if [ -z "${SIM:-}" ]; then
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
    echo "unpacked in $(( $(date +%s) - T0 )) s"
    for i in $(seq 1 230); do [ -f $D/build.rc ] && break; sleep 2; done
    build_state
    export LD_LIBRARY_PATH=$(cat $D/ldpath 2>/dev/null):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
    export PYTHONPATH=$D/llama:$D/site312:$D/gt:$REPO
  fi
  export GRAPHRAG_LOCAL_HOME=$D/home PYTHONUNBUFFERED=1
  M=$D/home/cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
  $PY -c "import llama_cpp; print('llama_cpp', llama_cpp.__version__, 'gpu offload', llama_cpp.llama_supports_gpu_offload())"
  # what may crash a load on the GPU: each on its own, at once (seconds each)
  LOAD="from llama_cpp import Llama; m = Llama('$M', n_gpu_layers=-1, n_ctx=8192, verbose=False); print('loaded', m.n_ctx())"
  diag() { timeout 120 $PY -X faulthandler -c "$2" > $D/diag_$1.txt 2>&1; echo "diag $1 rc=$? $(grep -E 'loaded|Error|Segmentation|File ' $D/diag_$1.txt | head -3 | tr '\n' ' ')"; }
  P=""
  diag alone "$LOAD" & P="$P $!"
  diag pyarrow "import pyarrow; $LOAD" & P="$P $!"
  diag lancedb "import lancedb; $LOAD" & P="$P $!"
  diag first "import llama_cpp, lancedb; $LOAD" & P="$P $!"
  ARROW_DEFAULT_MEMORY_POOL=system diag arrowsys "import lancedb; $LOAD" & P="$P $!"
  diag numpyemb "import numpy, safetensors, tokenizers; $LOAD" & P="$P $!"
  wait $P
  Q="What are the main themes of the story?"
  MAIN="import sys; from graphrag_local.cli import main; sys.argv=['graphrag-local']+sys.argv[1:]; main()"
  WRITER=qwen2.5-coder-1.5b
  run() {  # run NAME INDEX MODE
    local pre="" envs=""
    case "$3" in
      pre) pre="import llama_cpp; " ;;
      arrow) envs="ARROW_DEFAULT_MEMORY_POOL=system" ;;
    esac
    local t0=$(date +%s.%N)
    env $envs timeout 240 $PY -X faulthandler -c "$pre$MAIN" query "$Q" --index $2 --writer $WRITER --json > $OUT/$1.json 2> $D/$1.err
    local rc=$?
    echo "$1 mode=$3 rc=$rc wall=$($PY -c "import time; print(round(time.time()-$t0, 2))") s"
    $PY - $OUT/$1.json <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("  no json:", e); sys.exit()
t = d["timings"]; w = d.get("written") or {}
print("  ", {k: t.get(k) for k in ("total_seconds", "first_token_seconds", "writer_seconds", "writer_tokens_per_second", "writer_load_seconds", "retrieval_seconds", "embedder_load_seconds")},
      "llm_calls", d.get("llm_calls"), "completion", d.get("completion_tokens"), "kept", w.get("kept"), "dropped", w.get("dropped"), "cached_topics", w.get("cached_topics"))
PY
    grep -v "^ *$" $D/$1.err | grep -i -E "fatal|error|Traceback|File \"|offload" | head -6
    return $rc
  }
  rm -rf $D/idx*; for i in 1 2 3; do cp -a $D/carol5_pristine $D/idx$i; done
  MODE=""
  for mode in plain pre arrow; do
    if run gpu_cold1 $D/idx1 $mode; then MODE=$mode; break; fi
    rm -rf $D/idx1; cp -a $D/carol5_pristine $D/idx1
  done
  if [ -z "$MODE" ]; then
    echo "no in-process mode worked: the writer behind llama-cpp-python's server"
    (cd $D && setsid nohup $PY -m llama_cpp.server --model $M --n_gpu_layers -1 --n_ctx 8192 --host 127.0.0.1 --port 8089 --model_alias qwen15 > $D/server.log 2>&1 < /dev/null &)
    for i in $(seq 1 60); do $PY -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8089/v1/models', timeout=2)" 2>/dev/null && break; sleep 1; done
    tail -c 600 $D/server.log
    $PY -c "$MAIN" models add qgpu --url http://127.0.0.1:8089 --model qwen15 2>&1 | tail -3
    WRITER=qgpu; MODE=server
    run gpu_cold1 $D/idx1 $MODE
  fi
  run gpu_cached1 $D/idx1 $MODE
  run gpu_cold2 $D/idx2 $MODE
  run gpu_cached2 $D/idx2 $MODE
  nvidia-smi --query-gpu=name,memory.used --format=csv,noheader
  (cd $D && tar cJf $OUT/diag.tar.xz diag_*.txt *.err server.log 2>/dev/null)
  echo "final in $(( $(date +%s) - T0 )) s"
  ;;
esac
