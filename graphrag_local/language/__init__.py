"""What depends on the language a document is written in: which language it is
(`detect.py`), its words for search (`tokens.py`) and its candidate names
(`names.py`: segmenters for Chinese and Japanese, lemmas for Russian, German's capitalised
nouns told from names). Everything else in the pipeline is language-blind."""
