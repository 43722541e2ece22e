#!/bin/bash
# How the CUDA build of llama.cpp for the second lease was made on the 2-core CPU machine,
# with no CUDA installed there: CUDA 13.0 from PyPI's nvidia-* wheels, sm_90 only, shared
# libraries and llama-server, about 40 min with -j2. The libraries went into a copy of
# llama-cpp-python 0.3.36's Python package (llama_cpp/lib), built from the same sources.
set -e
W=/tmp/w50
cd $W/cuda
pip download --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux_2_27_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 -d . \
  "nvidia-cuda-nvcc==13.0.*" "nvidia-cuda-runtime==13.0.*" "nvidia-cuda-cccl==13.0.*" \
  "nvidia-cuda-crt==13.0.*" "nvidia-nvvm==13.0.*" "nvidia-cublas==13.0.*"
mkdir -p $W/cutk && cd $W/cutk && for w in $W/cuda/*.whl; do unzip -q -o $w 'nvidia/*'; done
T=$W/cutk/nvidia/cu13
chmod +x $T/bin/* $T/nvvm/bin/*
(cd $T/lib && ln -sf libcudart.so.13 libcudart.so && ln -sf libcublas.so.13 libcublas.so \
  && ln -sf libcublasLt.so.13 libcublasLt.so)
ln -sfn lib $T/lib64
mkdir -p $T/targets && ln -sfn $T $T/targets/x86_64-linux   # where nvcc.profile looks
python3 -m venv $W/bt && $W/bt/bin/pip install cmake ninja  # CMake 4.4.5
S=$W/src/llama_cpp_python-0.3.36/vendor/llama.cpp           # the sdist, unpacked
PATH=$T/bin:$W/bt/bin:$PATH cmake -S $S -B $W/bld -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=ON -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_COMPILER=$T/bin/nvcc -DCUDAToolkit_ROOT=$T -DGGML_CUDA_NO_VMM=ON \
  -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON \
  -DLLAMA_BUILD_SERVER=ON '-DCMAKE_BUILD_RPATH=$ORIGIN'
# the linker finds libcublas.so.13 for llama-server through LD_LIBRARY_PATH
PATH=$T/bin:$W/bt/bin:$PATH LD_LIBRARY_PATH=$T/lib ninja -C $W/bld -j2 llama-server llama
mkdir -p $W/pkg/pyllama && cp -a $W/src/llama_cpp_python-0.3.36/llama_cpp $W/pkg/pyllama/
mkdir -p $W/pkg/pyllama/llama_cpp/lib && cp -a $W/bld/bin/*.so* $W/bld/bin/llama-server $W/pkg/pyllama/llama_cpp/lib/
