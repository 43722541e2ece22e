#!/bin/bash
# Device steps of the H200 lease of 2026-11-28 (the pieces travel in .gpu/, ignored).
# llama.cpp was built on the 2-core machine as in ../gpu_h200_writer/build_cuda_here.sh.
# chunk: keep the carried piece
# final: join the pieces, check hashes; Carol's themes question with the 1.5B in-process
#        (graphrag-local's probe decides GPU or CPU): cold, cached, cold on a fresh copy;
#        then behind llama-server on the same GPU
set -u
D=${GPU_D:-/root/g}
REPO=$PWD
PY=${PY:-python3}
mkdir -p $D/pieces
[ -z "${SIM:-}" ] && for f in .gpu/p[0-9][0-9][0-9]; do [ -f "$f" ] && mv "$f" $D/pieces/; done
echo "pieces: $(ls $D/pieces | wc -l)"
case "$1" in
chunk) ;;
final)
  LOG=$OUT/final.log
  exec > >(tee -a $LOG) 2>&1
  T0=$(date +%s)
  cat $(ls -d $D/pieces/* | sort) > $D/blob
  echo "blob $(stat -c %s $D/blob)"
  while read name off size sha; do
    tail -c +$((off + 1)) $D/blob | head -c $size > $D/$name
    got=$(sha256sum $D/$name | cut -d' ' -f1)
    [ "$got" = "$sha" ] && echo "$name ok" || { echo "$name SHA MISMATCH"; exit 3; }
  done < docs/eval_runs/gpu_h200_writer2/layout.txt
  rm -f $D/blob $D/pieces/*
  tar xJf $D/site312.tar.xz -C $D
  tar xJf $D/pyllama.tar.xz -C $D
  mkdir -p $D/gt && (cd $D/gt && $PY -m zipfile -e $D/gt.whl .)
  mkdir -p $D/home/cache/models && mv $D/model.gguf $D/home/cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
  tar xJf $D/idx.tar.xz -C $D
  echo "unpacked in $(( $(date +%s) - T0 )) s"
  export LD_LIBRARY_PATH=$D/pyllama/llama_cpp/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  export PYTHONPATH=$D/pyllama:$D/site312:$D/gt:$REPO
  export GRAPHRAG_LOCAL_HOME=$D/home PYTHONUNBUFFERED=1
  [ -n "${SIM:-}" ] && export PYTHONPATH=$REPO LD_LIBRARY_PATH=  # a dry run on the CPU machine
  M=$D/home/cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
  SRV=$D/pyllama/llama_cpp/lib/llama-server
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2
  $PY -c "import llama_cpp, numpy, pyarrow; print('llama_cpp', llama_cpp.__version__, 'gpu offload', llama_cpp.llama_supports_gpu_offload(), 'numpy', numpy.__version__, 'pyarrow', pyarrow.__version__)"
  Q="What are the main themes of the story?"
  MAIN="import sys; from graphrag_local.cli import main; sys.argv=['graphrag-local']+sys.argv[1:]; main()"
  run() {  # run NAME INDEX WRITER
    local t0=$(date +%s.%N)
    timeout 120 $PY -X faulthandler -c "$MAIN" query "$Q" --index $2 --writer $3 --json > $OUT/$1.json 2> $D/$1.err
    local rc=$?
    echo "$1 writer=$3 rc=$rc wall=$($PY -c "import time; print(round(time.time()-$t0, 2))") s"
    $PY - $OUT/$1.json <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("  no json:", e); sys.exit()
t = d["timings"]; w = d.get("written") or {}
print("  ", {k: t.get(k) for k in ("total_seconds", "first_token_seconds", "writer_seconds", "writer_tokens_per_second", "writer_load_seconds", "retrieval_seconds")},
      "llm_calls", d.get("llm_calls"), "completion", d.get("completion_tokens"), "kept", w.get("kept"), "dropped", w.get("dropped"), "cached", w.get("cached_topics"), "words", len(d["answer"].split()))
PY
    grep -v "^ *$" $D/$1.err | grep -i -E "fatal|error|Traceback|dies|GPU|segment|warn" | head -4 | cut -c1-400
  }
  rm -rf $D/idx*; for i in 1 2 3 4; do cp -a $D/carol5_pristine $D/idx$i; done
  # 1. in-process, as a user runs it: the probe tries the GPU in a child first
  run inproc_cold1 $D/idx1 qwen2.5-coder-1.5b
  run inproc_cached1 $D/idx1 qwen2.5-coder-1.5b
  run inproc_cold2 $D/idx2 qwen2.5-coder-1.5b
  cat $D/home/cache/gpu_probe.json 2>/dev/null | head -8; echo
  $PY -c "$MAIN" doctor 2>&1 | grep -i -E "gpu|llama" | head -4
  # 2. the writer behind llama.cpp's own server, on the GPU (4 slots of 8192 tokens)
  if [ -z "${SIM:-}" ] && [ $(( $(date +%s) - T0 )) -lt 200 ]; then
    (cd $D && setsid nohup $SRV -m $M -ngl 99 -c 32768 -np 4 --host 127.0.0.1 --port 8090 -a qwen15 > $D/server.log 2>&1 < /dev/null &)
    for i in $(seq 1 60); do $PY -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8090/health', timeout=2)" 2>/dev/null && break; sleep 1; done
    echo "server up after ${i} s"
    $PY -c "$MAIN" models add qsrv --url http://127.0.0.1:8090 --model qwen15 2>&1 | tail -1
    run srv_cold1 $D/idx3 qsrv
    run srv_cached1 $D/idx3 qsrv
    pkill -f llama-server
  fi
  nvidia-smi --query-gpu=name,memory.used --format=csv,noheader 2>&1 | head -2
  (cd $D && tar cJf $OUT/diag.tar.xz *.err server.log 2>/dev/null)
  echo "final in $(( $(date +%s) - T0 )) s"
  ;;
esac
