"""Raw text as users have it, and the CoNLL 2018 shared task's raw-text protocol.

One concept per module: ``rawtext`` rebuilds the ``.txt`` that UD releases beside each treebank (and where
every sentence lies in it), ``gold_docs`` builds gold spaCy docs on that text for training, ``tokenizer``
holds UD English's tokenization rules and ``multiword`` the multiword tokens UD English writes,
``contractions`` the multiword tokens of another language learned from its train file, ``conll18`` scores
CoNLL-U against gold with the shared task's evaluation and validates it with UD's validator,
``conllu_writer`` writes spaCy docs parsed from raw text as CoNLL-U, and ``parse_text`` runs a pipeline over
raw text of any size. Import the module you need; this package imports none of them.
"""
