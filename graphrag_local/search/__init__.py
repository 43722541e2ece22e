"""Question answering over a built index. One module per method (global, local, basic),
each a plain function from index records, a question and a chat model to a
`SearchResult`; `common.py` holds what they share (packing by tokens, citations, the
streamed answer). Nothing here reads files, settings or the store: `query.py` does that."""
