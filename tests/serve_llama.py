"""Start llama-cpp-python's OpenAI-compatible server for the remote-model tests.

It is `python -m llama_cpp.server` (same arguments) run inside `_without_amx`: on a CPU
with Intel AMX, llama.cpp's AMX kernel crashes on the first decode of our GGUFs, and the
server loads its model without the context manager that avoids it."""

import llama_cpp
import llama_cpp.server.__main__ as server

from graphrag_local.models.llama import _without_amx

if __name__ == "__main__":
    with _without_amx(llama_cpp):
        server.main()
