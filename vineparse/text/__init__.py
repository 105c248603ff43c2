"""Raw text: UD's raw-text reconstruction, tokenization, multiword tokens, the CoNLL 2018 evaluation and CoNLL-U output."""
