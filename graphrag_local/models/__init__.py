"""The model code: the chat-model Protocol (`protocol.py`, re-exported here), the
in-process llama.cpp model (`llama.py`, batched decoding in `decode.py`), a model behind
an OpenAI-compatible server (`server.py`, over `transport.py` and `bodies.py`),
grammars and structured replies (`grammar.py`, `structured.py`), model presets
(`presets.py`) and the embedder (`embed.py`: sentence-transformers, for the build;
`embed_np.py`: the same weights in numpy, for questions, without torch). Importing this
face loads neither llama_cpp nor sentence_transformers."""

from .protocol import Avoid, CallRecord, ChatModel, Message, OnText, Request

__all__ = ["Avoid", "CallRecord", "ChatModel", "Message", "OnText", "Request"]
