"""Embeddings: each paper's title and abstract as one unit-length vector, for related
papers and search by meaning (issue 27).

:mod:`.static_model` is the model (WordLlama's static token vectors, shipped in the
optional ``wordllama`` package: ``pip install 'paperdesk[embeddings]'``), :mod:`.vectors`
how the vectors are stored in ``vectors/`` of the library folder and searched,
:mod:`.vector_build` how missing ones are computed. :mod:`.minilm` is the transformer it
was compared with (docs/discover.md). Without the package everything in
:mod:`paperdesk.core.discover` works on tf-idf alone.
"""
